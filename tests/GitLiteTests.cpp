// The libgit2-free git reading of the query path must agree with git itself.
#include <catch2/catch.hpp>

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
  auto same = compareWorktree(repo.root(), snap);
  CHECK(same.conclusive);
  CHECK(same.unchanged);
  CHECK(same.changed.empty());

  repo.write("src/a.py", "x = 3\n");
  auto edited = compareWorktree(repo.root(), snap);
  CHECK(edited.conclusive);
  CHECK_FALSE(edited.unchanged);
  CHECK(edited.changed == std::vector<std::string>{"src/a.py"});
  repo.git("add -A");
  CHECK(edited.treeId == gitOut(repo, "write-tree"));

  repo.write("src/a.py", "x = 1\n");  // same content, new mtime: rehashed, not changed
  CHECK(compareWorktree(repo.root(), snap).changed.empty());

  repo.write("src/new.py", "z = 1\n");
  auto added = compareWorktree(repo.root(), snap);
  CHECK_FALSE(added.conclusive);
  CHECK(added.reason.find("new.py") != std::string::npos);
  fs::remove(repo.root() / "src/new.py");

  // chmod +x leaves the mtime alone but changes git's tree: it must be seen.
  fs::permissions(repo.root() / "b.py", fs::perms::owner_exec, fs::perm_options::add);
  auto chmodded = compareWorktree(repo.root(), snap);
  CHECK(chmodded.changed == std::vector<std::string>{"b.py"});
  repo.git("add -A");
  CHECK(chmodded.treeId == gitOut(repo, "write-tree"));

  fs::remove(repo.root() / "b.py");
  auto deleted = compareWorktree(repo.root(), snap);
  CHECK(deleted.conclusive);
  CHECK(deleted.deleted == std::vector<std::string>{"b.py"});
}

}  // namespace nib::test
