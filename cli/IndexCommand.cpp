// `nib index` and `nib rollback`: the commands that change which index version serves.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/Commands.h"
#include "cli/Worker.h"
#include "indexer/GitRepository.h"
#include "indexer/DenseFollowUp.h"
#include "indexer/IndexBuilder.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "support/Log.h"
#include "providers/CallGraph.h"
#include "providers/StaticProvider.h"
#include "views/CommitView.h"
#include "views/IndexLayout.h"
#include "views/VersionComparison.h"
#include "views/VersionDelta.h"
#include "views/WorktreeSnapshot.h"

namespace nib::cli {
namespace fs = std::filesystem;
namespace {

std::string humanBytes(uint64_t n) {
  char buf[32];
  if (n >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", n / double(1ull << 30));
  else if (n >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", n / double(1ull << 20));
  else if (n >= (1ull << 10)) std::snprintf(buf, sizeof buf, "%.1f KiB", n / double(1ull << 10));
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
  return buf;
}

// `nib-indexer index --complete-dense`: the background follow-up itself.
int runDenseFollowUp(const IndexArgs& args) {
  auto repo = GitRepository::discover(args.path);
  if (!repo) return fail(repo.status().message());
  IndexOptions options;
  options.threads = args.threads;
  auto report = completeDenseView((*repo)->root(), options);
  if (!report) return fail("the dense view's follow-up failed: " + report.status().message());
  if (report->published) {
    std::string what;
    if (!report->dense.view.name.empty())
      what = std::string("dense view ") + (report->dense.view.status == ViewStatus::Complete ? "published" : "failed, recorded");
    if (report->clangCompleted)
      what += (what.empty() ? "" : ", ") + std::string("clang view's made-up units added (") +
              std::to_string(report->clangIndexed) + " indexed)";
    else if (!report->clangSkipped.empty())
      what += (what.empty() ? "" : ", ") + std::string("clang view's made-up units left: ") + report->clangSkipped;
    std::printf("%s %s in version %s (%.2f s)\n", utcTimestamp().c_str(), what.c_str(), report->versionId.c_str(),
                report->seconds);
  } else
    std::printf("%s nothing published: %s\n", utcTimestamp().c_str(), report->skipped.c_str());
  return 0;
}

// After a build: a Pending dense view and the clang view's deferred made-up units are built now
// (--wait-dense) or left to a background follow-up. Returns the follow-up's report when it ran
// here.
Expected<std::optional<DenseFollowUpReport>> settleDenseView(const IndexArgs& args, const IndexReport& r) {
  if (!followUpPending(r.manifest)) return std::optional<DenseFollowUpReport>();
  IndexLayout layout = IndexLayout::forRepository(r.repoRoot);
  if (!args.waitDense) {
    if (auto indexer = workerPath()) startDenseFollowUp(*indexer, r.repoRoot, layout, args.threads);
    return std::optional<DenseFollowUpReport>();
  }
  IndexOptions options;
  options.threads = args.threads;
  auto followUp = completeDenseView(r.repoRoot, options);
  if (!followUp) return followUp.status();
  return std::optional<DenseFollowUpReport>(std::move(*followUp));
}

void printDenseLine(const IndexReport& r, const std::optional<DenseFollowUpReport>& followUp) {
  auto stat = [](const Manifest& m, const std::string& key) {
    auto it = m.stats.find(key);
    return it == m.stats.end() ? std::string("?") : it->second;
  };
  const Manifest& m = r.manifest;
  const ViewRecord* dense = followUp && followUp->published ? &followUp->dense.view : m.view("dense");
  if (!dense) return;
  if (followUp && followUp->published && dense->status == ViewStatus::Complete)
    std::printf("  dense       %llu vectors (%llu embedded, %llu reused), model %s; in version %s\n",
                static_cast<unsigned long long>(followUp->dense.vectors), static_cast<unsigned long long>(followUp->dense.embedded),
                static_cast<unsigned long long>(followUp->dense.reused),
                followUp->dense.trained ? "trained now" : "kept from the previous version", followUp->versionId.c_str());
  else if (followUp && !followUp->published)
    std::printf("  dense       not built: %s\n", followUp->skipped.c_str());
  else if (dense->status == ViewStatus::Complete && !r.deltaBase.empty())
    // A delta version embeds nothing: its dense view is its base's, whose statistics it repeats.
    std::printf("  dense       %s vectors, shared with version %s\n", stat(m, "dense.vectors").c_str(), m.base.c_str());
  else if (dense->status == ViewStatus::Complete)
    std::printf("  dense       %s vectors (%s embedded, %s reused), model %s\n", stat(m, "dense.vectors").c_str(),
                stat(m, "dense.embedded").c_str(), stat(m, "dense.reused").c_str(),
                stat(m, "dense.trained") == "yes" ? "trained now" : "kept from the previous version");
  else if (dense->status == ViewStatus::Failed)
    std::printf("  dense       not built: %s\n", dense->error.c_str());
  else if (dense->status == ViewStatus::Absent && !dense->error.empty())  // over dense.max-source-mb
    std::printf("  dense       %s\n", dense->error.c_str());
  else if (dense->status == ViewStatus::Pending)
    std::printf("  dense       building in the background: a follow-up version adds it (`nib status` shows\n"
                "              when; lexical and trigram search work meanwhile; --wait-dense waits for it)\n");
}

// The clang and precise views' lines; a follow-up that ran here (--wait-dense) says what it
// added to the clang view.
void printCompilerViews(const IndexReport& r, const std::optional<DenseFollowUpReport>& followUp) {
  auto stat = [&](const std::string& key) {
    auto it = r.manifest.stats.find(key);
    return it == r.manifest.stats.end() ? std::string("?") : it->second;
  };
  if (const ViewRecord* clang = r.manifest.view("clang")) {
    if (clang->status == ViewStatus::Complete) {
      // Headers the units read that are parsed alone too (as clangd parses an open header).
      auto some = [&](const char* key) { return r.manifest.stats.count(key) && stat(key) != "0"; };
      std::string alone = some("clang.headers-alone") ? " + " + stat("clang.headers-alone") + " headers parsed alone" : "";
      std::printf("  clang       %s translation units + %s files no unit read%s (%s indexed, %s cached, %s failed), %s symbols\n",
                  stat("clang.units").c_str(), stat("clang.interpolated").c_str(), alone.c_str(), stat("clang.indexed").c_str(),
                  stat("clang.cached").c_str(), stat("clang.failed").c_str(), stat("clang.symbols").c_str());
      std::string headers = some("clang.deferred-headers") ? stat("clang.deferred-headers") : "";
      if (followUp && followUp->clangCompleted) {
        std::printf("              then %s files no compile command builds%s (%zu units indexed) in version %s\n",
                    stat("clang.deferred").c_str(), headers.empty() ? "" : (" and " + headers + " headers parsed alone").c_str(),
                    followUp->clangIndexed, followUp->versionId.c_str());
      } else if (clang->has(ViewRecord::kUncompiledPending)) {
        if (some("clang.deferred"))
          std::printf("              %s files no compile command builds are indexed in the background: a follow-up\n"
                      "              version adds them (they answer from tree-sitter meanwhile)\n",
                      stat("clang.deferred").c_str());
        if (!headers.empty())
          std::printf("              %s headers are parsed alone in the background, as clangd parses an open header:\n"
                      "              a follow-up version adds them (their includers' units answer there meanwhile)\n",
                      headers.c_str());
      }
      for (int i = 0; i < 3 && r.manifest.stats.count("clang.failure." + std::to_string(i)); ++i)
        std::printf("    failed    %s\n", stat("clang.failure." + std::to_string(i)).substr(0, 200).c_str());
    } else if (clang->status == ViewStatus::Failed) {
      std::printf("  clang       not built: %s\n", clang->error.c_str());
    }
  }
  if (const ViewRecord* precise = r.manifest.view("precise")) {
    if (precise->status == ViewStatus::Complete) {
      std::printf("  precise     %s projects (%s indexed, %s cached, %s failed), %s files, %s symbols\n",
                  stat("precise.projects").c_str(), stat("precise.indexed").c_str(), stat("precise.cached").c_str(),
                  stat("precise.failed").c_str(), stat("precise.files").c_str(), stat("precise.symbols").c_str());
    } else {
      std::printf("  precise     not built: %s\n", precise->error.c_str());
    }
    for (int i = 0; i < 3 && r.manifest.stats.count("precise.failure." + std::to_string(i)); ++i)
      std::printf("    failed    %s\n", stat("precise.failure." + std::to_string(i)).substr(0, 300).c_str());
  }
}

void printCollection(const IndexReport& r) {
  if (!r.collection.swept) return;
  std::printf("  collected   %zu fact records and %zu file contents no kept version references%s\n",
              r.collection.removed.records, r.collection.removed.contents,
              r.collection.compacted ? "; store compacted" : "");
}

}  // namespace

int runIndex(const IndexArgs& args) {
  if (args.completeDense) return runDenseFollowUp(args);
  IndexOptions options;
  options.maxFileSize = args.maxFileSize;
  options.threads = args.threads;
  options.commit = args.commit;
  options.skipIfCurrent = !args.force && !args.retrainModel;
  options.retryFailed = args.force;
  if (args.full || args.force) options.deltaBudget = 0;
  options.dense = !args.noDense;
  // Asked for by a flag, or kept where the current version has it (IndexOptions::denseOnRequest).
  options.denseOnRequest = !args.noDense && !args.dense && !args.waitDense && !args.retrainModel;
  // A retrained model is asked for now; otherwise the dense view comes in a follow-up.
  options.deferDense = options.dense && !args.waitDense && !args.wait && !args.retrainModel;
  // Made-up clang units (files no compile command builds) likewise: the follow-up adds them,
  // run here at once with --wait-dense; --wait builds them with the version itself.
  options.deferUncompiled = !args.wait;
  options.clang = !args.noClang;
  options.precise = !args.noPrecise;
  options.compileCommandsDir = args.compileCommandsDir;
  options.retrainModel = args.retrainModel;
  options.keepVersions = args.keepVersions;
  options.collectNow = args.collect;
  bool tty = ::isatty(STDERR_FILENO) && !args.quiet && !args.json;
  if (tty) {
    options.progress = [](const IndexProgress& p) {
      if (p.total) std::fprintf(stderr, "\r\033[K%s %llu/%llu files", p.phase.c_str(),
                                static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total));
      else std::fprintf(stderr, "\r\033[K%s...", p.phase.c_str());
      std::fflush(stderr);
    };
  }
  auto report = buildIndex(args.path, options);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!report) {
    std::string hint;
    if (report.status().is(Reason::NotARepository))
      hint = "run nib inside a git repository, or pass its path";
    return fail(report.status().message(), hint);
  }
  // The call and type-use graph of the new version, resolved now rather than by the first
  // structural query, when the previous version's was used (it is kept beside a version once a
  // structural query resolved it): repositories that never ask pay nothing, and those that do
  // never wait for it. A failure only costs the first query the time.
  IndexLayout layout = IndexLayout::forRepository(report->repoRoot);
  // A delta version leaves it to the first structural query: resolving the whole graph again
  // would cost more than the delta itself.
  bool graphUsed = report->deltaBase.empty() && !report->manifest.previous.empty() &&
                   fs::exists(layout.callGraphFile(report->manifest.previous));
  if (!report->upToDate && (graphUsed || args.callGraph)) {
    auto t0 = std::chrono::steady_clock::now();
    if (auto provider = StaticProvider::open(layout.dir()))
      if (auto graph = CallGraph::build(**provider))
        (void)writeFileAtomic(layout.callGraphFile(report->manifest.versionId),
                              graph->serialize());
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report->phaseSeconds.emplace_back("call-graph", secs);
    report->seconds += secs;
  }
  const IndexReport& r = *report;
  auto followUp = settleDenseView(args, r);
  if (!followUp) return fail(followUp.status().message());
  const ViewRecord* denseView = r.manifest.view("dense");
  std::string denseStatus = followUp->has_value() && (*followUp)->published ? viewStatusName((*followUp)->dense.view.status)
                            : denseView                                     ? viewStatusName(denseView->status)
                                                                            : "absent";
  if (args.quiet) return 0;
  if (r.upToDate) {
    if (args.json) {
      std::printf("{\"version\": \"%s\", \"upToDate\": true, \"seconds\": %.3f, \"dense\": \"%s\"}\n",
                  r.manifest.versionId.c_str(), r.seconds, denseStatus.c_str());
      return 0;
    }
    std::printf("index is current: version %s reflects HEAD %s and the worktree (%.3f s; --force rebuilds)\n",
                r.manifest.versionId.c_str(), r.manifest.sourceCommit.substr(0, 12).c_str(), r.seconds);
    printCollection(r);
    if (denseView && denseView->status == ViewStatus::Pending) printDenseLine(r, *followUp);
    return 0;
  }
  std::string delta = "null";
  if (!r.deltaBase.empty())
    delta = "{\"base\": \"" + r.deltaBase + "\", \"files\": " + std::to_string(r.deltaFiles) + "}";
  std::string collected = "null";
  if (r.collection.swept)
    collected = "{\"records\": " + std::to_string(r.collection.removed.records) + ", \"contents\": " +
                std::to_string(r.collection.removed.contents) + ", \"compacted\": " +
                (r.collection.compacted ? "true" : "false") + "}";
  if (args.json) {
    std::string phases;
    for (const auto& [name, secs] : r.phaseSeconds) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s\"%s\": %.3f", phases.empty() ? "" : ", ", name.c_str(), secs);
      phases += buf;
    }
    std::printf("{\"version\": \"%s\", \"files\": %llu, \"definitions\": %llu, \"occurrences\": %llu, "
                "\"extracted\": %llu, \"reused\": %llu, \"seconds\": %.3f, \"sourceBytes\": %llu, \"indexBytes\": %llu, "
                "\"delta\": %s, \"dense\": \"%s\", \"collected\": %s, \"phases\": {%s}}\n",
                r.manifest.versionId.c_str(), static_cast<unsigned long long>(r.files),
                static_cast<unsigned long long>(r.definitions), static_cast<unsigned long long>(r.occurrences),
                static_cast<unsigned long long>(r.extracted), static_cast<unsigned long long>(r.reused), r.seconds,
                static_cast<unsigned long long>(r.sourceBytes), static_cast<unsigned long long>(r.indexBytes),
                delta.c_str(), denseStatus.c_str(), collected.c_str(), phases.c_str());
    return 0;
  }
  std::printf("indexed %s\n", r.repoRoot.c_str());
  std::printf("  version     %s\n", r.manifest.versionId.c_str());
  std::printf("  commit      %s%s\n", r.manifest.sourceCommit.empty() ? "(no commits yet)" : r.manifest.sourceCommit.c_str(),
              r.manifest.dirty ? " + uncommitted changes" : "");
  std::printf("  files       %llu (%llu extracted, %llu reused)\n", static_cast<unsigned long long>(r.files),
              static_cast<unsigned long long>(r.extracted), static_cast<unsigned long long>(r.reused));
  for (const auto& [lang, n] : r.filesByLanguage) std::printf("    %-11s %llu\n", lang.c_str(), static_cast<unsigned long long>(n));
  if (!r.deltaBase.empty())
    std::printf("  delta       %zu file(s) differ from version %s, whose views this version shares\n"
                "              (`nib index --full` rewrites them)\n",
                r.deltaFiles, r.deltaBase.c_str());
  uint64_t skipped = 0;
  for (const auto& [_, n] : r.skippedByReason) skipped += n;
  std::printf("  skipped     %llu\n", static_cast<unsigned long long>(skipped));
  for (const auto& [reason, n] : r.skippedByReason) {
    std::string examples;
    for (const auto& [path, why] : r.skippedExamples)
      if (why == reason) examples += (examples.empty() ? "" : ", ") + path;
    // A delta version's report counts the base's skipped files without naming them.
    std::printf("    %-11s %llu%s\n", reason.c_str(), static_cast<unsigned long long>(n),
                examples.empty() ? "" : (" (e.g. " + examples + ")").c_str());
  }
  std::printf("  symbols     %llu definitions, %llu occurrences\n", static_cast<unsigned long long>(r.definitions),
              static_cast<unsigned long long>(r.occurrences));
  printCompilerViews(r, *followUp);
  printDenseLine(r, *followUp);
  std::string phases;
  for (const auto& [name, secs] : r.phaseSeconds) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.2f s", phases.empty() ? "" : ", ", name.c_str(), secs);
    phases += buf;
  }
  std::printf("  time        %.2f s (%s)\n", r.seconds, phases.c_str());
  std::printf("  size        %s index for %s of source\n", humanBytes(r.indexBytes).c_str(), humanBytes(r.sourceBytes).c_str());
  printCollection(r);
  return 0;
}


}  // namespace nib::cli

