// `nib-server`: the language server behind `nib serve`. It links the indexer (tree-sitter,
// libgit2) so that it can re-extract edited buffers and build a missing index; `nib` itself
// stays light.
#include <malloc.h>

#include <CLI/CLI.hpp>

#include <signal.h>
#include <unistd.h>

#include <mutex>

#include "cli/ServeCli.h"
#include "cli/Worker.h"
#include "indexer/Extractor.h"
#include "indexer/GitRepository.h"
#include "indexer/DenseFollowUp.h"
#include "indexer/IndexBuilder.h"
#include "indexer/WorktreeGit.h"
#include "server/LspServer.h"
#include "support/GitLite.h"
#include "views/IndexLayout.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace nib;
  // Requests run one at a time under the engine lock, but on whichever thread read them: with
  // glibc's arena per thread, each thread kept its own high-water mark of freed facts (qemu,
  // 200 references requests: 590 MiB of heap with the default arenas, 218 MiB with one).
  mallopt(M_ARENA_MAX, 1);
  CLI::App app{"nib-server: the language server of nib (run it as `nib serve`).", "nib"};
  app.set_version_flag("--version", NIB_VERSION);
  app.require_subcommand(1);
  cli::ServeArgs args;
  auto* serve = cli::addServeCommand(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!*serve) return 2;

  LspServerOptions options;
  options.root = args.root;
  options.version = NIB_VERSION;
  options.workers = args.workers;
  options.live.provider = args.provider;
  options.live.liveCommands = args.live;
  options.live.liveTimeoutMs = args.liveTimeoutMs;
  options.live.allowProjectCommands = args.allowProjectCommands;
  options.live.traceLog = args.traceLog.empty() ? std::filesystem::path() : std::filesystem::absolute(args.traceLog);
#ifdef NIB_BACKENDS_BIN
  options.live.backendsBin = NIB_BACKENDS_BIN;
#endif
  // Buffers are re-extracted under the engine's lock, one at a time: one extractor suffices.
  auto extractor = std::make_shared<Extractor>();
  auto extractorMutex = std::make_shared<std::mutex>();
  options.extractor = [extractor, extractorMutex](Language lang, std::string_view text) {
    std::lock_guard<std::mutex> g(*extractorMutex);
    return extractor->extract(lang, text);
  };
  options.buildIndex = [](const std::filesystem::path& root,
                          const std::function<void(uint64_t, uint64_t, const std::string&)>& progress,
                          const std::function<bool()>& cancelled) -> Status {
    IndexOptions index;
    // A rebuild keeps the options the current version was built with. The dense view comes
    // only where it was asked for (IndexOptions::denseOnRequest): so never in the first build,
    // which an editor waits for.
    index.dense = true;
    index.denseOnRequest = true;
    if (auto current = IndexLayout::forRepository(root).currentManifest()) {
      if (auto it = current->stats.find("config.max-file-size"); it != current->stats.end())
        index.maxFileSize = std::strtoull(it->second.c_str(), nullptr, 10);
    }
    // The dense view comes in a follow-up version, built by a detached nib-indexer, so that the
    // new version serves (and the server can stop) without waiting for it.
    index.deferDense = index.dense;
    index.deferUncompiled = true;  // the same follow-up adds the clang view's made-up units
    index.progress = [&](const IndexProgress& p) { progress(p.done, p.total, p.phase); };
    index.cancelled = cancelled;
    index.waitForLock = true;  // another window's server or a `nib index` may be building
    auto report = buildIndex(root, index);
    if (!report) return report.status();
    if (followUpPending(report->manifest)) {
      if (auto indexer = cli::workerPath())
        startDenseFollowUp(*indexer, report->repoRoot, IndexLayout::forRepository(report->repoRoot), 0);
    }
    return Status::ok();
  };
  options.worktreeProbe = [](const std::filesystem::path& root) { return worktreeTreeId(root); };
  options.ignoreRules = [](const std::filesystem::path& root) { return gitIgnoreRules(root); };
  // A client that goes away mid-answer must not kill the server with SIGPIPE: writes fail and
  // the reader sees the end of input.
  ::signal(SIGPIPE, SIG_IGN);
  LspServer server(std::move(options));
  return server.run(STDIN_FILENO, STDOUT_FILENO);
}
