// The history view: what commit messages say about the files they changed, mined from the real
// git history of a scripted repository, and its part in the lexical route's ranking.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "TestRepo.h"
#include "indexer/GitRepository.h"
#include "indexer/HistoryMiner.h"
#include "server/Engine.h"
#include "support/FileIo.h"
#include "views/HistoryView.h"
#include "views/IndexLayout.h"

using namespace nib;
using namespace nib::test;

namespace {

// A cache whose expiry code never says "time to live", and an access-control file that says
// "time" in its text: by their text alone the access-control file answers the query.
void writeCache(TestRepo& repo) {
  repo.write("src/expire.c",
             "/* Drops the entries whose deadline has passed. */\n"
             "int sweep_stale(struct table *t, long now) {\n"
             "  int dropped = 0;\n"
             "  for (struct entry *e = t->first; e; e = e->next)\n"
             "    if (e->deadline < now) dropped += drop_entry(t, e);\n"
             "  return dropped;\n"
             "}\n");
  repo.write("src/acl.c",
             "/* Whether a session may still act: its time budget and its rights. */\n"
             "int session_may_act(struct session *s, long time) {\n"
             "  return s->active && s->budget > time && has_right(s, s->wanted);\n"
             "}\n");
  repo.write("src/table.c",
             "/* Inserts an entry into the table. */\n"
             "int table_put(struct table *t, struct entry *e) {\n"
             "  e->next = t->first;\n"
             "  t->first = e;\n"
             "  return 0;\n"
             "}\n");
}

// The history: three of its commits speak of keys' time to live and changed the expiry file
// alone; the others changed the table and the access control.
constexpr int kHistoryCommits = 8;
// The first `commits` of that history.
void commitHistory(TestRepo& repo, int commits = kHistoryCommits) {
  writeCache(repo);
  repo.commitAll("Add a table of entries with access control");
  int made = 1;
  auto touch = [&](const std::string& path, const std::string& message) {
    if (made++ >= commits) return;
    repo.write(path, readText(repo.root() / path) + "\n");
    repo.commitAll(message);
  };
  touch("src/table.c", "table: grow the bucket array when it is full");
  touch("src/acl.c", "acl: a session without rights may not act");
  touch("src/table.c", "table: keep entries in the order they were put");
  touch("src/table.c", "Fix a crash when the table is empty");
  touch("src/expire.c", "Expire keys whose time to live has passed\n\nSigned-off-by: Alice Example <alice@example.com>\n");
  touch("src/expire.c", "Check a key's time to live on every access, not only in the sweep");
  touch("src/expire.c", "A key's time to live may change after it is set");
}

SearchResult lexically(Engine& engine, const std::string& query) {
  SearchRequest r;
  r.query = query;
  r.route = SearchRoute::Lexical;
  r.k = 5;
  auto result = engine.search(r);
  REQUIRE(result.hasValue());
  return *result;
}

// The file of the lexical route's first hit for `query` ("" when nothing is found).
std::string firstFile(Engine& engine, const std::string& query) {
  SearchResult result = lexically(engine, query);
  return result.hits.empty() ? std::string() : result.hits[0].path;
}

}  // namespace

TEST_CASE("commit messages rank the file their commits changed for the words they use", "[search][history]") {
  TestRepo repo;
  commitHistory(repo);
  SECTION("with the history mined") {
    auto engine = indexAndOpen(repo);
    CHECK(firstFile(*engine, "time to live") == "src/expire.c");
  }
  SECTION("without it (index.history-commits = 0), the same index ranks by text alone") {
    repo.write(".nib.conf", "index.history-commits = 0\n");
    repo.commitAll("configure");
    auto engine = indexAndOpen(repo);
    CHECK(firstFile(*engine, "time to live") == "src/acl.c");
    NibRun status = runNibIn(repo, "", "status");
    CHECK(status.out.find("history    absent  not built: index.history-commits is 0") != std::string::npos);
  }
}

