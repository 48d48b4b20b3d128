// The shared stores stay near the size of what the kept versions use (issue 29, item 7): the
// LMDB sweep and compaction primitives, the fact store's mark and sweep over the versions on
// disk (never a live record, never on an incomplete mark), the caches' retain-what-was-used,
// and the whole loop through `nib index`.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <string>

#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "views/FactStore.h"
#include "views/IndexLayout.h"
#include "views/Lmdb.h"
#include "views/StoreCollection.h"
#include "views/VectorCache.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/nib-store-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::set<std::string> keysOf(LmdbEnv& env, const char* table) {
  std::set<std::string> keys;
  auto txn = LmdbTxn::begin(env, false);
  REQUIRE(txn.hasValue());
  auto dbi = txn->openDb(table, false);
  REQUIRE(dbi.hasValue());
  REQUIRE(txn->scan(*dbi, "", [&](std::string_view k, std::string_view) {
                 keys.emplace(k);
                 return true;
               }).isOk());
  return keys;
}

void putAll(LmdbEnv& env, const char* table, const std::vector<std::string>& keys, size_t valueBytes) {
  auto txn = LmdbTxn::begin(env, true);
  REQUIRE(txn.hasValue());
  auto dbi = txn->openDb(table, true);
  REQUIRE(dbi.hasValue());
  for (const std::string& k : keys) REQUIRE(txn->put(*dbi, k, std::string(valueBytes, k.back())).isOk());
  REQUIRE(txn->commit().isOk());
}

std::vector<std::string> numberedKeys(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back("key" + std::to_string(1000 + i));
  return keys;
}

}  // namespace

TEST_CASE("eraseIf deletes exactly the keys asked for, first, last and all", "[store]") {
  TempDir dir;
  auto env = LmdbEnv::open(dir.path, {});
  REQUIRE(env.hasValue());
  std::vector<std::string> keys = numberedKeys(50);
  putAll(**env, "t", keys, 16);
  auto erase = [&](const std::function<bool(std::string_view)>& drop) {
    auto txn = LmdbTxn::begin(**env, true);
    REQUIRE(txn.hasValue());
    auto dbi = txn->openDb("t", false);
    REQUIRE(dbi.hasValue());
    auto n = txn->eraseIf(*dbi, drop);
    REQUIRE(n.hasValue());
    REQUIRE(txn->commit().isOk());
    return *n;
  };
  // Every other key, the first and the last among them: runs of deletes and keeps alternate.
  CHECK(erase([](std::string_view k) { return (k.back() - '0') % 2 == 0; }) == 25);
  std::set<std::string> left = keysOf(**env, "t");
  CHECK(left.size() == 25);
  CHECK(!left.count("key1000"));
  CHECK(left.count("key1049"));
  // The last key alone, then everything.
  CHECK(erase([](std::string_view k) { return k == "key1049"; }) == 1);
  CHECK(keysOf(**env, "t").size() == 24);
  CHECK(erase([](std::string_view) { return true; }) == 24);
  CHECK(keysOf(**env, "t").empty());
}

TEST_CASE("retainCacheKeys keeps what was used once the table is past its slack", "[store]") {
  TempDir dir;
  auto env = LmdbEnv::open(dir.path, {});
  REQUIRE(env.hasValue());
  std::vector<std::string> keys = numberedKeys(300);
  putAll(**env, "tus", keys, 8);
  std::unordered_set<std::string_view> used(keys.begin(), keys.begin() + 250);
  // 300 held, 250 used: within 1.5 times, nothing goes.
  auto none = retainCacheKeys(**env, "tus", used, 1.5);
  REQUIRE(none.hasValue());
  CHECK(*none == 0);
  std::unordered_set<std::string_view> few(keys.begin(), keys.begin() + 100);
  auto swept = retainCacheKeys(**env, "tus", few, 1.5);
  REQUIRE(swept.hasValue());
  CHECK(*swept == 200);
  std::set<std::string> left = keysOf(**env, "tus");
  CHECK(left == std::set<std::string>(keys.begin(), keys.begin() + 100));
}

