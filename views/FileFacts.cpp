#include "views/FileFacts.h"

#include <array>

#include "support/Binary.h"

namespace nib {
namespace {
// 3: ranges written against the previous one's (RangeCursor), unit digests packed.
// 4: the fact store keeps each record LZ4-packed (FactStore::factsRecord); the bytes here are
//    those of 3, but a store's raw records of 3 must never be read as packed ones.
constexpr uint8_t kFormatVersion = 6;
// An occurrence's flags byte: bit 0x10 says an extras byte follows, whose bits say which of the
// usually implied fields are written.
constexpr uint8_t kHasExtras = 0x10;
constexpr uint8_t kExtraQualifier = 1;
constexpr uint8_t kExtraTarget = 2;  // a free name's target, when it is not -1

constexpr std::array<const char*, 22> kKindNames = {
    "unknown", "module", "namespace", "class", "struct", "interface", "enum",
    "enum-member", "function", "method", "constructor", "field", "property", "variable",
    "constant", "parameter", "type-alias", "macro", "import", "union", "trait", "type-parameter"};

}  // namespace

const char* symbolKindName(SymbolKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : "unknown";
}

SymbolKind symbolKindFromName(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i)
    if (name == kKindNames[i]) return static_cast<SymbolKind>(i);
  return SymbolKind::Unknown;
}

bool isCallableKind(SymbolKind k) {
  return k == SymbolKind::Function || k == SymbolKind::Method || k == SymbolKind::Constructor ||
         k == SymbolKind::Macro;
}

bool isTypeKind(SymbolKind k) {
  return k == SymbolKind::Class || k == SymbolKind::Struct || k == SymbolKind::Interface ||
         k == SymbolKind::Enum || k == SymbolKind::Trait || k == SymbolKind::TypeAlias ||
         k == SymbolKind::Union;
}

uint8_t factsFormatVersion() { return kFormatVersion; }

std::string serializeFacts(const FileFacts& f) {
  ByteWriter w;
  w.u8(kFormatVersion);
  w.u8(static_cast<uint8_t>(f.language));
  w.u8(static_cast<uint8_t>((f.ascii ? 1 : 0) | (f.validUtf8 ? 2 : 0) | (f.parseErrors ? 4 : 0)));
  w.varint(f.lineCount);
  w.varint(f.byteSize);

  w.varint(f.definitions.size());
  RangeCursor at;
  for (const Definition& d : f.definitions) {
    w.str(d.name);
    w.str(d.container);
    w.u8(static_cast<uint8_t>(d.kind));
    w.u8(static_cast<uint8_t>(static_cast<uint8_t>(d.scope) | (d.isDeclaration ? 0x80 : 0)));
    writeRangeAfter(w, at, d.range);
    RangeCursor inside = at;  // a definition's name lies inside it: a few bytes from its start
    writeRangeAfter(w, inside, d.nameRange);
    w.svarint(d.parent);
  }
  w.varint(f.names.size());
  for (const std::string& n : f.names) w.str(n);
  w.varint(f.occurrences.size());
  at = RangeCursor();
  for (const Occurrence& o : f.occurrences) {
    writeRangeAfter(w, at, o.range);
    w.varint(o.nameId);
    // Most occurrences are free names (target -1) without a qualifier: both are implied unless
    // the extras flag says otherwise (format 5; on a 12k-file Linux sample 6.2M occurrences,
    // two of them qualified).
    bool freeName = o.resolution == Resolution::Free;
    uint8_t extras = (o.qualifier.empty() ? 0 : kExtraQualifier) | (freeName && o.target != -1 ? kExtraTarget : 0);
    w.u8(static_cast<uint8_t>(static_cast<uint8_t>(o.role) | (static_cast<uint8_t>(o.resolution) << 2) |
                              (extras ? kHasExtras : 0) | (o.qualified ? 0x20 : 0) | (o.viaReceiver ? 0x40 : 0) |
                              (o.isCall ? 0x80 : 0)));
    if (extras) w.u8(extras);
    if (!freeName || (extras & kExtraTarget)) w.svarint(o.target);
    if (extras & kExtraQualifier) w.str(o.qualifier);
  }
  w.varint(f.imports.size());
  at = RangeCursor();
  for (const Import& i : f.imports) {
    w.str(i.module);
    w.str(i.name);
    w.str(i.alias);
    writeRangeAfter(w, at, i.range);
    w.u8(i.isInclude ? 1 : 0);
  }
  w.varint(f.calls.size());
  for (const CallSite& c : f.calls) {
    w.svarint(c.caller);
    w.varint(c.occurrence);
  }
  w.varint(f.units.size());
  at = RangeCursor();
  for (const SourceUnit& u : f.units) {
    w.u8(static_cast<uint8_t>(u.granularity));
    w.u8(static_cast<uint8_t>(u.kind));
    writeRangeAfter(w, at, u.range);
    w.svarint(u.definition);
  }
  return w.take();
}