TEST_CASE("the history view keeps each mined commit's words and the files it changed", "[history]") {
  TestRepo repo;
  commitHistory(repo);
  // A sweeping commit (more paths than a commit about one thing touches) teaches nothing.
  for (int i = 0; i < 31; ++i) repo.write("gen/file" + std::to_string(i) + ".txt", "generated\n");
  repo.write("src/expire.c", readText(repo.root() / "src/expire.c") + "\n");
  repo.commitAll("Reformat everything and regenerate");
  (void)indexAndOpen(repo);
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  auto m = layout.currentManifest();
  REQUIRE(m);
  const ViewRecord* v = m->view("history");
  REQUIRE(v);
  CHECK(v->status == ViewStatus::Complete);
  // The profile ends with how many message words the translation model learned code words for
  // ("time", "to", "live", "table", … of three commits or more).
  const std::string profile = "h" + std::to_string(kHistoryViewRevision) + ";head=" + m->sourceCommit.substr(0, 12) +
                              ";commits=" + std::to_string(kHistoryCommits) + ";walked=" +
                              std::to_string(kHistoryCommits + 1) + ";files=3;cap=5000;words=";
  REQUIRE(v->profile.rfind(profile, 0) == 0);
  CHECK(std::stoi(v->profile.substr(profile.size())) > 0);
  auto view = HistoryView::open(layout.versionDir(m->versionId) / "history");
  REQUIRE(view.hasValue());
  HistoryView& h = **view;
  REQUIRE(h.fileCount() == 3);  // src/acl.c, src/expire.c, src/table.c: the gen/ files only swept
  CHECK(h.path(0) == "src/acl.c");
  CHECK(h.path(1) == "src/expire.c");
  CHECK(h.commitCount() == kHistoryCommits);
  // The commits that speak of a time to live, newest first, each with the one file it changed.
  std::vector<uint32_t> live = h.postings("live");
  REQUIRE(live.size() == 3);
  for (uint32_t c : live) {
    auto record = h.commit(c);
    REQUIRE(record);
    CHECK(record->files == std::vector<uint32_t>{1});
    CHECK(h.commitLength(c) == record->length);
    CHECK(record->length > 0);
  }
  // The first commit added every file. (Commits of one second have no order by time: which id
  // each has is not checked.)
  int everyFile = 0;
  for (uint32_t c = 0; c < h.commitCount(); ++c)
    if (auto record = h.commit(c); record && record->files == std::vector<uint32_t>{0, 1, 2}) ++everyFile;
  CHECK(everyFile == 1);
  CHECK(h.postings("reformat").empty());  // the sweeping commit
  CHECK(h.postings("alice").empty());     // a trailer's name
}

TEST_CASE("commits after the last full build join the history at the next update", "[history]") {
  TestRepo repo;
  commitHistory(repo, 5);  // nothing about a time to live yet
  auto engine = indexAndOpen(repo);
  CHECK(firstFile(*engine, "time to live") == "src/acl.c");
  // The delta over that version (one file changed) is built after three more commits: its
  // history view is walked again from the new commit, not shared with the base.
  for (const char* message : {"Expire keys whose time to live has passed",
                              "Check a key's time to live on every access, not only in the sweep",
                              "A key's time to live may change after it is set"}) {
    repo.write("src/expire.c", readText(repo.root() / "src/expire.c") + "\n");
    repo.commitAll(message);
  }
  engine = indexAndOpen(repo);
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  auto m = layout.currentManifest();
  REQUIRE(m);
  CHECK(!m->base.empty());  // a delta version
  const ViewRecord* v = m->view("history");
  REQUIRE(v);
  CHECK(v->profile.find("head=" + m->sourceCommit.substr(0, 12) + ";commits=8;") != std::string::npos);
  CHECK(v->coversDelta());
  CHECK(firstFile(*engine, "time to live") == "src/expire.c");
}

