// `nib bench live-vs-static`: the same definition and references requests sent, by one client
// over stdio, to `nib serve --provider static` and to the live backend, interleaved request by
// request (the side asked first alternates), at identifiers drawn from the files' text with a
// seed (support/CodeIdentifiers; the sampler never reads nib's index), every request counted (an
// empty answer is an answer, an error a mismatch), compared as (path, line, column) sets, per
// language, method and the index answer's category. The Engine is also asked in this process:
// its time is reported as in-engine, apart. Typed core only; the CLI renders.
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
  size_t samples = 100;  // positions per language
  size_t perFile = 5;    // positions drawn from one file at most
  uint64_t seed = 1;
  std::vector<Language> languages;  // empty: every indexed language with a backend
  std::map<Language, std::vector<std::string>> commands;  // the live backends
  std::vector<std::string> staticCommand;                 // `nib serve --provider static`
  std::chrono::milliseconds timeout{30000};
  // Give clangd its background index and wait for it before measuring: without it, clangd's
  // references cover the open files only.
  bool backgroundIndex = true;
  std::function<void(const std::string&)> progress;  // one line per phase
};

Expected<lsp::LiveBenchAnswer> runLiveBench(const LiveBenchOptions& options);

}  // namespace nib
