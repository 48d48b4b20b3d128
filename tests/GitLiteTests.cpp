// The libgit2-free git reading of the query path must agree with git itself.
#include <catch2/catch.hpp>

#include <chrono>

#include <filesystem>

#include "TestRepo.h"
#include "support/GitLite.h"
#include "views/WorktreeSnapshot.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {
std::string gitOut(TestRepo& repo, const std::string& args) {
  std::string out;
  REQUIRE(runCommand("git -C " + shellQuote(repo.root().string()) + " " + args, &out) == 0);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A comparison with the tree id computed, as `nib status` asks for it.
WorktreeComparison compareWithTree(const fs::path& root, const WorktreeSnapshot& snapshot, WorktreeHashCache* cache = nullptr,
                                   const WorktreeComparison* previous = nullptr,
                                   const std::vector<std::string>* folders = nullptr) {
  WorktreeComparison cmp = compareWorktree(root, snapshot, cache, previous, folders);
  computeTreeId(snapshot, &cmp);
  return cmp;
}
}  // namespace

TEST_CASE("gitlite reads HEAD through loose refs, packed refs, detached HEAD and unborn branches", "[git]") {
  TestRepo repo;
  auto r = gitlite::discover(repo.root() / "some" / "missing" / "file.py");
  REQUIRE(r.hasValue());
  CHECK(r->worktree == repo.root());
  CHECK(*gitlite::headCommit(*r) == "");  // unborn

  repo.write("a.txt", "one\n");
  repo.commitAll("one");
  CHECK(*gitlite::headCommit(*r) == gitOut(repo, "rev-parse HEAD"));

  repo.git("pack-refs --all");
  CHECK_FALSE((fs::exists(repo.root() / ".git/refs/heads/main") || fs::exists(repo.root() / ".git/refs/heads/master")));
  CHECK(*gitlite::headCommit(*r) == gitOut(repo, "rev-parse HEAD"));

  repo.write("a.txt", "two\n");
  repo.commitAll("two");
  std::string second = gitOut(repo, "rev-parse HEAD");
  repo.git("checkout -q --detach HEAD~1");
  CHECK(*gitlite::headCommit(*r) == gitOut(repo, "rev-parse HEAD"));
  CHECK(*gitlite::headCommit(*r) != second);

  // A linked worktree has a `.git` file and shares refs with the main repository.
  fs::path linked = repo.root().string() + "-linked";
  REQUIRE(repo.git("worktree add -q --detach " + shellQuote(linked.string()) + " " + second) == 0);
  auto lr = gitlite::discover(linked);
  REQUIRE(lr.hasValue());
  CHECK(lr->worktree == linked);
  CHECK(*gitlite::headCommit(*lr) == second);
  fs::remove_all(linked);

  CHECK_FALSE(gitlite::discover("/").hasValue());

  // HEAD may only name refs under refs/: a symbolic ref cannot read files outside .git.
  repo.write(".git/HEAD", "ref: /etc/hostname\n");
  auto escaped = gitlite::headCommit(*r);
  REQUIRE_FALSE(escaped.hasValue());
  CHECK(escaped.status().code() == ErrorCode::Corrupt);
  repo.write(".git/HEAD", "ref: refs/../../x\n");
  CHECK_FALSE(gitlite::headCommit(*r).hasValue());
}

TEST_CASE("gitlite blob and tree ids equal git's", "[git]") {
  TestRepo repo;
  repo.write("x/y.txt", "hello\n");
  repo.write("x.txt", std::string("a\0b", 3));
  repo.write("z", "");
  repo.commitAll();
  CHECK(gitlite::blobId("hello\n") == gitOut(repo, "rev-parse HEAD:x/y.txt"));
  CHECK(gitlite::blobId("") == gitOut(repo, "rev-parse HEAD:z"));
  auto tree = gitlite::treeId({{"x/y.txt", 0100644, gitOut(repo, "rev-parse HEAD:x/y.txt")},
                               {"x.txt", 0100644, gitOut(repo, "rev-parse HEAD:x.txt")},
                               {"z", 0100644, gitOut(repo, "rev-parse HEAD:z")}});
  REQUIRE(tree.hasValue());
  // "x.txt" sorts before the folder "x" (compared as "x/"), as git orders them.
  CHECK(*tree == gitOut(repo, "rev-parse HEAD^{tree}"));
}

