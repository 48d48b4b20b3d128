#include "views/TuFactsMainFile.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace nib {
namespace {

// Ids of `main`'s files and USRs in `whole`, adding those `whole` lacks.
struct IdMap {
  std::vector<uint32_t> files, usrs;

  IdMap(TuFacts& whole, const TuFacts& main) {
    std::unordered_map<std::string, uint32_t> fileIds, usrIds;
    for (uint32_t i = 0; i < whole.files.size(); ++i) fileIds.emplace(whole.files[i], i);
    for (uint32_t i = 0; i < whole.usrs.size(); ++i) usrIds.emplace(whole.usrs[i], i);
    for (const std::string& path : main.files) {
      auto [it, added] = fileIds.emplace(path, static_cast<uint32_t>(whole.files.size()));
      if (added) whole.files.push_back(path);
      files.push_back(it->second);
    }
    for (size_t i = 0; i < main.usrs.size(); ++i) {
      auto [it, added] = usrIds.emplace(main.usrs[i], static_cast<uint32_t>(whole.usrs.size()));
      if (added) {
        whole.usrs.push_back(main.usrs[i]);
        whole.names.push_back(i < main.names.size() ? main.names[i] : std::string());
      }
      usrs.push_back(it->second);
    }
  }
};

// Adds `main`'s (a, b) pairs of USRs to `whole`'s, each once.
void unite(std::vector<std::pair<uint32_t, uint32_t>>& whole, const std::vector<std::pair<uint32_t, uint32_t>>& main,
           const IdMap& ids) {
  std::set<std::pair<uint32_t, uint32_t>> seen(whole.begin(), whole.end());
  for (const auto& [a, b] : main)
    if (a < ids.usrs.size() && b < ids.usrs.size() && seen.insert({ids.usrs[a], ids.usrs[b]}).second)
      whole.emplace_back(ids.usrs[a], ids.usrs[b]);
}

}  // namespace

void layMainFile(TuFacts& whole, const TuFacts& main, const std::string& mainPath) {
  auto idOf = [&](const TuFacts& facts) {
    auto it = std::find(facts.files.begin(), facts.files.end(), mainPath);
    return it == facts.files.end() ? std::optional<uint32_t>() : static_cast<uint32_t>(it - facts.files.begin());
  };
  const std::optional<uint32_t> from = idOf(main);
  if (!from) return;  // the second parse saw nothing of the main file
  const IdMap ids(whole, main);
  const uint32_t to = ids.files[*from];
  std::erase_if(whole.occurrences, [&](const ClangOccurrence& o) { return o.file == to; });
  for (ClangOccurrence o : main.occurrences) {
    if (o.file != *from || o.usr >= ids.usrs.size()) continue;
    o.file = to;
    o.usr = ids.usrs[o.usr];
    if (o.container >= 0)
      o.container = static_cast<size_t>(o.container) < ids.usrs.size() ? static_cast<int32_t>(ids.usrs[o.container]) : -1;
    whole.occurrences.push_back(o);
  }
  std::erase_if(whole.skipped, [&](const ClangSkipped& s) { return s.file == to; });
  for (ClangSkipped s : main.skipped)
    if (s.file == *from) s.file = to, whole.skipped.push_back(s);
  // The main file's #includes as the second parse entered them (the first entered no system
  // header after its fatal error), and what those headers included in turn.
  std::erase_if(whole.inclusions, [&](const ClangInclusion& i) { return i.includer == to; });
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> included;
  for (const ClangInclusion& i : whole.inclusions) included.insert({i.includer, i.offset, i.included});
  for (ClangInclusion i : main.inclusions) {
    if (i.includer >= ids.files.size() || i.included >= ids.files.size()) continue;
    i.includer = ids.files[i.includer];
    i.included = ids.files[i.included];
    if (included.insert({i.includer, i.offset, i.included}).second) whole.inclusions.push_back(i);
  }
  unite(whole.bases, main.bases, ids);
  unite(whole.overrides, main.overrides, ids);
  unite(whole.types, main.types, ids);
  unite(whole.specializations, main.specializations, ids);
  std::set<uint32_t> opened(whole.openedOutside.begin(), whole.openedOutside.end());
  for (uint32_t u : main.openedOutside)
    if (u < ids.usrs.size() && opened.insert(ids.usrs[u]).second) whole.openedOutside.push_back(ids.usrs[u]);
  // Entities the second parse named that the first did not look up (it stopped at a fatal error).
  std::set<uint32_t> targeted;
  for (const ClangOutsideTarget& t : whole.outsideTargets) targeted.insert(t.usr);
  for (ClangOutsideTarget t : main.outsideTargets)
    if (t.usr < ids.usrs.size() && targeted.insert(ids.usrs[t.usr]).second) {
      t.usr = ids.usrs[t.usr];
      whole.outsideTargets.push_back(std::move(t));
    }
  whole.errors = main.errors;
}

}  // namespace nib
