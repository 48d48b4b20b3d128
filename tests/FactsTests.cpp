// Per-file facts: extraction of every language's patterns, persistence round trips, and
// resistance to corrupt records and hostile input.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "indexer/Extractor.h"
#include "support/Binary.h"
#include "views/ClangView.h"
#include "views/FileFacts.h"
#include "views/StoredContent.h"

namespace nib {

TEST_CASE("every language's patterns compile, also as tree-sitter queries", "[extractor]") {
  Status s = Extractor::selfCheck();
  INFO(s.toString());
  CHECK(s.isOk());
  CHECK(Extractor::profileDigest().size() == 16);
}

TEST_CASE("facts round-trip through their binary encoding", "[facts]") {
  Extractor ex;
  auto facts = ex.extract(Language::Python, "import os\n\ndef f(a):\n    return os.path.join(a, 'x')\n");
  REQUIRE(facts.hasValue());
  REQUIRE_FALSE(facts->definitions.empty());
  REQUIRE_FALSE(facts->occurrences.empty());
  std::string bytes = serializeFacts(*facts);
  auto back = deserializeFacts(bytes);
  REQUIRE(back.hasValue());
  CHECK(serializeFacts(*back) == bytes);
  REQUIRE(back->definitions.size() == facts->definitions.size());
  REQUIRE(back->occurrences.size() == facts->occurrences.size());
  for (size_t i = 0; i < facts->definitions.size(); ++i) {
    CHECK(back->definitions[i].range == facts->definitions[i].range);
    CHECK(back->definitions[i].nameRange == facts->definitions[i].nameRange);
  }
  for (size_t i = 0; i < facts->occurrences.size(); ++i) CHECK(back->occurrences[i].range == facts->occurrences[i].range);
  REQUIRE(back->units.size() == facts->units.size());
  for (size_t i = 0; i < facts->units.size(); ++i) {
    CHECK(back->units[i].range == facts->units[i].range);
    CHECK(back->units[i].definition == facts->units[i].definition);
  }
  CHECK(back->imports.size() == 1);
  CHECK(back->imports[0].module == "os");
}

// Since format 5 a free name's target (-1) and an empty qualifier are left out; every other
// combination is written behind the extras flag and must come back as it was.
TEST_CASE("an occurrence's implied target and qualifier come back, and so do written ones", "[facts]") {
  FileFacts f;
  f.language = Language::Cpp;
  f.names = {"area", "x"};
  f.definitions.push_back({});
  f.definitions[0].name = "x";
  f.imports.push_back({});
  f.imports[0].module = "geo";
  struct Case {
    Resolution resolution;
    int32_t target;
    std::string qualifier;
  };
  std::vector<Case> cases = {{Resolution::Free, -1, ""},     {Resolution::Free, 0, ""},
                             {Resolution::Free, -1, "geo"},  {Resolution::Free, 0, "geo::shapes"},
                             {Resolution::Local, 0, ""},     {Resolution::Local, -1, "geo"},
                             {Resolution::Import, 0, ""},    {Resolution::Member, -1, ""},
                             {Resolution::Member, 0, "Shape"}};
  uint32_t at = 0;
  for (const Case& c : cases) {
    Occurrence o;
    o.range.startByte = at, o.range.endByte = at + 4, o.range.start = {0, at}, o.range.end = {0, at + 4};
    at += 10;
    o.nameId = 0;
    o.resolution = c.resolution;
    o.target = c.target;
    o.qualifier = c.qualifier;
    o.qualified = !c.qualifier.empty();
    o.isCall = c.target == 0;
    f.occurrences.push_back(o);
  }
  std::string bytes = serializeFacts(f);
  auto back = deserializeFacts(bytes);
  INFO((back ? std::string() : back.status().message()));
  REQUIRE(back.hasValue());
  REQUIRE(back->occurrences.size() == cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    CHECK(back->occurrences[i].resolution == cases[i].resolution);
    CHECK(back->occurrences[i].target == cases[i].target);
    CHECK(back->occurrences[i].qualifier == cases[i].qualifier);
    CHECK(back->occurrences[i].qualified == !cases[i].qualifier.empty());
    CHECK(back->occurrences[i].isCall == (cases[i].target == 0));
  }
  CHECK(serializeFacts(*back) == bytes);
  // An extras byte with bits this format does not define is damage, not a silent default.
  Occurrence plain;
  FileFacts one;
  one.names = {"x"};
  one.occurrences.push_back(plain);
  std::string rec = serializeFacts(one);
  size_t flags = rec.size();
  for (size_t i = 0; i < rec.size(); ++i)
    if (static_cast<uint8_t>(rec[i]) == 0x0E) flags = i;  // reference (2) | free (3 << 2)
  REQUIRE(flags < rec.size());
  std::string damaged = rec.substr(0, flags) + char(0x1E) + char(0x40) + rec.substr(flags + 1);
  CHECK_FALSE(deserializeFacts(damaged).hasValue());
}

TEST_CASE("ranges written against the previous one come back whatever their order and shape", "[facts]") {
  auto range = [](uint32_t sb, uint32_t eb, uint32_t sl, uint32_t sc, uint32_t el, uint32_t ec) {
    ByteRange r;
    r.startByte = sb, r.endByte = eb, r.start = {sl, sc}, r.end = {el, ec};
    return r;
  };
  std::vector<ByteRange> ranges = {
      range(10, 13, 1, 2, 1, 5),            // one line, end at its length
      range(15, 18, 1, 7, 1, 10),           // same line: the column follows from the bytes
      range(40, 90, 3, 4, 6, 1),            // several lines
      range(20, 22, 1, 12, 1, 14),          // back before the previous one
      range(0, 0, 0, 0, 0, 0),              // empty, at the start
      range(70000, 70003, 2000, 0, 2000, 9),  // a multi-byte character makes the end column differ
      range(UINT32_MAX - 1, UINT32_MAX, UINT32_MAX, 1, UINT32_MAX, 2),
  };
  ByteWriter w;
  RangeCursor at;
  for (const ByteRange& r : ranges) writeRangeAfter(w, at, r);
  std::string bytes = w.take();
  ByteReader r(bytes);
  RangeCursor back;
  for (const ByteRange& want : ranges) CHECK(readRangeAfter(r, back) == want);
  CHECK(r.ok());
  CHECK(r.atEnd());

  // Occurrences on one line after each other cost three bytes each.
  ByteWriter small;
  RangeCursor prev = RangeCursor::at(ranges[0]);
  writeRangeAfter(small, prev, ranges[1]);
  CHECK(small.data().size() == 3);

  // A delta that leaves 32 bits fails the record instead of wrapping around.
  ByteWriter hostile;
  hostile.svarint(-5);
  hostile.varint(1);
  hostile.varint(1);
  hostile.varint(0);
  std::string h = hostile.take();
  ByteReader hr(h);
  RangeCursor none;
  (void)readRangeAfter(hr, none);
  CHECK_FALSE(hr.ok());
}

TEST_CASE("stored contents are packed smaller and come back byte for byte", "[facts][content]") {
  std::string source;
  for (int i = 0; i < 200; ++i) source += "static int value_" + std::to_string(i) + "(void) { return " + std::to_string(i) + "; }\n";
  std::string packed = packContent(source);
  CHECK(packed.size() < source.size() / 2);
  auto back = unpackContent(packed);
  REQUIRE(back.hasValue());
  CHECK(*back == source);
  // Unless asked to compress (index.pack-contents), bytes are kept as they are and read in place.
  std::string raw = packContent(source, /*compress=*/false);
  CHECK(raw.size() == source.size() + 1);
  std::string buffer;
  auto inPlace = unpackContentInto(raw, buffer);
  REQUIRE(inPlace.hasValue());
  CHECK(*inPlace == source);
  CHECK(inPlace->data() == raw.data() + 1);
  // The first byte alone (a facts record's format version), packed or not; nothing for a
  // record packContent did not write.
  CHECK(firstContentByte(packed) == static_cast<uint8_t>(source[0]));
  CHECK(firstContentByte(raw) == static_cast<uint8_t>(source[0]));
  CHECK_FALSE(firstContentByte("").has_value());
  CHECK_FALSE(firstContentByte(std::string(1, '\x07') + source).has_value());
  // Short or incompressible bytes are kept as they are, behind their tag.
  for (std::string raw : {std::string(), std::string("x"), std::string("\0\xff binary", 9)}) {
    auto again = unpackContent(packContent(raw));
    REQUIRE(again.hasValue());
    CHECK(*again == raw);
  }
  std::string noise;
  std::mt19937 rng(3);
  for (int i = 0; i < 5000; ++i) noise.push_back(static_cast<char>(rng()));
  CHECK(packContent(noise).size() == noise.size() + 1);
  CHECK(*unpackContent(packContent(noise)) == noise);
  // Damage is an error, never a crash or a wild allocation.
  CHECK(unpackContent("").status().code() == ErrorCode::Corrupt);
  std::string claimsHuge = packed.substr(0, 1) + std::string("\xff\xff\xff\xff\x0f", 5) + "abc";
  CHECK(unpackContent(claimsHuge).status().code() == ErrorCode::Corrupt);
  for (int i = 0; i < 500; ++i) {
    std::string mutated = packed;
    mutated[1 + rng() % (mutated.size() - 1)] = static_cast<char>(rng());
    auto r = unpackContent(mutated);
    if (r) CHECK(r->size() == source.size());
  }
}

TEST_CASE("corrupt facts records are rejected without crashing", "[facts]") {
  Extractor ex;
  auto facts = ex.extract(Language::C, "int g(int x) { return x; }\nint main(void) { return g(1); }\n");
  REQUIRE(facts.hasValue());
  std::string bytes = serializeFacts(*facts);
  CHECK_FALSE(deserializeFacts("").hasValue());
  CHECK_FALSE(deserializeFacts(bytes.substr(0, bytes.size() / 2)).hasValue());
  std::string wrongVersion = bytes;
  wrongVersion[0] = 99;
  auto v = deserializeFacts(wrongVersion);
  REQUIRE_FALSE(v.hasValue());
  CHECK(v.status().code() == ErrorCode::Corrupt);
  // Random byte flips must never crash or produce out-of-range cross references.
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string mutated = bytes;
    for (int k = 0; k < 3; ++k) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    auto r = deserializeFacts(mutated);
    if (!r) continue;
    for (const Occurrence& o : r->occurrences)
      if (o.resolution == Resolution::Local) CHECK(o.target < static_cast<int32_t>(r->definitions.size()));
  }
}