TEST_CASE("a file keeps its history over a rename", "[history]") {
  TestRepo repo;
  commitHistory(repo);
  // The expiry file moves (unchanged: git's exact rename), then the table is touched again.
  REQUIRE(repo.git("mv src/expire.c src/keys.c") == 0);
  repo.commitAll("Move the expiry code next to the keys");
  repo.write("src/table.c", readText(repo.root() / "src/table.c") + "\n");
  repo.commitAll("table: shrink the bucket array when it is a quarter full");
  auto engine = indexAndOpen(repo);
  CHECK(firstFile(*engine, "time to live") == "src/keys.c");
}

TEST_CASE("a shallow clone has no history view, and says why", "[history]") {
  TestRepo origin;
  commitHistory(origin);
  TestRepo repo;
  std::string out;
  REQUIRE(runCommand("rm -rf " + shellQuote(repo.root().string()) + " && git clone -q --depth 1 file://" +
                         shellQuote(origin.root().string()) + " " + shellQuote(repo.root().string()),
                     &out, true) == 0);
  auto engine = indexAndOpen(repo);
  NibRun status = runNibIn(repo, "", "status");
  CHECK(status.out.find("history    absent  not built: a shallow clone's history stops at the clone's depth") !=
        std::string::npos);
  // The lexical route answers without it.
  CHECK(firstFile(*engine, "time to live") == "src/acl.c");
}

TEST_CASE("a message's terms leave out trailers and come once each", "[history]") {
  auto terms = HistoryMiner::messageTerms("Fix the TTL check\n\nThe ttl_check was wrong.\nReviewed-by: Bob <bob@x.org>\n");
  CHECK(std::find(terms.begin(), terms.end(), "ttl") != terms.end());
  CHECK(std::find(terms.begin(), terms.end(), "ttl_check") != terms.end());
  CHECK(std::find(terms.begin(), terms.end(), "bob") == terms.end());
  CHECK(std::is_sorted(terms.begin(), terms.end()));
  CHECK(std::adjacent_find(terms.begin(), terms.end()) == terms.end());
}

