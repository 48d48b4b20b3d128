// What a build keeps on disk between its extract phase and its views (issue 28): the encoding
// of search facts and file summaries, the spill file, and the views written from it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>

#include "TestRepo.h"
#include "indexer/BuildPhases.h"
#include "indexer/BuildSpill.h"
#include "indexer/Extractor.h"
#include "support/Binary.h"
#include "support/SearchText.h"
#include "views/CommitView.h"
#include "views/Lmdb.h"
#include "views/SearchViews.h"

namespace nib::test {
namespace fs = std::filesystem;
using build::BuildSpill;
using build::SpillRef;
namespace {

constexpr const char* kSource = R"(# Geometry helpers.
class Point:
    """A point in the plane."""
    def __init__(self, x, y):
        self.x = x
        self.y = y

def distance(a, b):
    # Euclid's distance between two points.
    return ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5
)";

SearchFacts factsOf(const std::string& path, const std::string& content) {
  Extractor extractor;
  auto ff = extractor.extract(Language::Python, content);
  REQUIRE(ff.hasValue());
  return buildSearchFacts(path, content, &*ff);
}

void requireEqualUnits(const SearchFacts& a, const SearchFacts& b) {
  REQUIRE(a.units.size() == b.units.size());
  for (size_t i = 0; i < a.units.size(); ++i) {
    CHECK(a.units[i].name == b.units[i].name);
    CHECK(a.units[i].range.startByte == b.units[i].range.startByte);
    CHECK(a.units[i].range.endByte == b.units[i].range.endByte);
    CHECK(a.units[i].range.start.line == b.units[i].range.start.line);
    CHECK(a.units[i].kind == b.units[i].kind);
    CHECK(a.units[i].granularity == b.units[i].granularity);
    CHECK(a.units[i].length == b.units[i].length);
    CHECK(a.units[i].terms == b.units[i].terms);
  }
}

}  // namespace

TEST_CASE("search facts survive their encoding, part by part", "[search][spill]") {
  SearchFacts facts = factsOf("geometry.py", kSource);
  REQUIRE(facts.trigrams.size() > 50);
  REQUIRE(facts.units.size() >= 4);  // the file, the class, its method, the function
  std::string bytes = encodeSearchFacts(facts);

  SearchFacts all;
  REQUIRE(decodeSearchFacts(bytes, all));
  CHECK(all.contentSize == facts.contentSize);
  CHECK(all.trigrams == facts.trigrams);
  CHECK(all.trigramMasks == facts.trigramMasks);
  requireEqualUnits(all, facts);

  // Decoding into facts that held something else leaves nothing of them behind.
  SearchFacts reused = factsOf("other.py", "def other_function_with_a_long_name(): pass\n");
  REQUIRE(decodeSearchFacts(bytes, reused, kSearchTrigrams));
  CHECK(reused.trigrams == facts.trigrams);
  CHECK(reused.units.empty());
  REQUIRE(decodeSearchFacts(bytes, reused, kSearchUnits));
  CHECK(reused.trigrams.empty());
  requireEqualUnits(reused, facts);

  // Anything cut short or padded is refused, never read past.
  SearchFacts junk;
  for (size_t cut : {size_t(0), size_t(1), bytes.size() / 2, bytes.size() - 1})
    CHECK_FALSE(decodeSearchFacts(std::string_view(bytes).substr(0, cut), junk));
  CHECK_FALSE(decodeSearchFacts(bytes + "x", junk));
}

TEST_CASE("file summaries survive their encoding", "[spill]") {
  Extractor extractor;
  auto ff = extractor.extract(Language::Python, kSource);
  REQUIRE(ff.hasValue());
  FileSummary summary = summarizeFacts(std::move(*ff));
  REQUIRE(summary.defs.size() >= 2);  // Point and distance at least
  REQUIRE_FALSE(summary.names.empty());
  std::string bytes = encodeFileSummary(summary);
  FileSummary back;
  back.names = {"left", "over", "from", "before"};
  REQUIRE(decodeFileSummary(bytes, back));
  CHECK(back.definitionCount == summary.definitionCount);
  CHECK(back.occurrenceCount == summary.occurrenceCount);
  CHECK(back.names == summary.names);
  REQUIRE(back.defs.size() == summary.defs.size());
  bool member = false;
  for (size_t i = 0; i < back.defs.size(); ++i) {
    CHECK(back.defs[i].name == summary.defs[i].name);
    CHECK(back.defs[i].index == summary.defs[i].index);
    CHECK(back.defs[i].kind == summary.defs[i].kind);
    CHECK(back.defs[i].isDeclaration == summary.defs[i].isDeclaration);
    CHECK(back.defs[i].member == summary.defs[i].member);
    member = member || back.defs[i].member;
  }
  CHECK(member);  // Point's method: the flag bits were exercised
  for (size_t cut : {size_t(0), bytes.size() / 2, bytes.size() - 1})
    CHECK_FALSE(decodeFileSummary(std::string_view(bytes).substr(0, cut), back));
  CHECK_FALSE(decodeFileSummary(bytes + "x", back));
}

TEST_CASE("the spill keeps what several threads append, each at its own place", "[search][spill]") {
  TestRepo repo;
  auto spill = BuildSpill::create(repo.root());
  REQUIRE(spill.hasValue());
  // An unnamed file: nothing appears in the folder, so a build that dies leaves nothing.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(repo.root())) ++entries;
  size_t gitOnly = fs::exists(repo.root() / ".git") ? 1 : 0;
  CHECK(entries == gitOnly);

  constexpr int kThreads = 4, kEach = 200;
  std::vector<std::vector<SpillRef>> refs(kThreads, std::vector<SpillRef>(kEach));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i)
        refs[t][i] = (*spill)->append(std::string(static_cast<size_t>(1 + (i % 37)), static_cast<char>('a' + t)) +
                                      std::to_string(i));
    });
  for (auto& t : threads) t.join();
  REQUIRE((*spill)->status().isOk());
  std::string out;
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEach; ++i) {
      REQUIRE((*spill)->read(refs[t][i], out).isOk());
      CHECK(out == std::string(static_cast<size_t>(1 + (i % 37)), static_cast<char>('a' + t)) + std::to_string(i));
    }
  // A reference past the end is an error, not a short answer.
  SpillRef beyond{(*spill)->bytes() + 10, 5};
  CHECK((*spill)->read(beyond, out).code() == ErrorCode::Corrupt);
}