TEST_CASE("the extractor survives binary noise, invalid UTF-8 and deep nesting", "[extractor]") {
  Extractor ex;
  std::string noise;
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) noise.push_back(static_cast<char>(rng()));
  for (Language lang : {Language::C, Language::Cpp, Language::Python, Language::JavaScript, Language::TypeScript,
                        Language::Tsx, Language::Go, Language::Rust, Language::Java}) {
    INFO(languageName(lang));
    auto f = ex.extract(lang, noise);
    REQUIRE(f.hasValue());
    CHECK_FALSE(f->validUtf8);
    CHECK(f->parseErrors);
  }
  std::string deep = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
  auto f = ex.extract(Language::Python, deep);
  REQUIRE(f.hasValue());
  std::string latin1 = "def caf\xE9():\n    return 1\n";
  auto g = ex.extract(Language::Python, latin1);
  REQUIRE(g.hasValue());
  CHECK_FALSE(g->validUtf8);
}

TEST_CASE("syntax errors inside matched constructs are survived in every language", "[extractor]") {
  // Error nodes carry a symbol outside the grammar's table; patterns must not index by it.
  Extractor ex;
  struct Case {
    Language lang;
    const char* src;
  };
  for (const Case& c : {Case{Language::Python, "def f(a, $$, b): pass\n"}, Case{Language::C, "int f(int a, @, int b){}\n"},
                        Case{Language::Cpp, "class A { void m(int, @@); };\n"},
                        Case{Language::JavaScript, "function f(a, #, b){}\n"},
                        Case{Language::TypeScript, "function f(a: number, #, b){}\n"},
                        Case{Language::Rust, "fn f(a: i32, @, b: i32){}\n"}, Case{Language::Go, "func f(a int, @, b int) {}\n"},
                        Case{Language::Java, "class A { void m(int a, @, int b) {} }\n"}}) {
    INFO(languageName(c.lang) << ": " << c.src);
    auto f = ex.extract(c.lang, c.src);
    REQUIRE(f.hasValue());
    CHECK(f->parseErrors);
  }
}