TEST_CASE("history records decode damaged bytes without reading past them", "[history]") {
  std::string good{'\x00', '\x02', '\x03'};  // commits 0, 2, 5
  CHECK(decodeHistoryPostings(good, 10) == std::vector<uint32_t>{0, 2, 5});
  CHECK(decodeHistoryPostings(good, 3) == std::vector<uint32_t>{0, 2});  // ids past the count are dropped
  CHECK(decodeHistoryPostings(std::string{'\x01', '\x00'}, 10) == std::vector<uint32_t>{1});  // no repeats
  CHECK(decodeHistoryPostings(std::string(12, '\xff'), 10).empty());
  // A delta of 2^64 - 3 would wrap 5 around to 2: refused (found by fuzz_views).
  std::string wrap{'\x05', '\xfd', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\x01'};
  CHECK(decodeHistoryPostings(wrap, 10) == std::vector<uint32_t>{5});
  std::string wrapCommit = std::string{'\x01', '\x02', '\x05'} + wrap.substr(1);
  CHECK(!decodeHistoryCommit(wrapCommit, 10));
  // A commit: 4 terms, 2 files (1, then 1 + 2).
  std::string commit{'\x04', '\x02', '\x01', '\x02'};
  auto c = decodeHistoryCommit(commit, 5);
  REQUIRE(c);
  CHECK(c->length == 4);
  CHECK(c->files == std::vector<uint32_t>{1, 3});
  CHECK(!decodeHistoryCommit(commit, 3));                   // a file past the count
  CHECK(!decodeHistoryCommit(commit.substr(0, 3), 5));      // a file cut off
  CHECK(!decodeHistoryCommit(std::string{'\x04', '\x7f'}, 5));  // more files than bytes
}

TEST_CASE("a walk's cache answers for the commits an earlier walk read, and keeps one walk's window", "[history]") {
  TestRepo repo;
  commitHistory(repo);
  auto git = GitRepository::discover(repo.root());
  REQUIRE(git.hasValue());
  std::string head = *(*git)->headCommit();
  TestRepo scratch;  // a folder for the cache
  const auto cacheDir = scratch.root() / "history-cache";
  // Counts what the cache answered.
  struct Counting final : CommitMemo {
    HistoryCache* cache;
    int answered = 0, learned = 0;
    std::optional<CommitSummary> recall(const std::string& oid) override {
      auto s = cache->recall(oid);
      answered += s.has_value();
      return s;
    }
    void remember(const std::string& oid, const CommitSummary& s) override {
      ++learned;
      cache->remember(oid, s);
    }
  };
  auto walkWith = [&](size_t cap, int* answered, int* learned) {
    auto cache = HistoryCache::open(cacheDir);
    REQUIRE(cache.hasValue());
    Counting counting;
    counting.cache = cache->get();
    auto walk = (*git)->history(head, cap, HistoryMiner::kMaxPaths, &counting);
    REQUIRE(walk.hasValue());
    REQUIRE((*cache)->finish().isOk());
    *answered = counting.answered;
    *learned = counting.learned;
    return *walk;
  };
  int answered = 0, learned = 0;
  HistoryWalk first = walkWith(100, &answered, &learned);
  CHECK(answered == 0);
  CHECK(learned == kHistoryCommits);
  HistoryWalk second = walkWith(100, &answered, &learned);
  CHECK(answered == kHistoryCommits);
  CHECK(learned == 0);
  REQUIRE(second.commits.size() == first.commits.size());
  for (size_t i = 0; i < first.commits.size(); ++i) {
    CHECK(second.commits[i].message == first.commits[i].message);
    CHECK(second.commits[i].paths == first.commits[i].paths);
  }
  // A walk of two commits keeps those two only: the next full walk reads the rest again.
  (void)walkWith(2, &answered, &learned);
  (void)walkWith(100, &answered, &learned);
  CHECK(answered == 2);
  CHECK(learned == kHistoryCommits - 2);
}

TEST_CASE("a cached commit summary round-trips, and damaged bytes are refused", "[history]") {
  CommitSummary s;
  s.commit = {"Expire keys\n", {"src/expire.c", "src/table.c"}};
  s.renames = {{"src/ttl.c", "src/expire.c"}};
  auto back = HistoryCache::decode(HistoryCache::encode(s));
  REQUIRE(back);
  CHECK(back->kind == CommitSummary::Kind::Mined);
  CHECK(back->commit.message == s.commit.message);
  CHECK(back->commit.paths == s.commit.paths);
  CHECK(back->renames == s.renames);
  CommitSummary merge;
  merge.kind = CommitSummary::Kind::Merge;
  auto m = HistoryCache::decode(HistoryCache::encode(merge));
  REQUIRE(m);
  CHECK(m->kind == CommitSummary::Kind::Merge);
  std::string bytes = HistoryCache::encode(s);
  CHECK(!HistoryCache::decode(bytes.substr(0, bytes.size() - 1)));
  CHECK(!HistoryCache::decode(bytes + "x"));
  CHECK(!HistoryCache::decode(std::string(1, '\x09')));
}

TEST_CASE("a history walk told to stop ends before its next commit", "[history]") {
  TestRepo repo;
  commitHistory(repo);
  auto git = GitRepository::discover(repo.root());
  REQUIRE(git.hasValue());
  std::atomic<bool> stop{true};
  auto walk = (*git)->history(*(*git)->headCommit(), 100, HistoryMiner::kMaxPaths, nullptr, &stop);
  REQUIRE_FALSE(walk.hasValue());
  CHECK(walk.status().code() == ErrorCode::Cancelled);
  stop = false;
  auto whole = (*git)->history(*(*git)->headCommit(), 100, HistoryMiner::kMaxPaths, nullptr, &stop);
  REQUIRE(whole.hasValue());
  CHECK(whole->visited == kHistoryCommits);
}