TEST_CASE("the tree hasher rehashes only changed folders and equals a full tree id", "[git]") {
  // Paths in several nested folders; each step changes, deletes or restores some of them, and
  // the incremental id must equal the one computed from scratch over the paths present.
  std::vector<std::string> paths;
  for (const char* dir : {"", "a/", "a/b/", "a/b/c/", "d/", "d-e/", "d.f/"})
    for (const char* name : {"x.c", "y.py", "z"}) paths.push_back(std::string(dir) + name);
  std::vector<std::string_view> views(paths.begin(), paths.end());
  gitlite::TreeHasher hasher(views);
  std::vector<uint32_t> modes(paths.size(), 0100644);
  std::vector<std::string> oids(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) oids[i] = gitlite::blobId("content " + std::to_string(i));
  auto expected = [&] {
    std::vector<gitlite::TreeItem> items;
    for (size_t i = 0; i < paths.size(); ++i)
      if (modes[i]) items.push_back({paths[i], modes[i], oids[i]});
    return *gitlite::treeId(items);
  };
  uint64_t seed = 7;
  for (int step = 0; step < 60; ++step) {
    for (size_t i = 0; i < paths.size(); ++i) hasher.set(i, modes[i], oids[i]);
    INFO(step);
    CHECK(*hasher.id() == expected());
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    size_t i = (seed >> 33) % paths.size();
    switch ((seed >> 20) % 4) {
      case 0: modes[i] = 0; break;                                       // deleted
      case 1: modes[i] = 0100755; break;                                 // chmod +x
      default: modes[i] = 0100644; oids[i] = gitlite::blobId(std::to_string(seed)); break;  // edited
    }
  }
  // Everything deleted: the empty tree.
  for (size_t i = 0; i < paths.size(); ++i) hasher.set(i, 0, {});
  CHECK(*hasher.id() == *gitlite::treeId({}));
}

TEST_CASE("the worktree snapshot detects edits by stat and defers new files to git", "[freshness]") {
  TestRepo repo;
  repo.write("src/a.py", "x = 1\n");
  repo.write("b.py", "y = 2\n");
  repo.commitAll();
  WorktreeSnapshot snap;
  for (const char* p : {"src/a.py", "b.py"}) {
    WorktreeSnapshot::File f;
    f.path = p;
    REQUIRE(statEntry(repo.root() / p, &f.size, &f.mtimeNs, &f.inode, &f.mode));
    f.oid = snap.intern(gitOut(repo, std::string("rev-parse HEAD:") + p));
    snap.files.push_back(f);
  }
  REQUIRE(snap.recordDirectories(repo.root()).isOk());
  auto same = compareWithTree(repo.root(), snap);
  CHECK(same.conclusive);
  CHECK(same.unchanged);
  CHECK(same.changed.empty());

  repo.write("src/a.py", "x = 3\n");
  auto edited = compareWithTree(repo.root(), snap);
  CHECK(edited.conclusive);
  CHECK_FALSE(edited.unchanged);
  CHECK(edited.changed == std::vector<std::string>{"src/a.py"});
  repo.git("add -A");
  CHECK(edited.treeId == gitOut(repo, "write-tree"));

  // A hash cache spares the second comparison the hash, with the same answer; a new edit
  // (other stat data) is hashed again.
  WorktreeHashCache cache;
  // A file modified within the last second is never cached (it could change again within one
  // timestamp tick): this one is made an hour old.
  fs::last_write_time(repo.root() / "src/a.py", fs::file_time_type::clock::now() - std::chrono::hours(1));
  auto first = compareWithTree(repo.root(), snap, &cache);
  CHECK(cache.hits == 0);
  auto second = compareWithTree(repo.root(), snap, &cache);
  CHECK(cache.hits == 1);
  CHECK(second.changed == first.changed);
  CHECK(second.treeId == first.treeId);
  repo.write("src/a.py", "x = 33\n");
  auto third = compareWithTree(repo.root(), snap, &cache);
  CHECK(cache.hits == 1);
  CHECK(third.changed == std::vector<std::string>{"src/a.py"});
  CHECK(third.treeId != first.treeId);

  // Looking again only at the folders that had events: the same answer as a full comparison
  // for changes there, and the earlier answer for the rest.
  repo.write("b.py", "y = 20\n");
  auto full = compareWithTree(repo.root(), snap);
  std::vector<std::string> onlySrc{"src"}, onlyRoot{""};
  auto partialView = compareWithTree(repo.root(), snap, nullptr, &third, &onlySrc);
  CHECK(partialView.changed == std::vector<std::string>{"src/a.py"});  // b.py's folder had no event
  auto scoped = compareWithTree(repo.root(), snap, nullptr, &partialView, &onlyRoot);
  CHECK(scoped.changed == full.changed);
  CHECK(scoped.changed == std::vector<std::string>{"src/a.py", "b.py"});  // snapshot order
  CHECK(scoped.treeId == full.treeId);
  repo.write("b.py", "y = 2\n");
  repo.write("src/a.py", "x = 1\n");
  std::vector<std::string> both{"", "src"};
  auto reverted = compareWithTree(repo.root(), snap, nullptr, &scoped, &both);
  CHECK(reverted.changed.empty());
  CHECK(reverted.unchanged);

  repo.write("src/a.py", "x = 1\n");  // same content, new mtime: rehashed, not changed
  CHECK(compareWithTree(repo.root(), snap).changed.empty());

  repo.write("src/new.py", "z = 1\n");
  auto added = compareWithTree(repo.root(), snap);
  CHECK_FALSE(added.conclusive);
  CHECK(added.reason.find("new.py") != std::string::npos);
  fs::remove(repo.root() / "src/new.py");

  // chmod +x leaves the mtime alone but changes git's tree: it must be seen.
  fs::permissions(repo.root() / "b.py", fs::perms::owner_exec, fs::perm_options::add);
  auto chmodded = compareWithTree(repo.root(), snap);
  CHECK(chmodded.changed == std::vector<std::string>{"b.py"});
  repo.git("add -A");
  CHECK(chmodded.treeId == gitOut(repo, "write-tree"));

  fs::remove(repo.root() / "b.py");
  auto deleted = compareWithTree(repo.root(), snap);
  CHECK(deleted.conclusive);
  CHECK(deleted.deleted == std::vector<std::string>{"b.py"});
}