TEST_CASE("resolution stays correct and bounded in deeply nested scopes", "[extractor]") {
  Extractor ex;
  std::string src = "void f(void) {";
  for (int i = 0; i < 3000; ++i) src += "{ int x; x;";
  for (int i = 0; i < 3000; ++i) src += "}";
  src += "}\n";
  auto f = ex.extract(Language::C, src);
  REQUIRE(f.hasValue());
  // Every use of x resolves locally to a definition that precedes it.
  size_t uses = 0;
  for (const Occurrence& o : f->occurrences) {
    if (f->nameOf(o) != "x" || o.role != OccurrenceRole::Reference) continue;
    ++uses;
    REQUIRE(o.resolution == Resolution::Local);
    CHECK(f->definitions[o.target].nameRange.startByte < o.range.startByte);
  }
  CHECK(uses == 3000);
}

TEST_CASE("C declarations with several declarators define each name", "[extractor]") {
  Extractor ex;
  auto f = ex.extract(Language::C, "int a, *b, c[3];\nstatic int d = 1, e;\n");
  REQUIRE(f.hasValue());
  std::vector<std::string> names;
  for (const Definition& d : f->definitions) names.push_back(d.name);
  CHECK(names == std::vector<std::string>{"a", "b", "c", "d", "e"});
  for (const Definition& d : f->definitions) CHECK(d.scope == BindingScope::Global);
}

