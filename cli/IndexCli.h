// The `index` subcommand's options, shared by `nib` (for its help) and `nib-indexer` (which
// parses and runs it), so both always describe the same command.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/Commands.h"

namespace nib::cli {

inline CLI::App* addIndexCommand(CLI::App& app, IndexArgs& args) {
  auto* index = app.add_subcommand("index", "Build (or refresh) the index of the repository containing PATH.\n"
                                            "Indexes the worktree: tracked files plus untracked files git does not ignore.\n"
                                            "Unchanged files reuse their stored facts; when nothing changed since the\n"
                                            "current version (HEAD, the worktree, the options), nothing is rebuilt.\n"
                                            "When few files changed (at most 256, and an eighth of the files, differ from the\n"
                                            "last full build), the new version is a delta: it shares the full build's views\n"
                                            "and lists what differs. The index lives in <repo>/.nib; what no kept version\n"
                                            "references is removed from it as it grows.");
  index->add_option("path", args.path, "A path inside the repository (default: .)");
  index->add_option("--max-file-size", args.maxFileSize, "Skip files larger than this many bytes (default: 1048576)")
      ->check(CLI::PositiveNumber);
  index->add_option("--threads", args.threads, "Extraction threads (default: one per core)");
  index->add_option("--commit", args.commit, "Index this revision's tree instead of the worktree");
  index->add_flag("--force", args.force, "Build a new version even when the current one reflects HEAD and the worktree,\n"
                                  "and parse again files whose extraction failed before");
  index->add_flag("--full", args.full, "Rewrite every view instead of publishing a delta over the last full build");
  index->add_flag("--call-graph", args.callGraph, "Resolve the call graph now (by default: when the previous version's was used)");
  index->add_option("--compile-commands-dir", args.compileCommandsDir,
                    "The folder of compile_commands.json for the clang index of C/C++ (default: .nib.conf's\n"
                    "clang.compile-commands-dir, else the repository root, else the first build*/ folder with one)");
  index->add_flag("--no-clang", args.noClang, "Build no clang index (C/C++ answers from tree-sitter facts only)");
  index->add_flag("--no-precise", args.noPrecise,
                  "Build no precise view (TypeScript/JavaScript and Python answers from tree-sitter facts only; "
                  "the view runs scip-typescript and scip-python, see docs/precise-view.md)");
  index->add_flag("--dense", args.dense,
                  "Build the dense view (semantic and hybrid search), in a follow-up version. It is built\n"
                  "only when asked for — by this flag, --wait-dense, the first `nib search -r semantic`\n"
                  "or `-r hybrid`, or an external encoder in .nib.conf — and later builds keep it");
  index->add_flag("--no-dense", args.noDense, "Build no dense view, and drop the one the index has (no semantic or hybrid search)")
      ->excludes("--dense");
  index->add_flag("--wait-dense", args.waitDense,
                  "Build the dense view (semantic search; implies --dense), and the clang view's units for C/C++ files no\n"
                  "compile command builds, before returning. By default the version is published without\n"
                  "them and a background process adds them in a follow-up version (`nib status` shows\n"
                  "when it is ready; lexical and trigram search, and the other files' answers, work meanwhile)");
  index->add_flag("--wait", args.wait,
                  "Leave nothing to a follow-up: the clang view's units for files no compile command builds,\n"
                  "and the dense view where the index keeps one, are built before returning (no dense view\n"
                  "is asked for; for scripts and benchmarks that need complete answers at once)")
      ->excludes("--wait-dense");
  // The background process `nib index` starts for that follow-up: not for people.
  index->add_flag("--complete-dense", args.completeDense)->group("");
  index->add_flag("--retrain-model", args.retrainModel,
                  "Learn the dense view's word vectors again from the repository as it is now (by default an\n"
                  "update keeps the current version's model, so unchanged units keep their vectors)");
  index->add_option("--keep-versions", args.keepVersions,
                    "Complete versions to keep on disk besides the current one and its predecessor\n"
                    "(default: .nib.conf's index.keep-versions, else 3)")
      ->check(CLI::Range(1, 1000));
  index->add_flag("--collect", args.collect,
                  "Remove from the shared fact store now whatever no kept version references, and\n"
                  "compact it (by default this happens once it holds a quarter more than needed)");
  index->add_flag("-q,--quiet", args.quiet, "Print nothing but errors");
  index->add_flag("--json", args.json, "Print the build report as JSON");
  return index;
}

inline CLI::App* addVerifyCommand(CLI::App& app, VerifyArgs& args) {
  auto* verify = app.add_subcommand("verify", "Rebuild the current version from scratch (no stored facts reused) into a\n"
                                              "temporary folder and compare what the two declare: every file record, name\n"
                                              "table, skipped file, search unit and posting, and every file's facts.\n"
                                              "Prints `identical` or the first differences (exit 1).");
  verify->add_option("path", args.path, "A path inside the repository (default: .)");
  verify->add_option("--threads", args.threads, "Extraction threads (default: one per core)");
  verify->add_flag("--json", args.json, "Print the result as JSON");
  return verify;
}

}  // namespace nib::cli
