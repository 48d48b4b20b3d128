// Helpers of the precise view's tests (PreciseViewTests, PreciseProjectsTests): builds with the
// pinned SCIP indexers and the manifest's statistics.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "TestRepo.h"
#include "indexer/IndexBuilder.h"

namespace nib::test {

inline std::string stat(const Manifest& m, const std::string& key) {
  auto it = m.stats.find(key);
  return it == m.stats.end() ? "" : it->second;
}

inline std::map<std::string, std::filesystem::path> pinnedIndexers() {
  return {{"typescript", std::filesystem::path(NIB_BACKENDS_BIN) / "scip-typescript"},
          {"python", std::filesystem::path(NIB_BACKENDS_BIN) / "scip-python"}};
}

inline Manifest build(TestRepo& repo, IndexOptions options) {
  options.threads = 1;
  options.dense = false;
  auto report = buildIndex(repo.root(), options);
  INFO(report.status().toString());
  REQUIRE(report.hasValue());
  return report->manifest;
}

// A build with the pinned indexers whose precise view must be complete.
inline Manifest buildPrecise(TestRepo& repo) {
  IndexOptions options;
  options.scipIndexers = pinnedIndexers();
  Manifest m = build(repo, options);
  const ViewRecord* view = m.view("precise");
  REQUIRE(view);
  INFO(view->error << " / " << stat(m, "precise.failure.0"));
  REQUIRE(view->status == ViewStatus::Complete);
  return m;
}

}  // namespace nib::test
