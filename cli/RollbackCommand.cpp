// `nib rollback`: makes the previous complete index version current again. `nib export`: hands
// the current version to the `nib-scip` worker, which writes it as SCIP (libprotobuf stays out
// of `nib`).
#include <cstdio>
#include <filesystem>

#include "cli/Commands.h"
#include "cli/Worker.h"
#include "support/GitLite.h"
#include "views/IndexLayout.h"

namespace nib::cli {

int runRollback(const RollbackArgs& args) {
  auto repo = gitlite::discover(args.path);
  if (!repo) return fail(repo.status().message());
  IndexLayout layout = IndexLayout::forRepository(repo->worktree);
  auto lock = IndexWriteLock::acquire(layout, /*wait=*/false);
  if (!lock) return fail(lock.status().message());
  auto current = layout.currentVersion();
  if (!current) return fail(current.status().message());
  auto manifest = readManifest(layout.versionDir(*current));
  std::string previous = manifest ? manifest->previous : "";
  if (previous.empty()) return fail("the current version " + *current + " has no previous version to roll back to");
  auto prev = readManifest(layout.versionDir(previous));
  if (!prev) return fail("previous version " + previous + " is gone or unreadable: " + prev.status().message());
  if (!prev->servable()) return fail("previous version " + previous + " is not complete");
  Status verified = verifyArtifacts(layout.versionDir(previous), *prev);
  if (!verified.isOk()) return fail("previous version " + previous + ": " + verified.message());
  Status s = layout.publish(previous);
  if (!s.isOk()) return fail(s.message());
  std::printf("current version is now %s (was %s)\n", previous.c_str(), current->c_str());
  return 0;
}

int runExport(const ExportArgs& args) {
  auto repo = gitlite::discover(args.root);
  if (!repo) return fail(repo.status().message());
  IndexLayout layout = IndexLayout::forRepository(repo->worktree);
  auto current = layout.currentVersion();
  if (!current) return fail(current.status().message(), "run `nib index` first");
  std::error_code ec;
  std::string out = std::filesystem::absolute(args.output, ec).string();
  Status s = execWorker({"export", repo->worktree.string(), layout.dir().string(), out}, "nib-scip");
  return fail(s.message());
}

}  // namespace nib::cli
