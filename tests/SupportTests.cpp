// Unit tests of the shared vocabulary: positions and encodings, repository paths, language
// detection, the binary record encoding, the splitting of one-run identifiers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "support/Binary.h"
#include "support/CompoundSplitter.h"
#include "support/FlatSet.h"
#include "support/Language.h"
#include "support/RepoPath.h"
#include "support/Text.h"

namespace nib {

TEST_CASE("LineTable converts byte columns to UTF-16 and UTF-32 units and back", "[support]") {
  // 'é' is 2 bytes / 1 UTF-16 unit; '😀' is 4 bytes / 2 UTF-16 units / 1 UTF-32 unit.
  std::string text = "ab\n\xC3\xA9x \xF0\x9F\x98\x80y\r\nlast";
  LineTable t(text);
  REQUIRE(t.lineCount() == 3);
  CHECK(t.lineText(1) == "\xC3\xA9x \xF0\x9F\x98\x80y");
  CHECK(t.lineText(2) == "last");
  // 'y' on line 1 sits at byte 8: é(2) x(1) space(1) 😀(4).
  CHECK(t.toUnits(1, 8, Encoding::Utf8) == 8);
  CHECK(t.toUnits(1, 8, Encoding::Utf16) == 5);
  CHECK(t.toUnits(1, 8, Encoding::Utf32) == 4);
  CHECK(t.fromUnits(1, 5, Encoding::Utf16) == 8);
  CHECK(t.fromUnits(1, 4, Encoding::Utf32) == 8);
  uint32_t off = 0;
  REQUIRE(t.offsetOf(Position{1, 8}, &off));
  CHECK(text[off] == 'y');
  CHECK(t.positionOf(off) == Position{1, 8});
  CHECK_FALSE(t.offsetOf(Position{7, 0}, &off));
  // Columns past the end of a line clamp instead of running into the next line.
  CHECK(t.toUnits(0, 99, Encoding::Utf16) == 2);
}

TEST_CASE("UTF-8 validation rejects malformed, overlong and surrogate sequences", "[support]") {
  CHECK(isValidUtf8("plain ascii"));
  CHECK(isValidUtf8("\xC3\xA9\xF0\x9F\x98\x80"));
  CHECK_FALSE(isValidUtf8("\xC3"));              // truncated
  CHECK_FALSE(isValidUtf8("\xC0\xAF"));          // overlong '/'
  CHECK_FALSE(isValidUtf8("\xED\xA0\x80"));      // UTF-16 surrogate
  CHECK_FALSE(isValidUtf8("\xF4\x90\x80\x80"));  // beyond U+10FFFF
  // Malformed bytes still convert one unit per byte rather than failing.
  LineTable t("\xFF\xFEz");
  CHECK(t.toUnits(0, 2, Encoding::Utf16) == 2);
}

TEST_CASE("display lines are 1-based and wire lines 0-based", "[support]") {
  CHECK(toDisplayLine(0) == 1);
  CHECK(fromDisplayLine(1) == 0);
  CHECK(fromDisplayLine(0) == 0);
}

TEST_CASE("RepoPath accepts only normalized relative paths", "[support]") {
  CHECK(RepoPath::parse("src/a.cc").hasValue());
  CHECK(RepoPath::parse("src/a.cc")->directory() == "src");
  CHECK(RepoPath::parse("src/a.cc")->extension() == ".cc");
  CHECK(RepoPath::parse("Makefile")->extension().empty());
  for (const char* bad : {"", "/etc/passwd", "a//b", "a/./b", "../x", "a/..", "a\\b"}) {
    INFO(bad);
    CHECK_FALSE(RepoPath::parse(bad).hasValue());
  }
}

TEST_CASE("RepoPath::fromFilesystem rejects paths outside the workspace", "[support]") {
  auto inside = RepoPath::fromFilesystem("/repo", "/repo/src/../lib/x.py");
  REQUIRE(inside.hasValue());
  CHECK(inside->str() == "lib/x.py");
  auto outside = RepoPath::fromFilesystem("/repo", "/repo/../etc/passwd");
  REQUIRE_FALSE(outside.hasValue());
  CHECK(outside.status().code() == ErrorCode::InvalidArgument);
  CHECK(outside.status().message().find("outside the workspace") != std::string::npos);
  CHECK_FALSE(RepoPath::fromFilesystem("/repo", "/repository/x").hasValue());
  // A name that merely starts with ".." is inside.
  auto dots = RepoPath::fromFilesystem("/repo", "/repo/..odd.py");
  REQUIRE(dots.hasValue());
  CHECK(dots->str() == "..odd.py");
  CHECK_FALSE(RepoPath::fromFilesystem("/repo", "/repo").hasValue());
}

TEST_CASE("languages are detected by extension, shebang and C++ syntax in headers", "[support]") {
  CHECK(detectLanguage("a/b.py", "") == Language::Python);
  CHECK(detectLanguage("x.TSX", "") == Language::Tsx);
  CHECK(detectLanguage("x.mjs", "") == Language::JavaScript);
  CHECK(detectLanguage("lib.rs", "") == Language::Rust);
  CHECK(detectLanguage("README.md", "#!/usr/bin/env python3") == Language::Unknown);
  CHECK(detectLanguage("tools/run", "#!/usr/bin/env python3\nprint(1)") == Language::Python);
  CHECK(detectLanguage("tools/run", "#!/usr/bin/node") == Language::JavaScript);
  CHECK(detectLanguage("tools/run", "#!/bin/sh\n") == Language::Unknown);
  CHECK(detectLanguage("tools/run", "") == Language::Unknown);
  CHECK(detectLanguage("x.h", "struct point { int x; };\nint f(void);") == Language::C);
  CHECK(detectLanguage("x.h", "/* the class of the object */\nint f(void);") == Language::C);
  CHECK(detectLanguage("x.h", "// namespace std:: in a comment\nint f(void);") == Language::C);
  CHECK(detectLanguage("x.h", "namespace geo {\nint area();\n}") == Language::Cpp);
  CHECK(detectLanguage("x.h", "class Widget {\n public:\n};") == Language::Cpp);
  CHECK(detectLanguage("x.hpp", "int f();") == Language::Cpp);
}

TEST_CASE("binary records round-trip and fail safely when truncated", "[support]") {
  ByteWriter w;
  w.u8(7);
  w.varint(300);
  w.svarint(-5);
  w.str("hello");
  std::string bytes = w.take();
  ByteReader r(bytes);
  CHECK(r.u8() == 7);
  CHECK(r.varint() == 300);
  CHECK(r.svarint() == -5);
  CHECK(r.str() == "hello");
  CHECK(r.ok());
  CHECK(r.atEnd());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    ByteReader t(std::string_view(bytes).substr(0, cut));
    t.u8();
    t.varint();
    t.svarint();
    t.str();
    CHECK_FALSE(t.ok());
  }
}

}  // namespace nib

