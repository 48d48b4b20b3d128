// The freshness check itself, in one process: the current version's worktree snapshot compared
// with the disk (a stat of every file, hashing those whose stat data changed), as a fresh
// comparison without a hash cache (what a `nib status` process does) and as the server repeats
// it after an event (with the hash cache of its earlier comparisons, so only newly changed
// files are hashed). With EDIT (a repository path), also the server's check after one save:
// each run appends a line to EDIT, then compares again looking only at EDIT's folder (what the
// inotify watcher reports), with the hash cache. Prints the median and p95 of each in
// milliseconds, and what the last comparison saw.
// Usage: nib_freshness_check REPO [RUNS] [EDIT]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "views/IndexLayout.h"
#include "views/VersionDelta.h"
#include "views/WorktreeSnapshot.h"

using namespace nib;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s REPO [RUNS]\n", argv[0]);
    return 2;
  }
  std::filesystem::path root = argv[1];
  int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  IndexLayout layout = IndexLayout::forRepository(root);
  auto manifest = layout.currentManifest();
  if (!manifest) {
    std::fprintf(stderr, "%s\n", manifest.status().message().c_str());
    return 1;
  }
  auto recorded = recordedWorktree(layout.versionDir(manifest->versionId), *manifest);
  if (!recorded) {
    std::fprintf(stderr, "%s\n", recorded.status().message().c_str());
    return 1;
  }
  auto time = [&](WorktreeHashCache* cache, WorktreeComparison* last) {
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      auto t = std::chrono::steady_clock::now();
      *last = compareWorktree(root, recorded->snapshot, cache);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(ms.begin(), ms.end());
    return std::make_pair(ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)]);
  };
  WorktreeComparison cmp;
  auto fresh = time(nullptr, &cmp);
  WorktreeHashCache cache;
  (void)compareWorktree(root, recorded->snapshot, &cache);  // the server's first comparison
  auto cached = time(&cache, &cmp);
  std::pair<double, double> event{0, 0};
  if (argc > 3) {
    std::string edit = argv[3];
    std::vector<std::string> folders{edit.find('/') == std::string::npos ? "" : edit.substr(0, edit.rfind('/'))};
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      std::ofstream(root / edit, std::ios::app) << "\n";
      auto t = std::chrono::steady_clock::now();
      cmp = compareWorktree(root, recorded->snapshot, &cache, &cmp, &folders);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(ms.begin(), ms.end());
    event = {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)]};
  }
  std::printf("{\"files\": %zu, \"changed\": %zu, \"deleted\": %zu, \"conclusive\": %s, "
              "\"freshMedianMs\": %.3f, \"freshP95Ms\": %.3f, \"cachedMedianMs\": %.3f, \"cachedP95Ms\": %.3f, "
              "\"afterSaveMedianMs\": %.3f, \"afterSaveP95Ms\": %.3f}\n",
              recorded->snapshot.files.size(), cmp.changed.size(), cmp.deleted.size(), cmp.conclusive ? "true" : "false",
              fresh.first, fresh.second, cached.first, cached.second, event.first, event.second);
  return 0;
}