TEST_CASE("a sparse store is compacted in place, and a reader opened before keeps its snapshot", "[store]") {
  TempDir dir;
  const fs::path store = dir.path / "facts";
  std::vector<std::string> keys = numberedKeys(400);
  {
    auto env = LmdbEnv::open(store, {});
    REQUIRE(env.hasValue());
    putAll(**env, "t", keys, 9000);  // overflow pages, as facts and contents are
  }
  const auto sizeBefore = fs::file_size(store / "data.mdb");
  LmdbEnv::Options ro;
  ro.readOnly = true;
  auto before = LmdbEnv::open(store, ro);
  REQUIRE(before.hasValue());
  auto oldTxn = LmdbTxn::begin(**before, false);
  REQUIRE(oldTxn.hasValue());
  auto oldDbi = oldTxn->openDb("t", false);
  REQUIRE(oldDbi.hasValue());
  {
    auto env = LmdbEnv::open(store, {});
    REQUIRE(env.hasValue());
    {
      auto txn = LmdbTxn::begin(**env, true);
      auto dbi = txn->openDb("t", false);
      REQUIRE(txn->eraseIf(*dbi, [](std::string_view k) { return k.back() != '0'; }).hasValue());
      REQUIRE(txn->commit().isOk());
    }
    // The deleted records' pages are listed free (the reader's snapshot keeps them from reuse,
    // not from the count).
    auto space = lmdbSpace(**env);
    REQUIRE(space.hasValue());
    CHECK(space->freePages > space->pages / 2);
    auto compacted = compactIfSparse(**env, store, 0.25);
    REQUIRE(compacted.hasValue());
    CHECK(*compacted);
  }
  CHECK(fs::file_size(store / "data.mdb") < sizeBefore / 4);
  CHECK_FALSE(fs::exists(dir.path / "facts.compacting"));
  // The store under its name holds the kept keys, whole.
  auto after = LmdbEnv::open(store, ro);
  REQUIRE(after.hasValue());
  std::set<std::string> left = keysOf(**after, "t");
  CHECK(left.size() == 40);
  {
    auto txn = LmdbTxn::begin(**after, false);
    auto dbi = txn->openDb("t", false);
    auto v = txn->get(*dbi, "key1010");
    REQUIRE(v.hasValue());
    CHECK(*v == std::string(9000, '0'));
  }
  // The reader from before still reads every key of its snapshot.
  auto v = oldTxn->get(*oldDbi, "key1011");
  REQUIRE(v.hasValue());
  CHECK(v->size() == 9000);
}

// A reader held open pins its snapshot: LMDB reuses no page freed after it began. The build's
// extract workers renew theirs between batches, or a cold fact store ends with a sixth of its
// pages free. Here the same records are rewritten twenty times under a reader that is renewed
// after each write, and under one that is not.
TEST_CASE("a renewed reader lets the writer reuse the pages it freed", "[store]") {
  auto pagesAfterRewrites = [](bool renew) {
    TempDir dir;
    auto env = LmdbEnv::open(dir.path, {});
    REQUIRE(env.hasValue());
    std::vector<std::string> keys = numberedKeys(100);
    putAll(**env, "t", keys, 5000);
    auto reader = LmdbTxn::begin(**env, false);
    REQUIRE(reader.hasValue());
    for (int round = 0; round < 20; ++round) {
      putAll(**env, "t", keys, 5000 + round);
      if (renew) REQUIRE(reader->renew().isOk());
    }
    // The renewed reader sees the last write.
    auto dbi = reader->openDb("t", false);
    REQUIRE(dbi.hasValue());
    auto v = reader->get(*dbi, "key1000");
    REQUIRE(v.hasValue());
    CHECK(v->size() == (renew ? 5019u : 5000u));
    auto space = lmdbSpace(**env);
    REQUIRE(space.hasValue());
    return space->pages;
  };
  size_t renewed = pagesAfterRewrites(true), held = pagesAfterRewrites(false);
  // 100 values of two pages each: about 200 pages live, a few writes' worth free when renewed;
  // twenty writes' worth when the reader holds its first snapshot.
  CHECK(renewed < 1000);
  CHECK(held > 3000);
}

