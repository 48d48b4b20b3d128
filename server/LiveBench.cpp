#include "server/LiveBench.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "providers/Agreement.h"
#include "server/Engine.h"
#include "support/CodeIdentifiers.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Text.h"

namespace nib {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Sites = AnswerSites;

const char* kMethods[2] = {"definition", "references"};

std::string sitesDigest(const Sites& sites) {
  Digester d;
  for (const auto& [path, line, column] : sites) d.add(path).add(line).add(column);
  return d.hex();
}

// "path:line:column", 1-based.
std::string siteText(const Sites::value_type& site) {
  const auto& [path, line, column] = site;
  return path + ":" + std::to_string(toDisplayLine(line)) + ":" + std::to_string(column + 1);
}

std::string describeSites(const Sites& sites, size_t limit) {
  std::string out;
  size_t n = 0;
  for (const auto& site : sites) {
    if (n++ == limit) return out + " …";
    out += (out.empty() ? "" : " ") + siteText(site);
  }
  return out.empty() ? "-" : out;
}

// "path:line:column" (1-based) of the sites of `a` not in `b`, at most `limit`.
std::vector<std::string> sitesOnlyIn(const Sites& a, const Sites& b, size_t limit) {
  std::vector<std::string> out;
  for (const auto& site : a) {
    if (b.count(site)) continue;
    if (out.size() == limit) break;
    out.push_back(siteText(site));
  }
  return out;
}

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string machine() {
  utsname u{};
  uname(&u);
  std::string cpu;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return std::string(u.sysname) + " " + u.machine + ", " + std::to_string(std::thread::hardware_concurrency()) +
         " cores" + (cpu.empty() ? "" : ", " + cpu);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// The repository's tracked files as git lists them: what the sampler draws from, so that the
// positions do not depend on what nib's index holds.
Expected<std::vector<std::string>> gitFiles(const fs::path& root) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status(ErrorCode::IoError, "cannot create a pipe for git");
  pid_t pid = ::fork();
  if (pid < 0) return Status(ErrorCode::IoError, "cannot start git");
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::execlp("git", "git", "-C", root.c_str(), "ls-files", "-z", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[65536];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status(ErrorCode::Unavailable, "`git ls-files` failed in " + root.string());
  std::vector<std::string> files;
  for (size_t start = 0; start < out.size();) {
    size_t end = out.find('\0', start);
    if (end == std::string::npos) end = out.size();
    files.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Sample {
  std::string path;
  Language language = Language::Unknown;
  uint32_t offset = 0;
  Position position;
};

// Up to `perLanguage` identifiers per language, at most `perFile` from one file, from files taken
// in a seeded random order: the same positions for the same files and seed.
std::vector<Sample> sample(const fs::path& root, const std::vector<std::string>& files,
                           const std::set<Language>& languages, const LiveBenchOptions& options,
                           std::map<Language, size_t>* fileCounts) {
  std::vector<std::pair<std::string, Language>> candidates;
  for (const std::string& path : files) {
    auto text = readWorktreeFile(root, path);
    if (!text) continue;
    Language l = detectLanguage(path, std::string_view(*text).substr(0, 4096));
    if (!languages.count(l)) continue;
    candidates.emplace_back(path, l);
    ++(*fileCounts)[l];
  }
  std::mt19937_64 rng(options.seed);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  std::map<Language, size_t> taken;
  std::vector<Sample> out;
  for (const auto& [path, language] : candidates) {
    size_t& n = taken[language];
    if (n >= options.samples) continue;
    auto text = readWorktreeFile(root, path);
    if (!text) continue;
    std::vector<uint32_t> starts = codeIdentifierStarts(*text, language);
    std::vector<uint32_t> picked;
    std::sample(starts.begin(), starts.end(), std::back_inserter(picked), std::min(options.perFile, options.samples - n),
                rng);
    LineTable lines(*text);
    for (uint32_t offset : picked) out.push_back(Sample{path, language, offset, lines.positionOf(offset)});
    n += picked.size();
  }
  std::sort(out.begin(), out.end(),
            [](const Sample& a, const Sample& b) { return a.path != b.path ? a.path < b.path : a.offset < b.offset; });
  return out;
}

struct Side {
  Sites sites;
  double ms = 0;
  bool ok = false, cold = false;
};

struct Measured {
  Side stat, live;
  double engineMs = 0;
  std::string category = "none";
  bool staticFirst = false;
};

Side ask(LiveProvider& provider, const Sample& s, int method, std::vector<std::string>* notes, const char* side) {
  Side out;
  auto r = method == 0 ? provider.definition(s.path, s.language, s.position)
                       : provider.references(s.path, s.language, s.position, true);
  if (!r) {
    notes->push_back(std::string(side) + " " + kMethods[method] + " at " + s.path + ":" +
                     std::to_string(toDisplayLine(s.position.line)) + ": " + r.status().message());
    return out;
  }
  out.ok = true;
  out.ms = r->milliseconds;
  out.cold = r->cold;
  out.sites = answerSites(*r, method == 0);
  return out;
}

struct Run {
  const LiveBenchOptions& options;
  Engine& engine;
  LiveProvider& stat;
  LiveProvider& live;
  lsp::LiveBenchAnswer& out;
  std::function<void(const std::string&)> say;
  std::map<std::string, double> indexWaited;  // per backend command: clangd's background index time
};

// Starts both sides for a language: their start-up, first answers, clangd's background index.
bool startSides(Run& run, Language l, const Sample& first, lsp::LiveBenchLanguage& info) {
  auto t = Clock::now();
  Status s = run.stat.warmUp(l);
  info.staticStartMs = msSince(t);
  if (!s.isOk()) {
    run.out.notes.push_back(std::string(languageName(l)) + ": nib serve: " + s.message());
    return false;
  }
  if (run.out.staticFirstAnswerMs == 0) {
    (void)run.stat.definition(first.path, l, first.position);
    run.out.staticFirstAnswerMs = msSince(t);
  }
  t = Clock::now();
  s = run.live.warmUp(l);
  info.liveStartMs = msSince(t);
  if (!s.isOk()) {
    run.out.notes.push_back(std::string(languageName(l)) + ": " + s.message());
    return false;
  }
  auto primed = run.live.definition(first.path, l, first.position);
  info.liveFirstAnswerMs = msSince(t);
  if (primed) info.backend = primed->backend;
  bool clangd = l == Language::C || l == Language::Cpp;
  if (clangd && run.options.backgroundIndex) {
    std::string key;
    for (const std::string& a : run.live.settings().commands.at(l)) key += a + " ";
    if (!run.indexWaited.count(key)) {
      run.say(std::string(languageName(l)) + ": waiting for clangd's background index");
      auto w = Clock::now();
      // clangd reports its indexing as work-done progress; quiet for 5 s means done.
      run.live.waitForQuiet(l, std::chrono::milliseconds(5000), std::chrono::minutes(60));
      run.indexWaited[key] = std::max(0.0, msSince(w) - 5000);  // quiet already: no wait
    }
    info.backgroundIndexMs = run.indexWaited[key];
  }
  return true;
}

// One request to each side, the one asked first alternating, and the Engine in this process.
void measure(Run& run, const Sample& s, int method, size_t turn, Measured& x) {
  auto t = Clock::now();
  auto r = method == 0 ? run.engine.definition(s.path, s.offset) : run.engine.references(s.path, s.offset, true);
  x.engineMs = msSince(t);
  x.category = answerCategory(r);
  x.staticFirst = turn % 2 == 0;
  if (x.staticFirst) x.stat = ask(run.stat, s, method, &run.out.notes, "nib serve");
  x.live = ask(run.live, s, method, &run.out.notes, "live");
  if (!x.staticFirst) x.stat = ask(run.stat, s, method, &run.out.notes, "nib serve");
}

void runLanguage(Run& run, Language l, const std::vector<Sample>& samples, std::vector<Measured>& measured,
                 size_t files) {
  lsp::LiveBenchLanguage info;
  info.language = languageName(l);
  info.files = files;
  auto first = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.language == l; });
  if (first == samples.end() || !startSides(run, l, *first, info)) return;
  run.say(std::string(languageName(l)) + ": requests");
  size_t turn = 0;
  for (int m = 0; m < 2; ++m) {
    for (size_t i = 0; i < samples.size(); ++i) {
      if (samples[i].language != l) continue;
      info.samples += m == 0;
      measure(run, samples[i], m, turn++, measured[2 * i + m]);
    }
  }
  info.livePeakRssKiB = run.live.peakRssKiB();
  run.out.languages.push_back(info);
}

void addRequest(lsp::LiveBenchAnswer& out, const Sample& s, int method, const Measured& x, bool matched) {
  lsp::LiveBenchRequest& req = out.requests.emplace_back();
  req.language = languageName(s.language);
  req.method = kMethods[method];
  req.path = s.path;
  req.line = toDisplayLine(s.position.line);
  req.column = s.position.column + 1;
  req.category = x.category;
  req.staticFirst = x.staticFirst;
  req.liveAnswered = x.live.ok && !x.live.sites.empty();
  req.matched = matched;
  if (x.stat.ok) req.staticDigest = sitesDigest(x.stat.sites);
  if (x.live.ok) req.liveDigest = sitesDigest(x.live.sites);
  if (!matched) {
    req.staticOnly = sitesOnlyIn(x.stat.sites, x.live.sites, 8);
    req.liveOnly = sitesOnlyIn(x.live.sites, x.stat.sites, 8);
  }
  if (!matched && out.mismatches.size() < 60)
    out.mismatches.push_back(req.language + " " + req.method + " (" + x.category + ") at " + s.path + ":" +
                             std::to_string(req.line) + ":" + std::to_string(req.column) + (x.stat.ok ? "" : " static failed") +
                             (x.live.ok ? "" : " live failed") + " static [" + describeSites(x.stat.sites, 6) +
                             "] live [" + describeSites(x.live.sites, 6) + "]");
}

lsp::LiveBenchRow summarizeRow(lsp::LiveBenchAnswer& out, Language l, int method, const std::vector<Sample>& samples,
                               const std::vector<Measured>& measured,
                               std::map<std::string, lsp::LiveBenchCategory>& categories) {
  lsp::LiveBenchRow row;
  row.language = languageName(l);
  row.method = kMethods[method];
  size_t common = 0, staticTotal = 0, liveTotal = 0;
  std::vector<double> warm, cold, engineMs;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].language != l) continue;
    const Measured& x = measured[2 * i + method];
    bool matched = x.stat.ok && x.live.ok && x.stat.sites == x.live.sites;
    addRequest(out, samples[i], method, x, matched);
    ++row.requests;
    row.matched += matched;
    row.staticFailed += !x.stat.ok;
    row.liveFailed += !x.live.ok;
    row.liveEmpty += x.live.ok && x.live.sites.empty();
    row.bothEmpty += matched && x.live.sites.empty();
    engineMs.push_back(x.engineMs);
    if (x.stat.ok) row.staticMs.push_back(x.stat.ms);
    if (x.live.ok) row.liveMs.push_back(x.live.ms);
    lsp::LiveBenchCategory& c = categories[row.language + "\n" + row.method + "\n" + x.category];
    c.language = row.language, c.method = row.method, c.category = x.category;
    ++c.requests;
    c.matched += matched;
    if (!x.stat.ok || !x.live.ok || x.live.sites.empty()) continue;
    Sites both;
    std::set_intersection(x.stat.sites.begin(), x.stat.sites.end(), x.live.sites.begin(), x.live.sites.end(),
                          std::inserter(both, both.end()));
    common += both.size();
    staticTotal += x.stat.sites.size();
    liveTotal += x.live.sites.size();
    if (matched) (x.live.cold ? cold : warm).push_back(x.live.ms / std::max(x.stat.ms, 1e-3));
  }
  AgreementCount count{row.requests, row.matched, ""};
  row.matchRate = count.rate();
  std::tie(row.low, row.high) = count.interval();
  row.precision = staticTotal ? static_cast<double>(common) / static_cast<double>(staticTotal) : 0;
  row.recall = liveTotal ? static_cast<double>(common) / static_cast<double>(liveTotal) : 0;
  row.staticP50 = percentile(row.staticMs, 0.5);
  row.staticP95 = percentile(row.staticMs, 0.95);
  row.liveP50 = percentile(row.liveMs, 0.5);
  row.liveP95 = percentile(row.liveMs, 0.95);
  row.engineP50 = percentile(engineMs, 0.5);
  row.engineP95 = percentile(engineMs, 0.95);
  row.ratioWarm = percentile(warm, 0.5);
  row.ratioCold = percentile(cold, 0.5);
  row.warmMatched = warm.size();
  row.coldMatched = cold.size();
  return row;
}

