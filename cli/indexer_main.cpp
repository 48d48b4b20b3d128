// `nib-indexer`: the worker executable behind `nib index` (and the worktree scan behind
// `nib status`). It links libgit2 and the tree-sitter grammars so that `nib` need not.
#include <CLI/CLI.hpp>
#include <csignal>

#include "cli/BatchAllocator.h"
#include "cli/Commands.h"
#include "cli/IndexCli.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace nib::cli;
  // A worker that exits before reading its input (nib-clang refusing its arguments) must cost its
  // batch, not the build: writing to it fails instead of raising SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  settleBatchAllocator();
  CLI::App app{"nib-indexer: the indexing worker of nib (run it as `nib index`).", "nib"};
  app.set_version_flag("--version", NIB_VERSION);
  app.require_subcommand(1);
  IndexArgs indexArgs;
  auto* index = addIndexCommand(app, indexArgs);
  VerifyArgs verifyArgs;
  auto* verify = addVerifyCommand(app, verifyArgs);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*index) return runIndex(indexArgs);
  if (*verify) return runVerify(verifyArgs);
  return 2;
}
