#include "views/ClangFacts.h"

#include "support/Binary.h"

namespace nib {
namespace {
// 2: what a macro's body names is kept at the expansion (`expanded`, `macroBody`).
constexpr uint8_t kTuFormat = 2;
constexpr uint8_t kCommandsFormat = 1;

void strings(ByteWriter& w, const std::vector<std::string>& v) {
  w.varint(v.size());
  for (const std::string& s : v) w.str(s);
}

bool strings(ByteReader& r, std::vector<std::string>* v) {
  uint64_t n = r.varint();
  if (!r.ok() || n > (1u << 26)) return false;
  v->reserve(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n && r.ok(); ++i) v->emplace_back(r.str());
  return r.ok();
}
}  // namespace

std::string encodeTuFacts(const TuFacts& f) {
  ByteWriter w;
  w.u8(kTuFormat);
  w.str(f.mainFile);
  strings(w, f.files);
  strings(w, f.usrs);
  strings(w, f.names);
  w.varint(f.occurrences.size());
  for (const ClangOccurrence& o : f.occurrences) {
    w.varint(o.file);
    w.varint(o.line);
    w.varint(o.column);
    w.varint(o.offset);
    w.varint(o.length);
    w.varint(o.usr);
    w.u8(static_cast<uint8_t>(o.role) | (o.call ? 0x80 : 0) | (o.expanded ? 0x40 : 0) | (o.macroBody ? 0x20 : 0));
    w.svarint(o.container);
    w.u8(o.kind);
  }
  w.varint(f.bases.size());
  for (const auto& [c, b] : f.bases) {
    w.varint(c);
    w.varint(b);
  }
  w.varint(f.overrides.size());
  for (const auto& [m, o] : f.overrides) {
    w.varint(m);
    w.varint(o);
  }
  strings(w, f.errors);
  return w.take();
}

Expected<TuFacts> decodeTuFacts(std::string_view bytes) {
  ByteReader r(bytes);
  if (r.u8() != kTuFormat) return Status(ErrorCode::Corrupt, "clang facts of an unknown format");
  TuFacts f;
  f.mainFile = std::string(r.str());
  if (!strings(r, &f.files) || !strings(r, &f.usrs) || !strings(r, &f.names) || f.names.size() != f.usrs.size())
    return Status(ErrorCode::Corrupt, "truncated clang facts");
  uint64_t n = r.varint();
  if (!r.ok() || n > bytes.size()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  f.occurrences.resize(static_cast<size_t>(n));
  for (ClangOccurrence& o : f.occurrences) {
    o.file = r.u32();
    o.line = r.u32();
    o.column = r.u32();
    o.offset = r.u32();
    o.length = r.u32();
    o.usr = r.u32();
    uint8_t role = r.u8();
    o.role = static_cast<ClangRole>(role & 0x1F);
    o.call = role & 0x80;
    o.expanded = role & 0x40;
    o.macroBody = role & 0x20;
    o.container = static_cast<int32_t>(r.svarint());
    o.kind = r.u8();
    if (o.file >= f.files.size() || o.usr >= f.usrs.size() || (role & 0x1F) > 2 ||
        (o.container >= 0 && static_cast<size_t>(o.container) >= f.usrs.size()))
      r.fail();
    if (!r.ok()) return Status(ErrorCode::Corrupt, "malformed clang occurrence");
  }
  uint64_t b = r.varint();
  if (!r.ok() || b > bytes.size()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  for (uint64_t i = 0; i < b; ++i) {
    uint32_t c = r.u32(), base = r.u32();
    if (c >= f.usrs.size() || base >= f.usrs.size()) r.fail();
    f.bases.emplace_back(c, base);
  }
  uint64_t o = r.varint();
  if (!r.ok() || o > bytes.size()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  for (uint64_t i = 0; i < o; ++i) {
    uint32_t m = r.u32(), overridden = r.u32();
    if (m >= f.usrs.size() || overridden >= f.usrs.size()) r.fail();
    f.overrides.emplace_back(m, overridden);
  }
  if (!strings(r, &f.errors) || !r.atEnd()) return Status(ErrorCode::Corrupt, "malformed clang facts");
  return f;
}

std::string encodeCompileCommands(const std::vector<CompileCommand>& commands) {
  ByteWriter w;
  w.u8(kCommandsFormat);
  w.varint(commands.size());
  for (const CompileCommand& c : commands) {
    w.str(c.directory);
    w.str(c.file);
    strings(w, c.arguments);
  }
  return w.take();
}

Expected<std::vector<CompileCommand>> decodeCompileCommands(std::string_view bytes) {
  ByteReader r(bytes);
  if (r.u8() != kCommandsFormat) return Status(ErrorCode::Corrupt, "compile commands of an unknown format");
  uint64_t n = r.varint();
  if (!r.ok() || n > bytes.size()) return Status(ErrorCode::Corrupt, "truncated compile commands");
  std::vector<CompileCommand> out(static_cast<size_t>(n));
  for (CompileCommand& c : out) {
    c.directory = std::string(r.str());
    c.file = std::string(r.str());
    if (!strings(r, &c.arguments)) return Status(ErrorCode::Corrupt, "truncated compile commands");
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "malformed compile commands");
  return out;
}

}  // namespace nib