void summarize(lsp::LiveBenchAnswer& out, const std::set<Language>& languages, const std::vector<Sample>& samples,
               const std::vector<Measured>& measured) {
  std::map<std::string, lsp::LiveBenchCategory> categories;
  for (Language l : languages)
    for (int m = 0; m < 2; ++m) out.rows.push_back(summarizeRow(out, l, m, samples, measured, categories));
  for (auto& [key, c] : categories) {
    std::tie(c.low, c.high) = AgreementCount{c.requests, c.matched, ""}.interval();
    out.categories.push_back(c);
  }
}

// The languages asked for (every one with a backend when none was), each with a backend.
Expected<std::set<Language>> languagesOf(const LiveBenchOptions& options) {
  std::set<Language> languages(options.languages.begin(), options.languages.end());
  if (languages.empty())
    for (const auto& [l, argv] : options.commands) languages.insert(l);
  for (Language l : languages)
    if (!options.commands.count(l))
      return Status(ErrorCode::InvalidArgument, std::string("no live backend is configured for ") + languageName(l));
  return languages;
}

LiveSettings sideSettings(const LiveBenchOptions& options, const fs::path& root) {
  LiveSettings settings;
  settings.root = root;
  settings.timeout = options.timeout;
  settings.startTimeout = std::chrono::milliseconds(120000);
  settings.maxOpenFiles = 1000;
  return settings;
}

}  // namespace