TEST_CASE("views written from spilled facts equal views written from facts in memory", "[search][spill]") {
  TestRepo repo;
  std::vector<std::string> contents = {kSource, "def distance_squared(a, b):\n    return (a.x - b.x) ** 2\n",
                                       "plain text without a grammar mentions distance\n"};
  std::vector<SearchFacts> facts;
  std::vector<SearchDoc> docs;
  for (size_t i = 0; i < contents.size(); ++i) {
    std::string path = "f" + std::to_string(i) + ".py";
    facts.push_back(i < 2 ? factsOf(path, contents[i]) : buildSearchFacts(path, contents[i], nullptr));
    docs.push_back({static_cast<uint32_t>(i), path, std::string(40, static_cast<char>('0' + i)), Language::Python,
                    static_cast<uint32_t>(contents[i].size())});
  }
  SearchFactsInMemory inMemory({&facts[0], &facts[1], &facts[2]});

  auto spill = BuildSpill::create(repo.root());
  REQUIRE(spill.hasValue());
  build::SearchCorpus corpus;
  corpus.docs = docs;
  corpus.spill = spill->get();
  for (const SearchFacts& f : facts) corpus.refs.push_back((*spill)->append(encodeSearchFacts(f)));

  for (const char* name : {"memory", "spill"}) {
    const SearchFactsSource& source = std::string(name) == "memory" ? static_cast<const SearchFactsSource&>(inMemory)
                                                                      : static_cast<const SearchFactsSource&>(corpus);
    fs::create_directories(repo.root() / name / "trigram");
    fs::create_directories(repo.root() / name / "lexical");
    REQUIRE(writeTrigramView(repo.root() / name / "trigram", docs, source).isOk());
    REQUIRE(writeLexicalView(repo.root() / name / "lexical", docs, source).isOk());
  }
  auto tm = TrigramView::open(repo.root() / "memory" / "trigram"), ts = TrigramView::open(repo.root() / "spill" / "trigram");
  auto lm = LexicalView::open(repo.root() / "memory" / "lexical"), ls = LexicalView::open(repo.root() / "spill" / "lexical");
  REQUIRE((tm.hasValue() && ts.hasValue() && lm.hasValue() && ls.hasValue()));
  // "dis" is in every file; "euc" in the first only.
  for (const char* tri : {"dis", "euc", "squ"}) {
    uint32_t t = (uint32_t(uint8_t(tri[0])) << 16) | (uint32_t(uint8_t(tri[1])) << 8) | uint8_t(tri[2]);
    auto a = (*tm)->postings(t), b = (*ts)->postings(t);
    REQUIRE(a.size() == b.size());
    REQUIRE_FALSE(a.empty());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].doc == b[i].doc);
      CHECK(a[i].mask == b[i].mask);
    }
  }
  CHECK((*tm)->postings((uint32_t('d') << 16) | (uint32_t('i') << 8) | 's').size() == 3);
  for (const char* term : {"distance", "euclid", "point", "squared"}) {
    auto a = (*lm)->postings(term), b = (*ls)->postings(term);
    CHECK_FALSE(a.empty());
    CHECK(a == b);
  }
}

TEST_CASE("a bulk writer commits in bounded transactions and keeps every key", "[spill]") {
  TestRepo repo;
  fs::path dir = repo.root() / "bulk";
  fs::create_directories(dir);
  // A little over two transactions' worth of values, so that the writer renews its
  // transaction twice in the middle of one table and once between tables.
  const std::string value(1 << 16, 'v');
  const size_t keys = 2 * LmdbBulkWriter::kBytesPerTransaction / value.size() + 40;
  {
    auto w = LmdbBulkWriter::create(dir);
    REQUIRE(w.hasValue());
    auto big = w->openDb("big"), small = w->openDb("small");
    REQUIRE((big.hasValue() && small.hasValue()));
    for (size_t i = 0; i < keys; ++i) {
      std::string v = value;
      v.replace(0, 8, std::to_string(10000000 + i));
      REQUIRE(w->append(*big, idKey(static_cast<uint32_t>(i)), v).isOk());
    }
    REQUIRE(w->put(*small, "b", "2").isOk());
    REQUIRE(w->put(*small, "a", "1").isOk());  // out of order: put, not append
    REQUIRE(w->finish().isOk());
  }
  auto reader = openLmdbReader(dir);
  REQUIRE(reader.hasValue());
  auto big = reader->txn.openDb("big", false), small = reader->txn.openDb("small", false);
  REQUIRE((big.hasValue() && small.hasValue()));
  CHECK(reader->txn.entries(*big).value() == keys);
  for (size_t i : {size_t(0), keys / 2, keys - 1}) {
    auto v = reader->txn.get(*big, idKey(static_cast<uint32_t>(i)));
    REQUIRE(v.hasValue());
    CHECK(v->substr(0, 8) == std::to_string(10000000 + i));
    CHECK(v->size() == value.size());
  }
  CHECK(reader->txn.get(*small, "a").value() == "1");
  CHECK(reader->txn.get(*small, "b").value() == "2");
}

}  // namespace nib::test