namespace nib {

TEST_CASE("one-run identifiers split into the vocabulary's words, and words of their own do not", "[support]") {
  std::vector<VocabularyTerm> vocabulary = {
      {"clear", 40},  {"end", 120},     {"of", 300},   {"line", 200},  {"endofline", 40},
      {"clearendofline", 1}, {"cursor", 50}, {"up", 90},  {"cursorup", 2}, {"app", 3},
      {"append", 60}, {"getline", 4},   {"get", 150},  {"xyzzyq", 1},  {"bar", 1},
      {"foobar", 1},  {"foo", 5},       {"cur", 10},   {"sor", 2}};
  auto split = splitCompounds(vocabulary);
  std::map<std::string, std::vector<std::string>> got;
  for (const auto& [term, parts] : split) got[std::string(term)] = {parts.begin(), parts.end()};
  // The most likely segmentation; a piece that is itself a compound brings its own parts.
  CHECK(got["clearendofline"] == std::vector<std::string>{"clear", "endofline", "end", "of", "line"});
  CHECK(got["endofline"] == std::vector<std::string>{"end", "of", "line"});
  // "cursor" is one word (more likely than "cur" + "sor"), "up" a joining word.
  CHECK(got["cursorup"] == std::vector<std::string>{"cursor", "up"});
  CHECK(got["getline"] == std::vector<std::string>{"get", "line"});
  // A word used more than a piece is a word of its own; pieces used once are not words; runs
  // nothing covers stay whole.
  CHECK(got.count("append") == 0);
  CHECK(got.count("foobar") == 0);
  CHECK(got.count("xyzzyq") == 0);
  // The vocabulary's order does not matter.
  std::reverse(vocabulary.begin(), vocabulary.end());
  auto again = splitCompounds(vocabulary);
  REQUIRE(again.size() == split.size());
  for (size_t i = 0; i < split.size(); ++i) {
    CHECK(again[i].first == split[i].first);
    CHECK(again[i].second == split[i].second);
  }
}

}  // namespace nib

