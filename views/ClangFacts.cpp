#include "views/ClangFacts.h"

#include <filesystem>

#include <charconv>
#include <functional>

#include "support/Binary.h"
#include "support/Language.h"
#include "views/FileFacts.h"

namespace nib {
namespace {
// 2: what a macro's body names is kept at the expansion (`expanded`, `macroBody`).
// 4: names only the AST resolves (`guessed`, `unlisted`).
// 5: the files whose bodies the unit parsed (`bodiesParsed`).
// 6: the #includes the preprocessor entered (`inclusions`).
// 7: an #include inside an `extern "C"` block (`ClangInclusion::externC`).
// 8: names at a macro argument pasted last (`unselected`).
// 9: where entities declared outside the repository are (`outsideTargets`).
// 10: the class templates specializations specialize (`specializations`).
// 11: the header sites and expansions left to an earlier unit of the session (`sitesLeftOut`,
//     `expansionsLeftOut`).
// 12: outside targets named by a word of a macro's replacement list (`macroWord`, `kind`).
// 13: members named in an offsetof designator (`designators`).
constexpr uint8_t kTuFormat = 13;
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
// (USR, USR) edges: base classes, overridden methods.
void edges(ByteWriter& w, const std::vector<std::pair<uint32_t, uint32_t>>& v) {
  w.varint(v.size());
  for (const auto& [a, b] : v) {
    w.varint(a);
    w.varint(b);
  }
}

bool edges(ByteReader& r, size_t usrs, std::vector<std::pair<uint32_t, uint32_t>>* v) {
  uint64_t n = r.varint();
  if (!r.ok() || n > r.remaining()) return false;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    uint32_t a = r.u32(), b = r.u32();
    if (a >= usrs || b >= usrs) r.fail();
    v->emplace_back(a, b);
  }
  return r.ok();
}
}  // namespace

uint64_t siteDigest(uint64_t usrHash, uint32_t offset, ClangRole role) {
  // splitmix64's finalizer over the USR's hash and the place.
  uint64_t x = (usrHash | 1) ^ (static_cast<uint64_t>(offset) << 8 | static_cast<uint8_t>(role));
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::vector<uint64_t> expansionDigests(const TuFacts& facts) {
  std::vector<uint64_t> out(facts.files.size(), 0), usrHashes(facts.usrs.size(), 0);
  for (const ClangOccurrence& o : facts.occurrences) {
    if (o.role != ClangRole::Reference || static_cast<SymbolKind>(o.kind) != SymbolKind::Macro || o.file >= out.size() ||
        o.usr >= usrHashes.size())
      continue;
    if (!usrHashes[o.usr]) usrHashes[o.usr] = std::hash<std::string>()(facts.usrs[o.usr]) | 1;
    out[o.file] += siteDigest(usrHashes[o.usr], o.offset, o.role);
  }
  return out;
}

UnitLanguage unitLanguage(const CompileCommand& command) {
  const std::vector<std::string>& args = command.arguments;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != "-x") continue;
    const std::string& x = args[i + 1];
    return x == "c" || x == "c-header" ? UnitLanguage::C : x == "c++" || x == "c++-header" ? UnitLanguage::Cpp : UnitLanguage::Other;
  }
  for (const std::string& a : args)
    if (a.rfind("-std=c++", 0) == 0 || a.rfind("-std=gnu++", 0) == 0) return UnitLanguage::Cpp;
  if (!args.empty() && std::filesystem::path(args.front()).filename().string().find("++") != std::string::npos)
    return UnitLanguage::Cpp;
  if (std::filesystem::path(command.file).extension() == ".C") return UnitLanguage::Cpp;  // detectLanguage folds case
  switch (detectLanguage(command.file, {})) {
    case Language::C: return UnitLanguage::C;
    case Language::Cpp: return UnitLanguage::Cpp;
    default: return UnitLanguage::Other;
  }
}