Expected<FileFacts> deserializeFacts(std::string_view bytes, bool definitionsOnly) {
  ByteReader r(bytes);
  if (r.u8() != kFormatVersion)
    return Status(ErrorCode::Corrupt, "file facts were written by another nib format version");
  FileFacts f;
  f.language = static_cast<Language>(r.u8());
  uint8_t flags = r.u8();
  f.ascii = flags & 1;
  f.validUtf8 = flags & 2;
  f.parseErrors = flags & 4;
  f.lineCount = r.u32();
  f.byteSize = r.u32();

  // Counts are bounded by the remaining bytes so that a corrupt length cannot allocate wildly.
  auto count = [&](size_t minRecord) -> uint64_t {
    uint64_t n = r.varint();
    if (n <= bytes.size() / minRecord) return n;
    r.fail();
    return 0;
  };
  if (static_cast<int>(f.language) >= kLanguageCount) r.fail();
  uint64_t n = count(8);
  f.definitions.resize(n);
  RangeCursor at;
  for (Definition& d : f.definitions) {
    d.name = std::string(r.str());
    d.container = std::string(r.str());
    uint8_t kind = r.u8();
    d.kind = kind < kKindNames.size() ? static_cast<SymbolKind>(kind) : SymbolKind::Unknown;
    uint8_t s = r.u8();
    if ((s & 0x7F) > static_cast<uint8_t>(BindingScope::None)) r.fail();
    d.scope = static_cast<BindingScope>(s & 0x7F);
    d.isDeclaration = s & 0x80;
    d.range = readRangeAfter(r, at);
    RangeCursor inside = at;
    d.nameRange = readRangeAfter(r, inside);
    d.parent = static_cast<int32_t>(r.svarint());
  }
  auto inDefs = [&](int32_t i) { return i >= -1 && i < static_cast<int32_t>(f.definitions.size()); };
  if (definitionsOnly) {
    if (!r.ok()) return Status(ErrorCode::Corrupt, "file facts record is truncated or malformed");
    for (const Definition& d : f.definitions)
      if (!inDefs(d.parent)) return Status(ErrorCode::Corrupt, "file facts: parent index out of range");
    return f;
  }
  n = count(1);
  f.names.resize(n);
  for (std::string& name : f.names) name = std::string(r.str());
  n = count(5);
  f.occurrences.resize(n);
  at = RangeCursor();
  for (Occurrence& o : f.occurrences) {
    o.range = readRangeAfter(r, at);
    o.nameId = r.u32();
    uint8_t b = r.u8();
    if ((b & 3) > 2) r.fail();
    o.role = static_cast<OccurrenceRole>(b & 3);
    o.resolution = static_cast<Resolution>((b >> 2) & 3);
    o.qualified = b & 0x20;
    o.viaReceiver = b & 0x40;
    o.isCall = b & 0x80;
    uint8_t extras = (b & kHasExtras) ? r.u8() : 0;
    if (extras & ~(kExtraQualifier | kExtraTarget)) r.fail();
    bool freeName = o.resolution == Resolution::Free;
    o.target = !freeName || (extras & kExtraTarget) ? static_cast<int32_t>(r.svarint()) : -1;
    if (extras & kExtraQualifier) o.qualifier = std::string(r.str());
  }
  n = count(7);
  f.imports.resize(n);
  at = RangeCursor();
  for (Import& i : f.imports) {
    i.module = std::string(r.str());
    i.name = std::string(r.str());
    i.alias = std::string(r.str());
    i.range = readRangeAfter(r, at);
    i.isInclude = r.u8() != 0;
  }
  n = count(2);
  f.calls.resize(n);
  for (CallSite& c : f.calls) {
    c.caller = static_cast<int32_t>(r.svarint());
    c.occurrence = r.u32();
  }
  n = count(6);
  f.units.resize(n);
  at = RangeCursor();
  for (SourceUnit& u : f.units) {
    u.granularity = static_cast<Granularity>(r.u8());
    u.kind = static_cast<SymbolKind>(r.u8());
    u.range = readRangeAfter(r, at);
    u.definition = static_cast<int32_t>(r.svarint());
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "file facts record is truncated or malformed");
  // Cross-references must stay inside their tables; a reader relies on this.
  for (const Definition& d : f.definitions)
    if (!inDefs(d.parent)) return Status(ErrorCode::Corrupt, "file facts: parent index out of range");
  for (const Occurrence& o : f.occurrences) {
    if (o.nameId >= f.names.size()) return Status(ErrorCode::Corrupt, "file facts: name index out of range");
    bool ok = o.resolution == Resolution::Import
                  ? o.target >= -1 && o.target < static_cast<int32_t>(f.imports.size())
                  : inDefs(o.target);
    if (!ok) return Status(ErrorCode::Corrupt, "file facts: occurrence target out of range");
  }
  for (const CallSite& c : f.calls)
    if (!inDefs(c.caller) || c.occurrence >= f.occurrences.size())
      return Status(ErrorCode::Corrupt, "file facts: call site index out of range");
  for (const SourceUnit& u : f.units)
    if (!inDefs(u.definition) || static_cast<uint8_t>(u.granularity) > 2)
      return Status(ErrorCode::Corrupt, "file facts: source unit out of range");
  return f;
}

}  // namespace nib