TEST_CASE("the fact store keeps what kept versions reference and sweeps the rest", "[store][delta]") {
  TestRepo repo;
  repo.write("a.py", "def helper(x):\n    return x + 1\n");
  repo.write("b.py", "from a import helper\n\nvalue = helper(2)\n");
  repo.write("notes.txt", "plain text without a grammar\n");
  repo.commitAll();
  IndexOptions options;
  options.threads = 1;
  options.dense = false;
  options.keepVersions = 1;
  REQUIRE(buildIndex(repo.root(), options).hasValue());
  // a.py goes through several contents, each published; only the last few versions stay.
  std::vector<std::string> blobs;
  for (int i = 0; i < 8; ++i) {
    std::string text = "def helper(x):\n    return x + " + std::to_string(100 + i) + "\n";
    repo.write("a.py", text);
    repo.write("notes.txt", "plain text, version " + std::to_string(i) + "\n");
    blobs.push_back(gitlite::blobId(text));
    // Distinct sizes and an mtime long past: the delta's stat check sees every edit.
    fs::last_write_time(repo.root() / "a.py", fs::file_time_type::clock::now() - std::chrono::hours(1) +
                                                  std::chrono::seconds(i));
    REQUIRE(buildIndex(repo.root(), options).hasValue());
  }
  IndexLayout layout(repo.root() / ".nib");
  const std::string profile = layout.currentManifest()->extractorProfile;
  auto factsHeld = [&](const std::string& blob) {
    auto store = FactStore::open(layout.factsDir(), true);
    REQUIRE(store.hasValue());
    auto reader = (*store)->reader();
    REQUIRE(reader.hasValue());
    return std::make_pair(reader->contains(FactKey{blob, Language::Python, profile}), reader->hasContent(blob));
  };
  CHECK(factsHeld(blobs.front()) == std::make_pair(true, true));  // nothing collected yet: too little garbage

  options.collectNow = true;
  auto collected = buildIndex(repo.root(), options);
  REQUIRE(collected.hasValue());
  CHECK(collected->collection.swept);
  CHECK(collected->collection.removed.records >= 4);
  CHECK(collected->collection.removed.contents >= 8);  // a.py's and notes.txt's old contents
  CHECK(factsHeld(blobs.front()) == std::make_pair(false, false));
  // What the current version and the kept ones need is all there: they answer as a fresh build.
  CHECK(factsHeld(blobs.back()) == std::make_pair(true, true));
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  auto refs = (*engine)->references("a.py", 4, true);
  REQUIRE(refs.hasValue());
  CHECK(refs->locations.size() == 3);
  engine->reset();
  // Everything left is live: a second sweep finds nothing to remove.
  auto store = FactStore::open(layout.factsDir(), false);
  REQUIRE(store.hasValue());
  auto again = collectFacts(layout, **store, {0, 0}, 1.0, /*force=*/true);
  REQUIRE(again.hasValue());
  CHECK(again->swept);
  CHECK(again->removed.records == 0);
  CHECK(again->removed.contents == 0);
}

TEST_CASE("a version that cannot be read stops the collection before anything is deleted", "[store][delta]") {
  TestRepo repo;
  repo.write("a.py", "def helper(x):\n    return x + 1\n");
  repo.commitAll();
  IndexOptions options;
  options.threads = 1;
  options.dense = false;
  REQUIRE(buildIndex(repo.root(), options).hasValue());
  repo.write("a.py", "def helper(x):\n    return x + 2000\n");
  auto delta = buildIndex(repo.root(), options);
  REQUIRE(delta.hasValue());
  REQUIRE(!delta->deltaBase.empty());
  IndexLayout layout(repo.root() / ".nib");
  // The delta's table damaged: its entries (the blob it needs) cannot be marked.
  REQUIRE(writeFileAtomic(layout.versionDir(delta->manifest.versionId) / "delta" / "data.mdb", "not lmdb").isOk());
  auto store = FactStore::open(layout.factsDir(), false);
  REQUIRE(store.hasValue());
  auto before = (*store)->counts();
  REQUIRE(before.hasValue());
  auto collected = collectFacts(layout, **store, {0, 0}, 1.0, /*force=*/true);
  CHECK_FALSE(collected.hasValue());
  auto after = (*store)->counts();
  REQUIRE(after.hasValue());
  CHECK(after->records == before->records);
  CHECK(after->contents == before->contents);
}

TEST_CASE("nib index --collect and --keep-versions, and index.keep-versions in .nib.conf", "[store][cli]") {
  TestRepo repo;
  repo.write("a.py", "def helper(x):\n    return x + 1\n");
  repo.commitAll();
  REQUIRE(runNibIn(repo, "NIB_NO_DENSE_FOLLOW_UP=1", "index -q --no-dense").rc == 0);
  for (int i = 0; i < 6; ++i) {
    repo.write("a.py", "def helper(x):\n    return x + " + std::to_string(10 * i + 7) + "\n");
    REQUIRE(runNibIn(repo, "", "index -q --no-dense --keep-versions 1").rc == 0);
  }
  IndexLayout layout(repo.root() / ".nib");
  // One kept besides the current version and its predecessor, and the base of a kept delta.
  CHECK(layout.listVersions().size() <= 4);
  NibRun collect = runNibIn(repo, "", "index --no-dense --collect --keep-versions 1");
  INFO(collect.out);
  REQUIRE(collect.rc == 0);
  CHECK(collect.out.find("collected") != std::string::npos);
  NibRun def = runNibIn(repo, "", "refs a.py:1:5 --json");
  INFO(def.out);
  CHECK(def.rc == 0);
  CHECK(def.out.find("a.py") != std::string::npos);

  repo.write(".nib.conf", "index.keep-versions = 0\n");
  NibRun bad = runNibIn(repo, "", "index -q --no-dense");
  INFO(bad.out);
  CHECK(bad.rc != 0);
  CHECK(bad.out.find("index.keep-versions") != std::string::npos);

  repo.write(".nib.conf", "index.pack-contents = yes\n");
  NibRun badPack = runNibIn(repo, "", "index -q --no-dense");
  INFO(badPack.out);
  CHECK(badPack.rc != 0);
  CHECK(badPack.out.find("index.pack-contents is 'yes'; it takes true or false") != std::string::npos);
}

}  // namespace nib::test
