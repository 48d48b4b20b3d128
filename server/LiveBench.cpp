#include "server/LiveBench.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include "server/Engine.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Text.h"

namespace nib {
namespace {
using Clock = std::chrono::steady_clock;
using Keys = LineKeys;

// A digest of a (path, line) set, equal for equal sets.
std::string keysDigest(const Keys& keys) {
  Digester d;
  for (const auto& [path, line] : keys) d.add(path).add(line);
  return d.hex();
}

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

uint64_t selfPeakRssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  return 0;
}

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

struct Sample {
  std::string path;
  Language language;
  Position position;
  uint32_t offset;
  bool definitionSite;
  uint64_t rank;
};

struct Measured {
  Keys staticKeys, liveKeys;
  double staticMs = 0, liveMs = 0;
  bool liveOk = false, cold = false;
  bool clang = false;  // the index answered from libclang's facts
};


// Positions sampled per language: for each kind of site, the `half` occurrences whose hash of
// (seed, path, offset) is smallest, so the sample is the same for the same index and seed and
// spread over the whole repository.
std::vector<Sample> sample(Engine& engine, const std::set<Language>& languages, size_t perLanguage, uint64_t seed,
                           std::map<Language, size_t>* files) {
  std::vector<Sample> all;
  std::vector<std::string> paths;
  std::map<std::string, Language> languageOf;
  engine.forEachFile([&](const FileRecord& f) {
    if (languages.count(f.language)) {
      paths.push_back(f.path);
      languageOf[f.path] = f.language;
      ++(*files)[f.language];
    }
    return true;
  });
  std::string seedText = std::to_string(seed);
  for (const std::string& path : paths) {
    auto facts = engine.facts(path);
    if (!facts) continue;
    for (const Occurrence& o : facts->occurrences) {
      if (o.role == OccurrenceRole::Declaration) continue;
      Sample s{path, languageOf[path], o.range.start, o.range.startByte, o.role == OccurrenceRole::Definition, 0};
      s.rank = digest64(seedText + "\n" + path + "\n" + std::to_string(s.offset));
      all.push_back(std::move(s));
    }
  }
  std::vector<Sample> chosen;
  for (Language l : languages)
    for (bool def : {true, false}) {
      std::vector<Sample> kind;
      for (const Sample& s : all)
        if (s.language == l && s.definitionSite == def) kind.push_back(s);
      size_t take = std::min(kind.size(), def ? perLanguage / 2 : perLanguage - perLanguage / 2);
      std::partial_sort(kind.begin(), kind.begin() + static_cast<long>(take), kind.end(),
                        [](const Sample& a, const Sample& b) { return a.rank < b.rank; });
      chosen.insert(chosen.end(), kind.begin(), kind.begin() + static_cast<long>(take));
    }
  // Requests go file by file (the first on a file is cold in the backend, the rest warm).
  std::sort(chosen.begin(), chosen.end(),
            [](const Sample& a, const Sample& b) { return a.path != b.path ? a.path < b.path : a.offset < b.offset; });
  return chosen;
}

}  // namespace

