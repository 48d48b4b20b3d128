// The history's translation model (indexer/HistoryTranslation.h): which code terms the words of
// commit messages stand for, learned from the commits and the names in the files they changed,
// and its part in the lexical route.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "TestRepo.h"
#include "indexer/HistoryTranslation.h"
#include "server/Engine.h"
#include "views/HistoryView.h"
#include "views/IndexLayout.h"

using namespace nib;
using namespace nib::test;

namespace {

HistoryData::Commit commit(std::vector<std::string> words, uint32_t file) {
  std::sort(words.begin(), words.end());
  return {std::move(words), {file}};
}

// Six commits: three speak of an entry's lifetime and changed one expiry file each, three of
// buckets and changed one table file each.
HistoryData sixCommits() {
  HistoryData d;
  d.files = {"src/check.c", "src/expire.c", "src/get.c", "src/put.c", "src/reset.c", "src/table.c"};
  d.commits = {commit({"entries", "outlive", "their", "lifetime"}, 1),
               commit({"check", "lifetime", "when", "read"}, 0),
               commit({"lifetime", "may", "change"}, 4),
               commit({"grow", "bucket", "array"}, 5),
               commit({"keep", "bucket", "order"}, 3),
               commit({"empty", "bucket", "crash"}, 2)};
  return d;
}

// Each file's names: the expiry files share `expire`, the table files `table`.
std::vector<CodeTerms> sixFiles() {
  return {{{"expire", 0.5}, {"check", 0.5}},
          {{"expire", 0.4}, {"sweep", 0.3}, {"deadline", 0.3}},
          {{"table", 0.5}, {"get", 0.5}},
          {{"table", 0.5}, {"put", 0.5}},
          {{"expire", 0.5}, {"reset", 0.5}},
          {{"table", 0.4}, {"grow", 0.3}, {"bucket", 0.3}}};
}

const HistoryData::Translations* of(const std::vector<HistoryData::Translations>& model, const std::string& word) {
  auto it = std::find_if(model.begin(), model.end(), [&](const auto& t) { return t.word == word; });
  return it == model.end() ? nullptr : &*it;
}

bool translatesTo(const HistoryData::Translations* t, const std::string& term) {
  return t && std::any_of(t->to.begin(), t->to.end(), [&](const HistoryTranslation& x) { return x.term == term; });
}

}  // namespace

TEST_CASE("the translation model learns which code terms a message word stands for", "[history]") {
  HistoryData d = sixCommits();
  auto model = learnTranslations(d, sixFiles());
  // "lifetime" is in the three expiry commits: the one name all their files share is its best
  // translation, and nothing of the table's.
  const auto* lifetime = of(model, "lifetime");
  REQUIRE(lifetime);
  REQUIRE(!lifetime->to.empty());
  CHECK(lifetime->to.front().term == "expire");
  CHECK(!translatesTo(lifetime, "table"));
  const auto* bucket = of(model, "bucket");
  REQUIRE(bucket);
  REQUIRE(!bucket->to.empty());
  CHECK(bucket->to.front().term == "table");
  CHECK(!translatesTo(bucket, "expire"));
  // A word is not its own translation (a query has it already).
  CHECK(!translatesTo(bucket, "bucket"));
  // A word of fewer than three commits says too little to learn from.
  CHECK(of(model, "grow") == nullptr);
  // Probabilities in (0, 1], best first; words in order; the same model from the same input.
  for (const auto& t : model) {
    for (size_t i = 0; i < t.to.size(); ++i) {
      CHECK(t.to[i].probability > 0);
      CHECK(t.to[i].probability <= 1);
      if (i > 0) CHECK(t.to[i].probability <= t.to[i - 1].probability);
    }
  }
  CHECK(std::is_sorted(model.begin(), model.end(), [](const auto& a, const auto& b) { return a.word < b.word; }));
  auto again = learnTranslations(d, sixFiles());
  REQUIRE(again.size() == model.size());
  for (size_t i = 0; i < model.size(); ++i) {
    CHECK(again[i].word == model[i].word);
    REQUIRE(again[i].to.size() == model[i].to.size());
    for (size_t j = 0; j < model[i].to.size(); ++j) {
      CHECK(again[i].to[j].term == model[i].to[j].term);
      CHECK(again[i].to[j].probability == model[i].to[j].probability);
    }
  }
}