TEST_CASE("a flat set keeps each key once through its growth and finds only what it holds", "[support]") {
  nib::FlatSet128 set;
  std::set<std::pair<uint64_t, uint64_t>> model;
  // Keys like the clang merge's: small numbers packed into both words, many sharing a word.
  uint64_t x = 12345;
  for (int i = 0; i < 50000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    nib::Key128 key{(x >> 40) % 300 << 32 | (x >> 20) % 2000, (x >> 8) % 97 << 8 | (x & 3)};
    CHECK(set.insert(key) == model.insert({key.high, key.low}).second);
  }
  REQUIRE(model.size() > 1000);  // the table grew many times over
  CHECK(set.size() == model.size());
  for (const auto& [high, low] : model) CHECK(set.contains({high, low}));
  CHECK_FALSE(set.contains({300ULL << 32, 0}));
  CHECK_FALSE(nib::FlatSet128().contains({0, 0}));
  nib::FlatSet128 zero;
  CHECK(zero.insert({0, 0}));  // a key of zeros is a key like any other
  CHECK_FALSE(zero.insert({0, 0}));
  CHECK(zero.contains({0, 0}));
  CHECK(zero.insert({~0ULL, 7}));  // one whose first word marks a free slot inside, too
  CHECK_FALSE(zero.insert({~0ULL, 7}));
  CHECK(zero.contains({~0ULL, 7}));
  CHECK_FALSE(zero.contains({~0ULL, 8}));
  CHECK(zero.size() == 2);
}

TEST_CASE("a string index finds each text of its table at its position, and nothing else", "[support]") {
  std::vector<std::string> table;
  nib::StringIndex index;
  std::map<std::string, uint32_t> model;
  // USR-like texts, many sharing long prefixes; every other one asked twice.
  for (int i = 0; i < 20000; ++i) {
    std::string text = "c:@F@function_" + std::to_string(i % 7000) + (i % 3 ? "" : "#I#");
    const uint64_t hash = nib::StringIndex::hashOf(text);
    uint32_t found = index.find(text, hash, table);
    auto known = model.find(text);
    CHECK((found == nib::StringIndex::kAbsent) == (known == model.end()));
    if (known != model.end()) {
      CHECK(found == known->second);
      continue;
    }
    model.emplace(text, static_cast<uint32_t>(table.size()));
    index.add(hash, static_cast<uint32_t>(table.size()));
    table.push_back(text);
  }
  REQUIRE(table.size() > 5000);  // the index grew many times over
  CHECK(index.size() == table.size());
  for (uint32_t i = 0; i < table.size(); ++i) CHECK(index.find(table[i], nib::StringIndex::hashOf(table[i]), table) == i);
  CHECK(index.find("c:@F@function_7000", nib::StringIndex::hashOf("c:@F@function_7000"), table) == nib::StringIndex::kAbsent);
  // A text whose hash equals a held one's is still told apart by its text.
  CHECK(index.find("not there", nib::StringIndex::hashOf(table[0]), table) == nib::StringIndex::kAbsent);
  CHECK(nib::StringIndex().find("", 0, table) == nib::StringIndex::kAbsent);
}