Expected<lsp::LiveBenchAnswer> runLiveBench(const LiveBenchOptions& options) {
  lsp::LiveBenchAnswer out;
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  auto begin = Clock::now();
  auto engine = Engine::open(options.root);
  if (!engine) return engine.status();
  Engine& e = **engine;
  out.root = e.root().string();
  out.indexVersion = e.manifest().versionId;
  out.machine = machine();
  out.seed = options.seed;
  out.samplesPerLanguage = options.samples;

  std::set<Language> languages(options.languages.begin(), options.languages.end());
  if (languages.empty())
    for (const auto& [l, argv] : options.commands) languages.insert(l);
  for (Language l : languages)
    if (!options.commands.count(l))
      return Status(ErrorCode::InvalidArgument, std::string("no live backend is configured for ") + languageName(l));
  std::map<Language, size_t> files;
  std::vector<Sample> samples = sample(e, languages, options.samples, options.seed, &files);
  if (samples.empty()) return Status(ErrorCode::NotFound, "the index has no occurrences in the languages asked for");
  // Only languages the repository has.
  for (auto it = languages.begin(); it != languages.end();) {
    bool any = std::any_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.language == *it; });
    if (!any && !options.languages.empty()) out.notes.push_back(std::string("no ") + languageName(*it) + " positions in the index");
    it = any ? std::next(it) : languages.erase(it);
  }
  say("sampled " + std::to_string(samples.size()) + " positions in " + std::to_string(files.size()) + " language(s)");

  // The static side first, in this process: its peak memory is measured before any backend runs.
  std::vector<Measured> measured(samples.size() * 2);
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    for (int m = 0; m < 2; ++m) {
      auto t = Clock::now();
      auto r = m == 0 ? e.definition(s.path, s.offset) : e.references(s.path, s.offset, true);
      Measured& x = measured[2 * i + m];
      x.staticMs = msSince(t);
      if (i == 0 && m == 0) out.staticFirstAnswerMs = msSince(begin);
      if (r) {
        x.clang = r->source == "clang";
        for (const SymbolLocation& l : r->locations) x.staticKeys.insert({l.path, l.range.start.line});
      }
    }
  }
  out.staticPeakRssKiB = selfPeakRssKiB();
  say("static side done");

  LiveSettings settings;
  settings.root = e.root();
  settings.commands = options.commands;
  settings.timeout = options.timeout;
  settings.startTimeout = std::chrono::milliseconds(120000);
  settings.maxOpenFiles = 1000;
  // clangd gets its background index (unless asked not to) and answers references whole: it
  // stops at 1,000 by default.
  for (Language l : {Language::C, Language::Cpp}) {
    auto it = settings.commands.find(l);
    if (it == settings.commands.end() || it->second.empty()) continue;
    for (std::string& a : it->second) {
      if (options.backgroundIndex && a == "--background-index=false") a = "--background-index";
      if (!options.backgroundIndex && a == "--background-index") a = "--background-index=false";
    }
    bool limited = std::find(it->second.begin(), it->second.end(), "--limit-references=0") == it->second.end();
    if (std::filesystem::path(it->second[0]).filename() == "clangd" && limited) it->second.push_back("--limit-references=0");
  }
  std::filesystem::path root = e.root();
  LiveProvider live(settings, [root](const std::string& p) { return readWorktreeFile(root, p); },
                    [&](const std::string& m) { out.notes.push_back(m); });

  std::map<std::string, double> indexWaited;  // per backend command: the background index's time
  for (Language l : languages) {
    lsp::LiveBenchLanguage info;
    info.language = languageName(l);
    info.files = files[l];
    auto first = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.language == l; });
    if (first == samples.end()) continue;
    auto t = Clock::now();
    Status started = live.warmUp(l);
    info.liveStartMs = msSince(t);
    if (!started.isOk()) {
      out.notes.push_back(std::string(languageName(l)) + ": " + started.message());
      continue;
    }
    // The first answer (cold): the time a user waits after the backend starts.
    auto primed = live.definition(first->path, l, first->position);
    info.liveFirstAnswerMs = msSince(t);
    if (primed) info.backend = primed->backend;
    std::string key;
    for (const std::string& a : settings.commands[l]) key += a + " ";
    bool clangd = l == Language::C || l == Language::Cpp;
    if (clangd && options.backgroundIndex) {
      if (!indexWaited.count(key)) {
        say(std::string(languageName(l)) + ": waiting for clangd's background index");
        auto w = Clock::now();
        // clangd reports its indexing as work-done progress; quiet for 5 s means done.
        live.waitForQuiet(l, std::chrono::milliseconds(5000), std::chrono::minutes(60));
        indexWaited[key] = msSince(w) - 5000;
      }
      info.backgroundIndexMs = indexWaited[key];
    }
    say(std::string(languageName(l)) + ": live requests");
    // Definitions first, with only the sampled files opened (as an editor would have them).
    // clangd then sees the files no compile command reaches — it knows a file's references
    // only once it has parsed it, and keeps them after — so that references compare the whole
    // repository on both sides, whatever order the samples came in. It also opens the files
    // that are one unit's main file and that another unit #includes: clangd's background index
    // keeps one unit's view of such a file, whichever its random order of units let write it
    // last, and answers differently from run to run; an open file is answered from its own
    // parse, the same every time (and what the index describes it by).
    for (int m = 0; m < 2; ++m) {
      if (m == 1 && clangd && options.backgroundIndex) {
        std::vector<std::string> uncompiled, shared;
        for (const std::string& p : e.clangInterpolatedFiles())
          if (auto r = e.fileRecord(p); r && r->language == l) uncompiled.push_back(p);
        for (const std::string& p : e.clangSharedMainFiles())
          if (auto r = e.fileRecord(p); r && r->language == l) shared.push_back(p);
        say(std::string(languageName(l)) + ": opening " + std::to_string(uncompiled.size()) +
            " file(s) no compile command reaches and " + std::to_string(shared.size()) +
            " main file(s) another unit includes");
        info.openedUncompiled = uncompiled.size();
        info.openedShared = shared.size();
        uncompiled.insert(uncompiled.end(), shared.begin(), shared.end());
        auto w = Clock::now();
        for (const std::string& p : uncompiled) (void)live.definition(p, l, Position{0, 0});
        info.openUncompiledMs = msSince(w);
      }
      for (size_t i = 0; i < samples.size(); ++i) {
        const Sample& s = samples[i];
        if (s.language != l) continue;
        info.samples += m == 0;
        Measured& x = measured[2 * i + m];
        auto r = m == 0 ? live.definition(s.path, l, s.position) : live.references(s.path, l, s.position, true);
        if (!r) {
          out.notes.push_back(std::string(m == 0 ? "definition" : "references") + " at " + s.path + ":" +
                              std::to_string(toDisplayLine(s.position.line)) + ": " + r.status().message());
          continue;
        }
        x.liveOk = true;
        x.liveMs = r->milliseconds;
        x.cold = r->cold;
        for (const LiveLocation& loc : r->locations) {
          // Locations outside the repository (system headers) are left out of the comparison.
          if (loc.inWorkspace) x.liveKeys.insert({loc.path, loc.range.start.line});
        }
      }
    }
    info.livePeakRssKiB = live.peakRssKiB();
    out.languages.push_back(info);
  }

  // Rows: per language and method.
  for (Language l : languages)
    for (int m = 0; m < 2; ++m) {
      lsp::LiveBenchRow row;
      row.language = languageName(l);
      row.method = m == 0 ? "definition" : "references";
      size_t common = 0, staticTotal = 0, liveTotal = 0;
      std::vector<double> warm, cold, staticMs, liveMs;
      for (size_t i = 0; i < samples.size(); ++i) {
        if (samples[i].language != l) continue;
        const Measured& x = measured[2 * i + m];
        lsp::LiveBenchRequest& req = out.requests.emplace_back();
        req.language = row.language;
        req.method = row.method;
        req.path = samples[i].path;
        req.line = toDisplayLine(samples[i].position.line);
        req.column = samples[i].position.column + 1;
        req.clang = x.clang;
        req.staticDigest = keysDigest(x.staticKeys);
        if (x.liveOk) req.liveDigest = keysDigest(x.liveKeys);
        req.liveAnswered = x.liveOk && !x.liveKeys.empty();
        req.matched = req.liveAnswered && x.staticKeys == x.liveKeys;
        ++row.requests;
        row.staticMs.push_back(x.staticMs);
        staticMs.push_back(x.staticMs);
        if (!x.liveOk) {
          ++row.liveFailed;
          continue;
        }
        row.liveMs.push_back(x.liveMs);
        liveMs.push_back(x.liveMs);
        if (x.liveKeys.empty()) {
          ++row.liveEmpty;
          continue;
        }
        ++row.liveAnswered;
        const bool equal = req.matched;
        if (samples[i].definitionSite) row.answeredAtDefinitions++, row.matchedAtDefinitions += equal;
        else row.answeredAtReferences++, row.matchedAtReferences += equal;
        if (x.clang) row.answeredFromClang++, row.matchedFromClang += equal;
        Keys both;
        std::set_intersection(x.staticKeys.begin(), x.staticKeys.end(), x.liveKeys.begin(), x.liveKeys.end(),
                              std::inserter(both, both.end()));
        common += both.size();
        staticTotal += x.staticKeys.size();
        liveTotal += x.liveKeys.size();
        if (equal) {
          ++row.matched;
          (x.cold ? cold : warm).push_back(x.liveMs / std::max(x.staticMs, 1e-3));
        } else if (out.mismatches.size() < 60) {
          out.mismatches.push_back(row.language + " " + row.method + (x.clang ? " (clang)" : "") + " at " + samples[i].path + ":" +
                                   std::to_string(toDisplayLine(samples[i].position.line)) + ":" +
                                   std::to_string(samples[i].position.column + 1) + " static-only [" +
                                   describeLines(linesOnlyIn(x.staticKeys, x.liveKeys), 6, "-") + "] live-only [" +
                                   describeLines(linesOnlyIn(x.liveKeys, x.staticKeys), 6, "-") + "]");
        }
      }
      row.matchRate = row.liveAnswered ? static_cast<double>(row.matched) / static_cast<double>(row.liveAnswered) : 0;
      row.precision = staticTotal ? static_cast<double>(common) / static_cast<double>(staticTotal) : 0;
      row.recall = liveTotal ? static_cast<double>(common) / static_cast<double>(liveTotal) : 0;
      row.staticP50 = percentile(staticMs, 0.5);
      row.staticP95 = percentile(staticMs, 0.95);
      row.liveP50 = percentile(liveMs, 0.5);
      row.liveP95 = percentile(liveMs, 0.95);
      row.ratioWarm = percentile(warm, 0.5);
      row.ratioCold = percentile(cold, 0.5);
      row.warmMatched = warm.size();
      row.coldMatched = cold.size();
      out.rows.push_back(std::move(row));
    }
  return out;
}

}  // namespace nib