bool reportedOnce(const TuFacts& facts, const ClangOccurrence& declaration) {
  auto kind = static_cast<SymbolKind>(declaration.kind);
  return kind == SymbolKind::Macro ||
         (kind == SymbolKind::Parameter && declaration.usr < facts.usrs.size() &&
          std::string_view(facts.usrs[declaration.usr]).substr(0, kParameterUsr.size()) == kParameterUsr);
}

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
    w.u8(static_cast<uint8_t>(o.role) | (o.call ? 0x80 : 0) | (o.expanded ? 0x40 : 0) | (o.macroBody ? 0x20 : 0) | (o.guessed ? 0x10 : 0) |
         (o.unlisted ? 0x08 : 0) | (o.unselected ? 0x04 : 0));
    w.svarint(o.container);
    w.u8(o.kind);
  }
  edges(w, f.bases);
  edges(w, f.overrides);
  edges(w, f.types);
  strings(w, f.errors);
  w.varint(f.skipped.size());
  for (const ClangSkipped& k : f.skipped) {
    w.varint(k.file);
    w.varint(k.start);
    w.varint(k.end);
  }
  w.varint(f.bodiesParsed.size());
  for (uint32_t k : f.bodiesParsed) w.varint(k);
  w.varint(f.inclusions.size());
  for (const ClangInclusion& i : f.inclusions) {
    w.varint(i.includer);
    w.varint(i.offset);
    w.varint(i.included);
    w.u8((i.enclosed ? 1 : 0) | (i.externC ? 2 : 0));
  }
  w.varint(f.openedOutside.size());
  for (uint32_t k : f.openedOutside) w.varint(k);
  w.varint(f.outsideTargets.size());
  for (const ClangOutsideTarget& t : f.outsideTargets) {
    w.varint(t.usr);
    w.str(t.path);
    w.varint(t.line);
    w.varint(t.column);
    w.varint(t.offset);
    w.varint(t.length);
    w.u8((t.definition ? 1 : 0) | (t.macroWord ? 2 : 0));
    if (t.macroWord) w.u8(t.kind);
  }
  edges(w, f.specializations);
  w.varint(f.sitesLeftOut.size());
  for (const auto& [file, offset] : f.sitesLeftOut) {
    w.varint(file);
    w.varint(offset);
  }
  w.varint(f.expansionsLeftOut.size());
  for (const auto& [file, digest] : f.expansionsLeftOut) {
    w.varint(file);
    w.varint(digest);
  }
  w.varint(f.designators.size());
  for (const auto& d : f.designators)
    for (uint32_t v : d) w.varint(v);
  return w.take();
}

