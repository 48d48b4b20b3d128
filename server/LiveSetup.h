// The live backends' settings for a repository, from a front door's options and the
// repository's `.nib.conf`: the commands per language (defaults, then the configuration's when
// allowed, then the options'), the request timeout, where the backends' stderr and the trace
// log go, and the provider policy. Shared by `nib serve`, `nib def/refs --provider` and
// `nib mcp`, so that all three start the same backends under the same rules.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "providers/Agreement.h"
#include "providers/LiveProvider.h"
#include "server/AgreementSampler.h"

namespace nib {

struct LiveSetupOptions {
  // The policy asked for: "" = .nib.conf's `provider`, else `fallbackPolicy`.
  std::string provider;
  ProviderPolicy fallbackPolicy = ProviderPolicy::Auto;
  std::vector<std::string> liveCommands;  // "LANGUAGE=COMMAND", over the defaults and .nib.conf
  long long liveTimeoutMs = 0;            // 0: .nib.conf's live.timeout-ms, else 5000
  std::filesystem::path backendsBin;      // the pinned typescript-language-server's folder
  std::filesystem::path traceLog;         // "" = .nib.conf's live.trace-log, else <root>/.nib/trace.log
  // A repository's own configuration must not make nib run its programs by merely being opened:
  // its live.* commands are used only when the user allows it (as direnv or a workspace trust
  // prompt would ask).
  bool allowProjectCommands = false;
};

struct LiveSetup {
  LiveSettings settings;
  ProviderPolicy policy = ProviderPolicy::Auto;
  std::filesystem::path tracePath;
  CalibrationSettings calibration;  // .nib.conf's calibration.threshold and .min-samples
  SamplerSettings sampling;         // .nib.conf's calibration.samples-per-hour and .idle-ms
};

// `warn` receives each setting that was refused or could not be read (the setup goes on with
// the defaults).
LiveSetup liveSetup(const std::filesystem::path& root, const LiveSetupOptions& options,
                    const std::function<void(const std::string&)>& warn);

// A LiveProvider over the setup's backends, reading repository files from the worktree.
std::unique_ptr<LiveProvider> startLiveProvider(const std::filesystem::path& root, LiveSettings settings,
                                                std::function<void(const std::string&)> log);

}  // namespace nib