namespace nib::cli {

int runVerify(const VerifyArgs& args) {
  auto repo = GitRepository::discover(args.path);
  if (!repo) return fail(repo.status().message());
  IndexLayout layout = IndexLayout::forRepository((*repo)->root());
  auto current = layout.currentManifest();
  if (!current) return fail(current.status().message(), "run `nib index` first");
  const Manifest& m = *current;
  fs::path versionDir = layout.versionDir(m.versionId);
  // What the version was built from: the worktree (it then holds a snapshot of it) or a commit.
  bool fromWorktree = false;
  std::optional<WorktreeComparison> drift;
  if (auto recorded = recordedWorktree(versionDir, m)) {
    fromWorktree = true;
    drift = compareWorktree((*repo)->root(), recorded->snapshot);
  }
  auto head = (*repo)->headCommit();
  if (fromWorktree && ((head && *head != m.sourceCommit) || !drift || !drift->conclusive || !drift->unchanged))
    std::fprintf(stderr, "nib: note: HEAD or the worktree changed since version %s was built; the rebuild sees them, "
                         "so differences are expected (run `nib index`, then verify)\n", m.versionId.c_str());
  // A fresh index in a temporary folder under .nib (ignored by the walk, same filesystem).
  fs::path scratch = IndexLayout::forRepository((*repo)->root()).dir() / ("verify-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(scratch, ec);
  IndexOptions options;
  options.indexDir = scratch;
  options.threads = args.threads;
  options.commit = fromWorktree ? "" : m.sourceCommit;
  if (auto it = m.stats.find("config.max-file-size"); it != m.stats.end())
    options.maxFileSize = std::strtoull(it->second.c_str(), nullptr, 10);
  // The dense view is rebuilt with the version's own model: retraining would give the same
  // model only when the version trained it on the same text, not after updates that kept it.
  const ViewRecord* dense = m.view("dense");
  // A delta version's vectors are its base's, so the rebuild needs none.
  if (!dense || dense->status != ViewStatus::Complete || !m.base.empty()) options.dense = false;
  else options.denseModel = versionDir / "dense" / "model.bin";
  auto rebuilt = buildIndex((*repo)->root(), options);
  if (!rebuilt) {
    fs::remove_all(scratch, ec);
    return fail("the rebuild failed: " + rebuilt.status().message());
  }
  auto result = compareVersions(versionDir, layout.factsDir(), IndexLayout(scratch).versionDir(rebuilt->manifest.versionId),
                                IndexLayout(scratch).factsDir(), 20);
  fs::remove_all(scratch, ec);
  if (!result) return fail(result.status().message());
  if (args.json) {
    std::printf("{\"version\": \"%s\", \"identical\": %s, \"entries\": %zu, \"files\": %zu, \"differences\": %zu, "
                "\"base\": %s}\n",
                m.versionId.c_str(), result->identical ? "true" : "false", result->entries, result->files,
                result->differences.size(), m.base.empty() ? "null" : ("\"" + m.base + "\"").c_str());
  } else if (result->identical) {
    if (result->delta)
      std::printf("identical: version %s (a delta over %s) declares what a rebuild from scratch does: file records, "
                  "skipped files, search documents and the worktree snapshot by path (%zu entries), facts of %zu files\n",
                  m.versionId.c_str(), m.base.c_str(), result->entries, result->files);
    else
      std::printf("identical: version %s equals a rebuild from scratch (%zu entries, facts of %zu files)\n",
                  m.versionId.c_str(), result->entries, result->files);
  } else {
    std::printf("DIFFERENT: version %s differs from a rebuild from scratch; first differences:\n", m.versionId.c_str());
    for (const VersionDifference& d : result->differences)
      std::printf("  %-22s %s  (%s)\n", d.where.c_str(), d.key.c_str(), d.what.c_str());
  }
  return result->identical ? 0 : 1;
}

}  // namespace nib::cli
