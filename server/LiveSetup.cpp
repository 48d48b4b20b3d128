#include "server/LiveSetup.h"

#include <algorithm>
#include <cstdlib>

#include "support/CompilationDatabase.h"
#include "support/FileIo.h"
#include "support/ProjectConfig.h"
#include "views/IndexLayout.h"

namespace nib {
namespace fs = std::filesystem;

namespace {

// How the policy follows measured agreement, and how much the idle sampler may measure.
void calibrationSetup(const ProjectConfig& config, LiveSetup& setup, const std::function<void(const std::string&)>& warn) {
  if (auto v = config.getInt("calibration.threshold", 99, 1, 100)) setup.calibration.threshold = static_cast<double>(*v) / 100;
  else warn(v.status().message());
  if (auto v = config.getInt("calibration.min-samples", 20, 1, 1000000)) setup.calibration.minSamples = static_cast<uint64_t>(*v);
  else warn(v.status().message());
  if (auto v = config.getInt("calibration.samples-per-hour", 240, 0, 1000000)) setup.sampling.perHour = static_cast<uint32_t>(*v);
  else warn(v.status().message());
  if (auto v = config.getInt("calibration.idle-ms", 2000, 0, 3600000)) setup.sampling.idle = std::chrono::milliseconds(*v);
  else warn(v.status().message());
}

}  // namespace

// clangd answers references from its index of every file in the compilation database, not
// only the files it has open, when it runs its background index. clangd 14 writes that index
// under the folder of the database it was pointed at, so nib points it at `.nib/clangd/`, where
// a link names the repository's database: the index lands inside nib's own folder, never in
// the worktree nib watches. The default command only; one the user gave stays as given.
void giveClangdItsIndex(const fs::path& root, const IndexLayout& layout, const ProjectConfig* config,
                        LiveSettings& settings, const std::function<void(const std::string&)>& warn) {
  std::error_code ec;
  if (!fs::is_directory(layout.dir(), ec)) return;
  fs::path database = findCompilationDatabase(root, {}, config, warn);
  if (database.empty()) return;
  fs::path folder = layout.clangdDir();
  fs::path link = folder / "compile_commands.json";
  fs::path target = fs::absolute(database / "compile_commands.json", ec);
  fs::create_directories(folder, ec);
  if (fs::read_symlink(link, ec) != target) {
    fs::remove(link, ec);
    fs::create_symlink(target, link, ec);
    if (ec) {
      warn("clangd runs without its background index: cannot link " + link.string() + ": " + ec.message());
      return;
    }
  }
  const std::vector<std::string> plainClangd = defaultLiveCommands({})[Language::C];
  for (Language l : {Language::C, Language::Cpp}) {
    auto it = settings.commands.find(l);
    if (it == settings.commands.end() || it->second != plainClangd) continue;
    it->second = {"clangd", "--background-index", "--limit-references=0", "--log=error",
                  "--compile-commands-dir=" + folder.string()};
  }
}

LiveSetup liveSetup(const fs::path& root, const LiveSetupOptions& options,
                    const std::function<void(const std::string&)>& warn) {
  LiveSetup setup;
  LiveSettings& settings = setup.settings;
  settings.root = root;
  settings.commands = defaultLiveCommands(options.backendsBin);
  long long timeoutMs = 5000;
  std::string provider = options.provider;
  fs::path tracePath = options.traceLog;
  const fs::path indexDir = IndexLayout::forRepository(root).dir();
  auto config = ProjectConfig::load(root);
  giveClangdItsIndex(root, IndexLayout::forRepository(root), config ? &*config : nullptr, settings, warn);
  if (config) {
    for (const char* language : {"c", "cpp", "python", "javascript", "typescript"})
      if (auto v = config->get(std::string("live.") + language)) {
        if (!options.allowProjectCommands) {
          warn(std::string(".nib.conf's live.") + language + " is ignored: commands from the repository run only with " +
               "--allow-project-commands");
          continue;
        }
        Status s = parseLiveCommand(std::string(language) + "=" + *v, &settings.commands, options.backendsBin);
        if (!s.isOk()) warn(".nib.conf: " + s.message());
      }
    if (auto t = config->getInt("live.timeout-ms", timeoutMs, 50, 600000)) timeoutMs = *t;
    else warn(t.status().message());
    calibrationSetup(*config, setup, warn);
    if (provider.empty())
      if (auto v = config->get("provider")) provider = *v;
    if (tracePath.empty())
      if (auto v = config->get("live.trace-log")) {
        // Inside the repository only: the repository must not choose a file nib appends to.
        fs::path p = fs::path(*v).lexically_normal();
        if (p.is_absolute() || p.empty() || *p.begin() == "..")
          warn(".nib.conf's live.trace-log must be a path inside the repository; using .nib/trace.log");
        else
          tracePath = root / p;
      }
  } else {
    warn(config.status().message() + " (live backends use their defaults)");
  }
  // The user's own environment wins over the repository's file (tests turn sampling off).
  if (const char* v = std::getenv("NIB_CALIBRATION_SAMPLES_PER_HOUR"); v && *v) {
    char* end = nullptr;
    unsigned long n = std::strtoul(v, &end, 10);
    if (*end == '\0' && n <= 1000000) setup.sampling.perHour = static_cast<uint32_t>(n);
    else warn("NIB_CALIBRATION_SAMPLES_PER_HOUR must be a number from 0 to 1000000; it is ignored");
  }
  for (const std::string& spec : options.liveCommands) {
    Status s = parseLiveCommand(spec, &settings.commands, options.backendsBin);
    if (!s.isOk()) warn("--live: " + s.message());
  }
  if (options.liveTimeoutMs > 0) timeoutMs = options.liveTimeoutMs;
  settings.timeout = std::chrono::milliseconds(timeoutMs);
  // A backend that does not even initialize must not stall the first request for long either:
  // the three default backends initialize in well under a second.
  settings.startTimeout = std::chrono::milliseconds(std::max(timeoutMs, 2000LL));
  // The backends' stderr goes next to the index (never into a client's stream).
  if (fs::is_directory(indexDir)) settings.stderrPath = indexDir / "backends.log";
  setup.policy = options.fallbackPolicy;
  if (!provider.empty()) {
    if (auto p = parseProviderPolicy(provider)) setup.policy = *p;
    else warn(p.status().message() + "; using " + providerPolicyName(options.fallbackPolicy));
  }
  setup.tracePath = tracePath.empty() ? indexDir / "trace.log" : tracePath;
  return setup;
}

std::unique_ptr<LiveProvider> startLiveProvider(const fs::path& root, LiveSettings settings,
                                                std::function<void(const std::string&)> log) {
  return std::make_unique<LiveProvider>(
      std::move(settings), [root](const std::string& path) { return readWorktreeFile(root, path); }, std::move(log));
}

}  // namespace nib
