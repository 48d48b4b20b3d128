#include "server/LiveSetup.h"

#include <algorithm>

#include "support/FileIo.h"
#include "support/ProjectConfig.h"
#include "views/IndexLayout.h"

namespace nib {
namespace fs = std::filesystem;

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
  if (auto config = ProjectConfig::load(root)) {
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
