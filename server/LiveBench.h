// `nib bench live-vs-static`: the same definition and references requests sent to the static
// provider (the index, through the Engine) and to the live backend (through LiveProvider), at
// positions sampled deterministically from the index (definition sites and reference sites),
// compared as (repository path, start line) sets and timed. Typed core only; the CLI renders.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "protocol/LspTypes.h"
#include "providers/LiveProvider.h"
#include "support/Language.h"
#include "support/Status.h"

namespace nib {

struct LiveBenchOptions {
  std::filesystem::path root;
  size_t samples = 100;  // positions per language (half definition sites, half reference sites)
  uint64_t seed = 1;
  std::vector<Language> languages;  // empty: every indexed language with a backend
  std::map<Language, std::vector<std::string>> commands;  // the live backends
  std::chrono::milliseconds timeout{30000};
  // Give clangd its background index (written to R/.cache/clangd) and wait for it before
  // measuring: without it, clangd's references cover the open files only.
  bool backgroundIndex = true;
  std::function<void(const std::string&)> progress;  // one line per phase
};

Expected<lsp::LiveBenchAnswer> runLiveBench(const LiveBenchOptions& options);

}  // namespace nib
