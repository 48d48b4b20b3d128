#include "indexer/UnitViews.h"

#include <algorithm>
#include <functional>

#include "indexer/HeaderConditions.h"
#include "support/FileIo.h"
#include "views/FileFacts.h"

namespace nib {

ByteRanges intersectRanges(const ByteRanges& a, const ByteRanges& b) {
  ByteRanges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second ? i : j)++;
  }
  return out;
}

ByteRanges subtractRanges(const ByteRanges& a, const ByteRanges& b) {
  ByteRanges out;
  size_t j = 0;
  for (auto [start, end] : a) {
    while (j < b.size() && b[j].second <= start) ++j;
    for (size_t k = j; k < b.size() && b[k].first < end; ++k) {
      if (b[k].first > start) out.emplace_back(start, b[k].first);
      start = std::max(start, b[k].second);
    }
    if (start < end) out.emplace_back(start, end);
  }
  return out;
}

ByteRanges uniteRanges(const ByteRanges& a, const ByteRanges& b) {
  ByteRanges all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  ByteRanges out;
  for (const auto& r : all) {
    if (!out.empty() && r.first <= out.back().second) out.back().second = std::max(out.back().second, r.second);
    else out.push_back(r);
  }
  return out;
}

void UnitViews::add(const TuFacts& facts, const std::vector<std::string>& paths, const std::set<std::string>& mainFiles,
                    const std::vector<uint64_t>& usrHashes, const std::string& own) {
  std::vector<uint64_t> digest(paths.size(), 0);
  std::vector<bool> bodies(paths.size(), false);
  for (uint32_t k : facts.bodiesParsed)
    if (k < paths.size()) bodies[k] = true;
  // The main files this unit reads, its own among them, whose sites are compared one by one.
  std::vector<MainFileView*> mainViews(paths.size(), nullptr);
  for (size_t k = 0; k < paths.size(); ++k) {
    if (paths[k].empty() || !compared_.count(paths[k])) continue;
    MainFile& m = mainFiles_[paths[k]];
    if (paths[k] == own) mainViews[k] = &m.own.emplace();
    else if (bodies[k]) mainViews[k] = &m.includers.emplace_back();
  }
  for (const ClangOccurrence& o : facts.occurrences) {
    if (o.file >= paths.size() || paths[o.file].empty()) continue;
    // A macro's definition or a prototype's parameter is no part of a view: a unit reports a
    // header's only where its session had not (TuFacts::sitesLeftOut), and what the
    // preprocessor left out of a file is compared apart.
    if (o.role != ClangRole::Reference && reportedOnce(facts, o)) continue;
    const uint64_t site = siteDigest(usrHashes[o.usr] | 1, o.offset, o.role);
    digest[o.file] += site;
    if (mainViews[o.file]) mainViews[o.file]->sites.emplace_back(o.offset, site);
  }
  // A header's macro expansions an earlier unit of the session reported count as this unit's.
  for (const auto& [file, part] : facts.expansionsLeftOut)
    if (file < digest.size()) digest[file] += part;
  std::vector<ByteRanges> skipped(paths.size());
  for (const ClangSkipped& k : facts.skipped)
    if (k.file < paths.size()) skipped[k.file].emplace_back(k.start, k.end);
  for (size_t k = 0; k < paths.size(); ++k) {
    if (MainFileView* view = mainViews[k]) {
      std::sort(view->sites.begin(), view->sites.end());
      view->sites.erase(std::unique(view->sites.begin(), view->sites.end()), view->sites.end());
      view->skipped = uniteRanges(skipped[k], {});
    }
    if (paths[k].empty() || mainFiles.count(paths[k])) continue;
    File& file = files_[paths[k]];
    ByteRanges own = uniteRanges(skipped[k], {});
    file.skippedBySome = uniteRanges(file.skippedBySome, own);
    file.skippedByAll = file.seen ? intersectRanges(file.skippedByAll, own) : own;
    file.seen = true;
    file.sites[bodies[k]].insert(digest[k]);
    ++file.readers;
    for (const auto& [start, end] : own) {
      ++file.skipEdges[start];
      --file.skipEdges[end];
    }
  }
}

std::vector<std::pair<std::string, ByteRanges>> UnitViews::minority() const {
  std::vector<std::pair<std::string, ByteRanges>> out;
  for (const auto& [path, file] : files_) {
    ByteRanges few;
    int32_t skips = 0;
    uint32_t from = 0;
    for (const auto& [at, delta] : file.skipEdges) {
      const auto kept = static_cast<int64_t>(file.readers) - skips;
      if (skips > 0 && at > from && kept > 0 && 2 * kept < static_cast<int64_t>(file.readers)) {
        if (!few.empty() && few.back().second == from) few.back().second = at;
        else few.emplace_back(from, at);
      }
      skips += delta;
      from = at;
    }
    if (!few.empty()) out.emplace_back(path, std::move(few));
  }
  return out;
}

std::vector<std::pair<std::string, ByteRanges>> UnitViews::finish(const std::string& root) const {
  std::vector<std::pair<std::string, ByteRanges>> out;
  for (const auto& [path, file] : files_) {
    if (file.sites[0].size() > 1 || file.sites[1].size() > 1) {
      auto text = readFile(root + path);
      if (text && !directivesOf(*text).guarded) {
        out.emplace_back(path, ByteRanges{{0, UINT32_MAX}});
        continue;
      }
    }
    ByteRanges some = subtractRanges(file.skippedBySome, file.skippedByAll);
    if (!some.empty()) out.emplace_back(path, std::move(some));
  }
  for (const auto& [path, file] : mainFiles_) {
    if (!file.own || file.includers.empty()) continue;
    ByteRanges differing;
    for (const MainFileView& other : file.includers) {
      std::vector<std::pair<uint32_t, uint64_t>> apart;
      std::set_symmetric_difference(file.own->sites.begin(), file.own->sites.end(), other.sites.begin(), other.sites.end(),
                                    std::back_inserter(apart));
      ByteRanges at;
      for (const auto& [offset, site] : apart)
        if (at.empty() || at.back().first != offset) at.emplace_back(offset, offset + 1);
      differing = uniteRanges(differing, at);
      differing = uniteRanges(differing, subtractRanges(file.own->skipped, other.skipped));
      differing = uniteRanges(differing, subtractRanges(other.skipped, file.own->skipped));
    }
    if (!differing.empty()) out.emplace_back(path, std::move(differing));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nib
