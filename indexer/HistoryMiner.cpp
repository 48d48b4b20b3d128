#include "indexer/HistoryMiner.h"

#include <algorithm>
#include <cctype>

#include "support/SearchText.h"

namespace nib {
namespace {

// A trailer line (`Signed-off-by: A <a@b>`, `Reviewed-by:`, `Co-authored-by:`): names and
// addresses, not what changed.
bool isTrailer(std::string_view line) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon < 4) return false;
  std::string_view key = line.substr(0, colon);
  if (key.size() < 3 || key.substr(key.size() - 3) != "-by") return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '-'; });
}

}  // namespace

std::vector<std::string> HistoryMiner::messageTerms(std::string_view message) {
  message = message.substr(0, std::min(message.size(), kMaxMessageBytes));
  std::vector<std::string> terms;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string_view::npos) end = message.size();
    std::string_view line = message.substr(start, end - start);
    if (!isTrailer(line)) forEachToken(line, [&](std::string_view t) { terms.emplace_back(t); });
    start = end + 1;
  }
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  return terms;
}

HistoryData HistoryMiner::mine(const HistoryWalk& walk, const std::vector<std::string>& currentPaths) {
  HistoryData out;
  out.visited = walk.visited;
  // Paths first by their index in `currentPaths`, renumbered densely (in path order) at the end.
  std::vector<std::pair<std::vector<std::string>, std::vector<size_t>>> mined;
  std::vector<bool> reached(currentPaths.size(), false);
  for (const HistoryCommit& c : walk.commits) {
    std::vector<size_t> files;
    for (const std::string& p : c.paths) {
      auto it = std::lower_bound(currentPaths.begin(), currentPaths.end(), p);
      if (it != currentPaths.end() && *it == p) files.push_back(static_cast<size_t>(it - currentPaths.begin()));
    }
    if (files.empty()) continue;
    std::vector<std::string> terms = messageTerms(c.message);
    if (terms.empty()) continue;
    for (size_t f : files) reached[f] = true;
    mined.emplace_back(std::move(terms), std::move(files));
  }
  std::vector<uint32_t> idOf(currentPaths.size(), 0);
  for (size_t i = 0; i < currentPaths.size(); ++i)
    if (reached[i]) {
      idOf[i] = static_cast<uint32_t>(out.files.size());
      out.files.push_back(currentPaths[i]);
    }
  for (auto& [terms, files] : mined) {
    HistoryData::Commit c;
    c.terms = std::move(terms);
    for (size_t f : files) c.files.push_back(idOf[f]);
    std::sort(c.files.begin(), c.files.end());
    c.files.erase(std::unique(c.files.begin(), c.files.end()), c.files.end());
    out.commits.push_back(std::move(c));
  }
  return out;
}

}  // namespace nib