Expected<TuFacts> decodeTuFacts(std::string_view bytes) {
  ByteReader r(bytes);
  // Formats 5, 6, 8, 9, 10, 11 and 12 are read too (without #includes, outside targets,
  // specializations, macros left out, macro words, designators): the precise view's projects cached in them stay valid.
  uint8_t format = r.u8();
  if (format != kTuFormat && format != 12 && format != 11 && format != 10 && format != 9 && format != 8 && format != 6 && format != 5) return Status(ErrorCode::Corrupt, "clang facts of an unknown format");
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
    o.role = static_cast<ClangRole>(role & 0x03);
    o.call = role & 0x80;
    o.expanded = role & 0x40;
    o.macroBody = role & 0x20;
    o.guessed = role & 0x10;
    o.unlisted = role & 0x08;
    o.unselected = role & 0x04;
    o.container = static_cast<int32_t>(r.svarint());
    o.kind = r.u8();
    if (o.file >= f.files.size() || o.usr >= f.usrs.size() || (role & 0x03) > 2 ||
        (o.container >= 0 && static_cast<size_t>(o.container) >= f.usrs.size()))
      r.fail();
    if (!r.ok()) return Status(ErrorCode::Corrupt, "malformed clang occurrence");
  }
  if (!edges(r, f.usrs.size(), &f.bases) || !edges(r, f.usrs.size(), &f.overrides) ||
      !edges(r, f.usrs.size(), &f.types))
    return Status(ErrorCode::Corrupt, "truncated clang facts");
  if (!strings(r, &f.errors)) return Status(ErrorCode::Corrupt, "malformed clang facts");
  uint64_t skipped = r.varint();
  if (!r.ok() || skipped > r.remaining()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  f.skipped.resize(static_cast<size_t>(skipped));
  for (ClangSkipped& k : f.skipped) {
    k.file = r.u32();
    k.start = r.u32();
    k.end = r.u32();
    if (k.file >= f.files.size() || k.end < k.start) r.fail();
  }
  uint64_t parsed = r.varint();
  if (!r.ok() || parsed > f.files.size()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  f.bodiesParsed.resize(static_cast<size_t>(parsed));
  for (uint32_t& k : f.bodiesParsed)
    if ((k = r.u32()) >= f.files.size()) r.fail();
  uint64_t inclusions = format >= 6 ? r.varint() : 0;
  if (!r.ok() || inclusions > r.remaining()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  f.inclusions.resize(static_cast<size_t>(inclusions));
  for (ClangInclusion& i : f.inclusions) {
    i.includer = r.u32();
    i.offset = r.u32();
    i.included = r.u32();
    uint8_t flags = r.u8();
    i.enclosed = flags & 1;
    i.externC = flags & 2;
    if (i.includer >= f.files.size() || i.included >= f.files.size() || flags > (format >= 7 ? 3 : 1)) r.fail();
  }
  uint64_t outside = format >= 6 ? r.varint() : 0;
  if (!r.ok() || outside > f.usrs.size()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  f.openedOutside.resize(static_cast<size_t>(outside));
  for (uint32_t& k : f.openedOutside)
    if ((k = r.u32()) >= f.usrs.size()) r.fail();
  uint64_t targets = format >= 9 ? r.varint() : 0;
  if (!r.ok() || targets > f.usrs.size()) return Status(ErrorCode::Corrupt, "truncated clang facts");
  f.outsideTargets.resize(static_cast<size_t>(targets));
  for (ClangOutsideTarget& t : f.outsideTargets) {
    t.usr = r.u32();
    t.path = std::string(r.str());
    t.line = r.u32();
    t.column = r.u32();
    t.offset = r.u32();
    t.length = r.u32();
    uint8_t flags = r.u8();
    t.definition = flags & 1;
    t.macroWord = flags & 2;
    if (t.macroWord) t.kind = r.u8();
    if (t.usr >= f.usrs.size() || flags > (format >= 12 ? 3 : 1)) r.fail();
  }
  if (format >= 10 && !edges(r, f.usrs.size(), &f.specializations)) return Status(ErrorCode::Corrupt, "truncated clang facts");
  uint64_t leftOut = format >= 11 ? r.varint() : 0;
  if (leftOut > r.remaining()) r.fail();
  for (uint64_t i = 0; i < leftOut && r.ok(); ++i) {
    uint32_t file = r.u32(), offset = r.u32();
    if (file >= f.files.size()) r.fail();
    f.sitesLeftOut.emplace_back(file, offset);
  }
  uint64_t expansions = format >= 11 ? r.varint() : 0;
  if (expansions > r.remaining()) r.fail();
  for (uint64_t i = 0; i < expansions && r.ok(); ++i) {
    uint32_t file = r.u32();
    uint64_t digest = r.varint();
    if (file >= f.files.size()) r.fail();
    f.expansionsLeftOut.emplace_back(file, digest);
  }
  uint64_t designators = format >= 13 ? r.varint() : 0;
  if (designators > r.remaining()) r.fail();
  for (uint64_t i = 0; i < designators && r.ok(); ++i) {
    std::array<uint32_t, 3> d{r.u32(), r.u32(), r.u32()};
    if (d[0] >= f.files.size()) r.fail();
    f.designators.push_back(d);
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "malformed clang facts");
  return f;
}

std::string encodeUnitOutcome(const UnitOutcome& outcome) {
  ByteWriter w;
  w.u8(outcome.ok ? 1 : 0);
  w.varint(static_cast<uint64_t>(outcome.seconds * 1e6));
  w.str(outcome.payload);
  return w.take();
}

size_t wholeUnitOutcomeSize(std::string_view bytes) {
  ByteReader r(bytes);
  r.u8();
  r.varint();
  uint64_t length = r.varint();
  if (!r.ok() || length > r.remaining()) return 0;
  return bytes.size() - r.remaining() + static_cast<size_t>(length);
}

std::vector<UnitOutcome> decodeUnitOutcomes(std::string_view bytes) {
  std::vector<UnitOutcome> out;
  ByteReader r(bytes);
  while (!r.atEnd()) {
    UnitOutcome o;
    uint8_t ok = r.u8();
    o.seconds = static_cast<double>(r.varint()) / 1e6;
    o.payload = std::string(r.str());
    if (!r.ok() || ok > 1) break;
    o.ok = ok == 1;
    out.push_back(std::move(o));
  }
  return out;
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

std::string frameCompileCommands(const std::vector<CompileCommand>& commands) {
  std::string body = encodeCompileCommands(commands);
  auto n = static_cast<uint32_t>(body.size());
  std::string out{static_cast<char>(n & 0xff), static_cast<char>(n >> 8 & 0xff), static_cast<char>(n >> 16 & 0xff),
                  static_cast<char>(n >> 24 & 0xff)};
  return out + body;
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

// Fields are separated by U+001F and places by U+001E, which no path nib indexes holds.
std::string calledDefinitionsUsr(const std::vector<CalledLocation>& locations) {
  std::string usr(kCalledDefinitionsUsr);
  for (const CalledLocation& l : locations) {
    if (usr.size() > kCalledDefinitionsUsr.size()) usr += '\x1e';
    usr += l.path;
    for (uint32_t v : {l.line, l.column, l.offset, l.length}) usr += '\x1f' + std::to_string(v);
  }
  return usr;
}

std::optional<std::vector<CalledLocation>> calledDefinitionsOf(std::string_view usr) {
  if (usr.substr(0, kCalledDefinitionsUsr.size()) != kCalledDefinitionsUsr) return std::nullopt;
  usr.remove_prefix(kCalledDefinitionsUsr.size());
  std::vector<CalledLocation> out;
  while (!usr.empty()) {
    size_t end = usr.find('\x1e');
    std::string_view place = usr.substr(0, end);
    usr = end == std::string_view::npos ? std::string_view() : usr.substr(end + 1);
    CalledLocation l;
    size_t cut = place.find('\x1f');
    if (cut == std::string_view::npos || cut == 0) return std::nullopt;
    l.path = std::string(place.substr(0, cut));
    place.remove_prefix(cut + 1);
    for (uint32_t* v : {&l.line, &l.column, &l.offset, &l.length}) {
      size_t next = place.find('\x1f');
      std::string_view digits = place.substr(0, next);
      auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), *v);
      if (error != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
      place = next == std::string_view::npos ? std::string_view() : place.substr(next + 1);
    }
    out.push_back(std::move(l));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

bool inAnonymousNamespace(std::string_view usr) {
  if (usr.substr(0, 2) != "c:" || usr.find("@macro@") != std::string_view::npos) return false;
  // "@aN@" is the anonymous namespace's component; "@N@aN@" a namespace named aN.
  for (size_t at = usr.find("@aN@"); at != std::string_view::npos; at = usr.find("@aN@", at + 1))
    if (at < 2 || usr.substr(at - 2, 2) != "@N") return true;
  return false;
}

bool isFunctionLocalUsr(std::string_view usr) {
  if (usr.substr(0, kParameterUsr.size()) == kParameterUsr) return true;
  if (usr.substr(0, 2) != "c:" || usr.find("@macro@") != std::string_view::npos) return false;
  size_t last = usr.rfind('@');
  if (last != std::string_view::npos && last >= 2 && usr[last - 1] == '#' && usr.find("@F") != std::string_view::npos) return true;
  size_t at = usr.find('@', 2);
  if (at == std::string_view::npos) return false;
  size_t end = usr.find('@', at + 1);
  if (end == std::string_view::npos || end == at + 1) return false;
  for (size_t i = at + 1; i < end; ++i)
    if (usr[i] < '0' || usr[i] > '9') return false;
  return true;
}

}  // namespace nib
