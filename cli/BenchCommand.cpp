// `nib bench live-vs-static`: runs server/LiveBench and renders its answer as a table, JSON, or
// a self-contained HTML report.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli/Commands.h"
#include "protocol/LspTypes.h"
#include "server/LiveBench.h"
#include "server/LiveSetup.h"
#include "support/FileIo.h"
#include "support/ProjectConfig.h"

namespace nib::cli {
namespace {
namespace fs = std::filesystem;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(double v) { return fixed(100 * v, 1) + "%"; }

std::string ratio(double v, size_t n) { return n ? fixed(v, 1) + "x (" + std::to_string(n) + ")" : "-"; }

std::string interval(double low, double high) { return "[" + fixed(100 * low, 1) + ", " + fixed(100 * high, 1) + "]"; }

void rowsTable(std::ostringstream& o, const lsp::LiveBenchAnswer& a) {
  char line[512];
  std::snprintf(line, sizeof line, "%-11s %-10s %5s %8s %14s %6s %5s %5s %9s %7s %17s %17s %15s %14s %10s\n", "language",
                "method", "req", "match", "95% interval", "empty", "fail", "sfail", "precision", "recall",
                "static p50/p95 ms", "live p50/p95 ms", "in-engine p50", "live/static", "cold");
  o << line;
  for (const lsp::LiveBenchRow& r : a.rows) {
    std::snprintf(line, sizeof line, "%-11s %-10s %5zu %8s %14s %6zu %5zu %5zu %9s %7s %17s %17s %15s %14s %10s\n",
                  r.language.c_str(), r.method.c_str(), r.requests, percent(r.matchRate).c_str(),
                  interval(r.low, r.high).c_str(), r.liveEmpty, r.liveFailed, r.staticFailed, percent(r.precision).c_str(),
                  percent(r.recall).c_str(), (fixed(r.staticP50, 2) + " / " + fixed(r.staticP95, 2)).c_str(),
                  (fixed(r.liveP50, 1) + " / " + fixed(r.liveP95, 1)).c_str(), (fixed(r.engineP50, 3) + " ms").c_str(),
                  ratio(r.ratioWarm, r.warmMatched).c_str(), ratio(r.ratioCold, r.coldMatched).c_str());
    o << line;
  }
  o << "\nby the index answer's category:\n";
  for (const lsp::LiveBenchCategory& c : a.categories) {
    std::snprintf(line, sizeof line, "  %-11s %-10s %-26s %4zu/%-4zu %7s %14s\n", c.language.c_str(), c.method.c_str(),
                  c.category.c_str(), c.matched, c.requests,
                  percent(c.requests ? static_cast<double>(c.matched) / static_cast<double>(c.requests) : 0).c_str(),
                  interval(c.low, c.high).c_str());
    o << line;
  }
}

std::string table(const lsp::LiveBenchAnswer& a) {
  std::ostringstream o;
  o << "nib bench live-vs-static — " << a.root << " (index " << a.indexVersion << ")\n";
  o << "machine: " << a.machine << "; seed " << a.seed << ", " << a.samplesPerLanguage << " positions per language\n";
  o << "static side: " << a.staticCommand << " over stdio\n\n";
  rowsTable(o, a);
  o << "\nstatic: first answer " << fixed(a.staticFirstAnswerMs, 1) << " ms after starting nib serve; peak RSS "
    << fixed(static_cast<double>(a.staticPeakRssKiB) / 1024, 1) << " MiB\n";
  for (const lsp::LiveBenchLanguage& l : a.languages) {
    o << l.language << " (" << (l.backend.empty() ? "?" : l.backend) << "): " << l.files << " files, " << l.samples
      << " positions; started in " << fixed(l.liveStartMs, 0) << " ms, first answer after " << fixed(l.liveFirstAnswerMs, 0)
      << " ms";
    if (l.backgroundIndexMs >= 0) o << ", background index " << fixed(l.backgroundIndexMs / 1000, 1) << " s";
    o << "; peak RSS " << fixed(static_cast<double>(l.livePeakRssKiB) / 1024, 1) << " MiB\n";
  }
  o << "\npositions: identifiers in code drawn from the text of git's files (seeded), never from nib's index;\n"
       "both sides asked over stdio by this client, alternating which goes first; match: equal (path, line,\n"
       "column) sets over every request (both empty counts as equal, a failure as unequal); precision/recall:\n"
       "static's locations against live's where both answered; in-engine: the Engine in this process, not what\n"
       "a client sees; ratios: median live/static per matched request, warm and cold (first on a file).\n";
  if (!a.mismatches.empty()) {
    o << "\nfirst mismatches:\n";
    for (const std::string& m : a.mismatches) o << "  " << m << "\n";
  }
  if (!a.notes.empty()) {
    o << "\nnotes (" << a.notes.size() << "):\n";
    size_t shown = 0;
    for (const std::string& n : a.notes)
      if (shown++ < 20) o << "  " << n << "\n";
  }
  return o.str();
}

}  // namespace

int runBench(const BenchArgs& args) {
  LiveBenchOptions options;
  std::error_code ec;
  options.root = std::filesystem::absolute(args.root, ec);
  options.samples = args.samples;
  options.seed = args.seed;
  options.timeout = std::chrono::milliseconds(args.timeoutMs);
  options.backgroundIndex = !args.noBackgroundIndex;
#ifdef NIB_BACKENDS_BIN
  const std::filesystem::path backendsBin = NIB_BACKENDS_BIN;
#else
  const std::filesystem::path backendsBin;
#endif
  // The backends `nib serve` would run (clangd with its background index under .nib/clangd),
  // and the static side: this nib's own `serve`, over stdio like the backends.
  for (const std::string& spec : args.live) {
    std::map<Language, std::vector<std::string>> check;
    Status s = parseLiveCommand(spec, &check, backendsBin);
    if (!s.isOk()) return fail(s.message());
  }
  LiveSetupOptions setupOptions;
  setupOptions.provider = "static";
  setupOptions.backendsBin = backendsBin;
  setupOptions.liveCommands = args.live;
  options.commands = liveSetup(options.root, setupOptions, [](const std::string& m) {
                       std::fprintf(stderr, "nib bench: warning: %s\n", m.c_str());
                     }).settings.commands;
  std::error_code selfError;
  fs::path self = fs::read_symlink("/proc/self/exe", selfError);
  if (selfError) return fail("cannot find nib's own executable: " + selfError.message());
  options.staticCommand = {self.string(), "serve", "--provider", "static"};
  for (const std::string& name : args.languages) {
    Language l = languageFromName(name);
    if (l == Language::Unknown) return fail("unknown language '" + name + "'");
    options.languages.push_back(l);
  }
  if (!args.json) options.progress = [](const std::string& line) { std::fprintf(stderr, "nib bench: %s\n", line.c_str()); };
  auto answer = runLiveBench(options);
  if (!answer) return fail(answer.status().message());
  std::string text = args.json ? lsp::toJson(*answer) + "\n" : table(*answer);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!args.html.empty()) {
    Status s = writeFileAtomic(args.html, benchHtml(*answer, table(*answer)));
    if (!s.isOk()) return fail(s.message());
  }
  return 0;
}

}  // namespace nib::cli