TEST_CASE("untracked binary files are no part of the worktree a snapshot reflects", "[freshness]") {
  TestRepo repo;
  repo.write("a.py", "x = 1\n");
  repo.commitAll();
  const std::string binary("\x7f" "ELF\0\0\x01", 7);
  // Left out when the snapshot was taken: clangd's index of its own, a build product.
  repo.write(".cache/clangd/index/a.h.idx", binary + "one");
  WorktreeSnapshot snap;
  WorktreeSnapshot::File f;
  f.path = "a.py";
  REQUIRE(statEntry(repo.root() / "a.py", &f.size, &f.mtimeNs, &f.inode, &f.mode));
  f.oid = snap.intern(gitOut(repo, "rev-parse HEAD:a.py"));
  snap.files.push_back(f);
  WorktreeSnapshot::File left;
  left.path = ".cache/clangd/index/a.h.idx";
  REQUIRE(statEntry(repo.root() / left.path, &left.size, &left.mtimeNs, &left.inode, &left.mode));
  snap.leftOut.push_back(left);
  REQUIRE(snap.recordDirectories(repo.root()).isOk());
  CHECK(snap.dirs.size() == 4);  // the root and the left-out file's three folders

  auto same = compareWithTree(repo.root(), snap);
  CHECK(same.conclusive);
  CHECK(same.unchanged);

  // Rewritten, and joined by new shards and a new folder of build products: still binary, no change.
  repo.write(".cache/clangd/index/a.h.idx", binary + "two, longer");
  repo.write(".cache/clangd/index/b.h.idx", binary);
  repo.write("out/obj/a.o", binary);
  auto rewritten = compareWithTree(repo.root(), snap);
  CHECK(rewritten.conclusive);
  CHECK(rewritten.unchanged);
  CHECK(rewritten.added.empty());

  // A text file among them counts: git's ignore rules must judge it.
  repo.write("out/obj/notes.txt", "text\n");
  auto text = compareWithTree(repo.root(), snap);
  CHECK_FALSE(text.conclusive);
  CHECK(text.added == std::vector<std::string>{"out"});
  repo.remove("out/obj/notes.txt");
  CHECK(compareWithTree(repo.root(), snap).unchanged);

  // So does a left-out file that turned into text, and a new text file in its folder.
  repo.write(".cache/clangd/index/a.h.idx", "now text\n");
  auto turned = compareWithTree(repo.root(), snap);
  CHECK_FALSE(turned.conclusive);
  CHECK(turned.added == std::vector<std::string>{".cache/clangd/index/a.h.idx"});
  CHECK(turned.reason.find("no longer a binary file") != std::string::npos);
  repo.write(".cache/clangd/index/a.h.idx", binary);
  repo.write(".cache/clangd/index/c.txt", "text\n");
  auto textBeside = compareWithTree(repo.root(), snap);
  CHECK_FALSE(textBeside.conclusive);
  CHECK(textBeside.added == std::vector<std::string>{".cache/clangd/index/c.txt"});

  // Deleted: no change either.
  repo.remove(".cache/clangd/index/c.txt");
  repo.remove(".cache/clangd/index/a.h.idx");
  CHECK(compareWithTree(repo.root(), snap).unchanged);
}

}  // namespace nib::test
