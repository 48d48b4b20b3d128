// Helpers shared by the clang view's tests (ClangIndexTests.cpp, ClangMadeUpUnitsTests.cpp): a
// compilation database, a build with the worker built next to `nib`, the manifest's stats.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "views/ClangView.h"
#include "views/IndexLayout.h"

// A namespace of their own: inline names are one across the test binary (LspProject.h has its
// own kMain, PreciseTesting.h its own build).
namespace nib::test::clangview {
namespace fs = std::filesystem;

inline const char* kHeader = "int shared(int x);\nstatic inline int twice(int x) { return shared(x) * 2; }\n";
inline const char* kShared = "#include \"shared.h\"\nint shared(int x) { return x + 1; }\n";
inline const char* kMain = "#include \"shared.h\"\nint main(void) { return twice(shared(1)); }\n";

inline void writeDatabase(TestRepo& repo, const std::vector<std::string>& files, const std::string& extra = "") {
  std::string db = "[";
  for (const std::string& f : files)
    db += std::string(db.size() > 1 ? "," : "") + "{\"directory\":\"" + repo.root().string() + "\",\"file\":\"" + f +
          "\",\"command\":\"cc " + extra + " -c " + f + "\"}";
  repo.write("compile_commands.json", db + "]");
}

inline Manifest build(TestRepo& repo, IndexOptions options = {}, bool allowDelta = false) {
  ::setenv("NIB_CLANG_WORKER", NIB_CLANG_WORKER_PATH, 1);
  if (options.threads == 0) options.threads = 2;
  options.dense = false;
  // Unless asked, every build runs the clang view's own update (its cache), not a delta over
  // the last one.
  if (!allowDelta) options.deltaBudget = 0;
  auto r = buildIndex(repo.root(), options);
  INFO(r.status().toString());
  REQUIRE(r.hasValue());
  return r->manifest;
}

inline std::string stat(const Manifest& m, const std::string& key) {
  auto it = m.stats.find(key);
  return it == m.stats.end() ? "" : it->second;
}

// A stand-in for nib-clang under .git/ (never indexed): fault injection for the builder.
inline fs::path writeWorker(TestRepo& repo, const std::string& name, const std::string& script) {
  repo.write(".git/" + name, script);
  fs::path worker = repo.root() / ".git" / name;
  fs::permissions(worker, fs::perms::owner_all);
  return worker;
}

// The clang view of the repository's current version.
inline Expected<std::unique_ptr<ClangView>> currentClangView(TestRepo& repo) {
  IndexLayout layout(repo.root() / ".nib");
  auto current = layout.currentVersion();
  if (!current) return current.status();
  return ClangView::open(layout.versionDir(*current) / "clang");
}

inline uint32_t offsetOf(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return static_cast<uint32_t>(at);
}

}  // namespace nib::test::clangview