Expected<lsp::LiveBenchAnswer> runLiveBench(const LiveBenchOptions& options) {
  lsp::LiveBenchAnswer out;
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  auto engine = Engine::open(options.root);
  if (!engine) return engine.status();
  Engine& e = **engine;
  out.root = e.root().string();
  out.indexVersion = e.manifest().versionId;
  out.machine = machine();
  out.seed = options.seed;
  out.samplesPerLanguage = options.samples;
  for (const std::string& a : options.staticCommand) out.staticCommand += (out.staticCommand.empty() ? "" : " ") + a;
  auto languages = languagesOf(options);
  if (!languages) return languages.status();
  auto files = gitFiles(e.root());
  if (!files) return files.status();
  std::map<Language, size_t> fileCounts;
  std::vector<Sample> samples = sample(e.root(), *files, *languages, options, &fileCounts);
  if (samples.empty()) return Status(ErrorCode::NotFound, "no identifiers in the repository's files of the languages asked for");
  for (auto it = languages->begin(); it != languages->end();) {
    bool any = std::any_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.language == *it; });
    if (!any && !options.languages.empty()) out.notes.push_back(std::string("no ") + languageName(*it) + " files to sample");
    it = any ? std::next(it) : languages->erase(it);
  }
  say("sampled " + std::to_string(samples.size()) + " positions in " + std::to_string(languages->size()) + " language(s)");

  LiveSettings staticSettings = sideSettings(options, e.root());
  for (Language l : *languages) staticSettings.commands[l] = options.staticCommand;
  LiveSettings liveSettings = sideSettings(options, e.root());
  liveSettings.commands = options.commands;
  fs::path root = e.root();
  auto reader = [root](const std::string& p) { return readWorktreeFile(root, p); };
  LiveProvider stat(staticSettings, reader, [&](const std::string& m) { out.notes.push_back("nib serve: " + m); });
  LiveProvider live(liveSettings, reader, [&](const std::string& m) { out.notes.push_back(m); });
  std::vector<Measured> measured(samples.size() * 2);
  Run run{options, e, stat, live, out, say, {}};
  for (Language l : *languages) runLanguage(run, l, samples, measured, fileCounts[l]);
  out.staticPeakRssKiB = stat.peakRssKiB();
  summarize(out, *languages, samples, measured);
  return out;
}

}  // namespace nib