TEST_CASE("source units cover callables and types", "[extractor]") {
  Extractor ex;
  std::string src = "class A:\n    def m(self):\n        pass\n\ndef f():\n    pass\n";
  auto f = ex.extract(Language::Python, src);
  REQUIRE(f.hasValue());
  REQUIRE(f->units.size() == 4);  // the file, A, A.m, f
  CHECK(f->units[0].granularity == Granularity::File);
  int callables = 0, scopes = 0;
  for (const SourceUnit& u : f->units) {
    if (u.granularity == Granularity::Callable) ++callables;
    if (u.granularity == Granularity::Scope) ++scopes;
  }
  CHECK(callables == 2);
  CHECK(scopes == 1);
  CHECK(f->calls.empty());
}

TEST_CASE("a symbol read for a definition leaves out its references but the asked one", "[facts][clang]") {
  std::string tmpl = (std::filesystem::temp_directory_path() / "nib-clang-view-XXXXXX").string();
  std::filesystem::path dir = ::mkdtemp(tmpl.data());
  ClangViewContents contents;
  ClangSymbol s;
  s.usr = "c:@F@run";
  s.name = "run";
  auto site = [](const std::string& path, uint32_t at, ClangRole role) {
    ClangSite c;
    c.path = path;
    c.range = ByteRange{at, at + 3, {0, at}, {0, at + 3}};
    c.role = role;
    return c;
  };
  s.sites = {site("a.c", 4, ClangRole::Definition), site("a.c", 20, ClangRole::Reference), site("b.c", 7, ClangRole::Reference),
             site("b.c", 30, ClangRole::Reference), site("b.h", 5, ClangRole::Declaration)};
  contents.symbols.push_back(s);
  REQUIRE(writeClangView(dir, contents).isOk());
  auto view = ClangView::open(dir);
  REQUIRE(view.hasValue());
  auto all = (*view)->symbol(0);
  REQUIRE(all.hasValue());
  CHECK(all->sites.size() == 5);
  auto forDefinition = (*view)->symbolForDefinition(0, "b.c", 30);
  REQUIRE(forDefinition.hasValue());
  REQUIRE(forDefinition->sites.size() == 3);  // the definition, the asked reference, the declaration
  CHECK(forDefinition->sites[1].path == "b.c");
  CHECK(forDefinition->sites[1].range.startByte == 30);
  // Whether every site lies in one file counts the sites left out too (the calibration facet).
  REQUIRE(forDefinition->oneFile.has_value());
  CHECK_FALSE(*forDefinition->oneFile);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST_CASE("a symbol only made-up units named at no site is not offered by its name, and the files holding foreign occurrences are listed", "[facts][clang]") {
  std::string tmpl = (std::filesystem::temp_directory_path() / "nib-clang-view-XXXXXX").string();
  std::filesystem::path dir = ::mkdtemp(tmpl.data());
  ClangViewContents contents;
  for (const char* usr : {"c:@S@named_group_8@FI@length", "c:@S@named_group@FI@length"}) {
    ClangSymbol s;
    s.usr = usr;
    s.name = "length";
    contents.symbols.push_back(s);
  }
  contents.unnamed = {1};
  contents.foreignFiles = {"src/pcre2_ucd.c"};
  REQUIRE(writeClangView(dir, contents).isOk());
  auto view = ClangView::open(dir);
  REQUIRE(view.hasValue());
  auto named = (*view)->symbolsNamed("length");
  REQUIRE(named.hasValue());
  CHECK(*named == std::vector<uint32_t>{0});
  auto second = (*view)->symbol(1);  // still a symbol: the made-up unit's occurrences name it
  REQUIRE(second.hasValue());
  CHECK(second->usr == "c:@S@named_group@FI@length");
  // Which files hold an includer's occurrences is recorded: only those need telling apart.
  CHECK((*view)->mayHoldForeign("src/pcre2_ucd.c"));
  CHECK_FALSE((*view)->mayHoldForeign("src/pcre2_compile.c"));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace nib