TEST_CASE("commits whose files have no names teach the model nothing", "[history]") {
  HistoryData d = sixCommits();
  CHECK(learnTranslations(d, std::vector<CodeTerms>(d.files.size())).empty());
  CHECK(learnTranslations(HistoryData{}, {}).empty());
}

TEST_CASE("translation records decode damaged bytes without reading past them", "[history]") {
  // (The view's round trip is checked at the end of the search test below.)
  CHECK(decodeHistoryTranslations("").empty());
  CHECK(decodeHistoryTranslations(std::string("\x06" "expire", 7)).empty());  // no probability
  CHECK(decodeHistoryTranslations(std::string("\x00\x05", 2)).empty());        // an empty term
  CHECK(decodeHistoryTranslations(std::string("\x02" "ab" "\xff\xff\x7f", 6)).empty());  // beyond the scale
  auto one = decodeHistoryTranslations(std::string("\x02" "ab" "\xff\xff\x03" "\x03", 7));
  REQUIRE(one.size() == 1);  // the second entry is cut short
  CHECK(one[0].term == "ab");
  CHECK(one[0].probability == 1.0);
}

namespace {

// `path` holding `functions`, the i-th with edits[i] lines of its own in its body (none where
// `edits` is shorter).
void writeFile(TestRepo& repo, const std::string& path, const std::vector<std::string>& functions,
               const std::vector<int>& edits = {}) {
  std::string text;
  for (size_t f = 0; f < functions.size(); ++f) {
    text += "int " + functions[f] + "(struct table *t, long now) {\n";
    text += "  int n = 0;\n";
    for (int i = 0; i < (f < edits.size() ? edits[f] : 0); ++i) text += "  n += " + std::to_string(i) + ";\n";
    text += "  return n;\n}\n\n";
  }
  repo.write(path, text);
}

}  // namespace

TEST_CASE("a query word brings the code words the history translates it to", "[search][history]") {
  // A cache whose expiry functions never say "lifetime", a table, and (added last, by a commit
  // that does not speak of lifetimes) an idle sweeper whose function is an expiry one too.
  TestRepo repo;
  const std::vector<std::string> expiry = {"expire_sweep", "expire_check", "expire_reset"};
  const std::vector<std::string> table = {"table_put", "table_grow", "table_get"};
  writeFile(repo, "src/expire.c", expiry);
  writeFile(repo, "src/table.c", table);
  repo.commitAll("Add a table of entries");
  // Each commit edits inside one function of its file: its hunk falls in it.
  const char* lifetimes[] = {"Entries may outlive their lifetime", "Check the lifetime when an entry is read",
                             "A lifetime may change after it is set"};
  const char* buckets[] = {"Grow the bucket array when it is full", "Keep the bucket order",
                           "Fix a crash on an empty bucket"};
  std::vector<int> edits(3, 0);
  for (size_t i = 0; i < 3; ++i) {
    edits[i] = 1;
    writeFile(repo, "src/expire.c", expiry, edits);
    repo.commitAll(lifetimes[i]);
    writeFile(repo, "src/table.c", table, edits);
    repo.commitAll(buckets[i]);
  }
  writeFile(repo, "src/idle.c", {"expire_idle"});
  repo.commitAll("Add an idle sweeper");
  auto engine = indexAndOpen(repo);
  SearchRequest r;
  r.query = "lifetime";
  r.route = SearchRoute::Lexical;
  r.k = 10;
  auto result = engine->search(r);
  REQUIRE(result.hasValue());
  std::vector<std::string> files;
  for (const SearchHit& h : result->hits) files.push_back(h.path);
  // The expiry file by its commits' votes; the idle sweeper, which no commit about lifetimes
  // changed and whose text never says the word, by the translation lifetime -> expire.
  REQUIRE(!files.empty());
  CHECK(files.front() == "src/expire.c");
  CHECK(std::find(files.begin(), files.end(), "src/idle.c") != files.end());
  CHECK(std::find(files.begin(), files.end(), "src/table.c") == files.end());
  // The view keeps the translation.
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  auto m = layout.currentManifest();
  REQUIRE(m);
  auto view = HistoryView::open(layout.versionDir(m->versionId) / "history");
  REQUIRE(view.hasValue());
  auto to = (*view)->translations("lifetime");
  REQUIRE(!to.empty());
  CHECK(to.front().term == "expire");
  CHECK((*view)->translations("nothing").empty());
}
