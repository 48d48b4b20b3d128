#include "indexer/HistoryMiner.h"

#include <algorithm>
#include <cctype>

#include "support/Binary.h"
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

namespace {

// The summaries' table; its name carries what decides a summary besides the commit (the path
// limit), so that a cache from other settings is not read.
const std::string kCacheTable = "commits-p" + std::to_string(HistoryMiner::kMaxPaths) + "-r1";

}  // namespace

Expected<std::unique_ptr<HistoryCache>> HistoryCache::open(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message());
  LmdbEnv::Options options;
  options.mapSize = size_t(1) << 32;
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, /*write=*/true);
  if (!txn) return txn.status();
  auto db = txn->openDb(kCacheTable.c_str(), true);
  if (!db) return db.status();
  return std::unique_ptr<HistoryCache>(new HistoryCache(std::move(*env), std::move(*txn), *db));
}

std::optional<CommitSummary> HistoryCache::recall(const std::string& oid) {
  visited_.insert(oid);
  auto v = txn_.get(db_, oid);
  if (!v) return std::nullopt;
  return decode(*v);
}

void HistoryCache::remember(const std::string& oid, const CommitSummary& summary) {
  visited_.insert(oid);
  if (Status s = txn_.put(db_, oid, encode(summary)); !s.isOk() && status_.isOk()) status_ = s;
}

Status HistoryCache::finish() {
  if (!status_.isOk()) {
    txn_.abort();
    return status_;
  }
  auto dropped = txn_.eraseIf(db_, [&](std::string_view key) { return !visited_.count(std::string(key)); });
  if (!dropped) {
    txn_.abort();
    return dropped.status();
  }
  return txn_.commit();
}

std::string HistoryCache::encode(const CommitSummary& summary) {
  ByteWriter w;
  w.u8(static_cast<uint8_t>(summary.kind));
  if (summary.kind == CommitSummary::Kind::Mined) {
    w.str(summary.commit.message.substr(0, HistoryMiner::kMaxMessageBytes));
    w.varint(summary.commit.paths.size());
    for (const std::string& p : summary.commit.paths) w.str(p);
  }
  w.varint(summary.renames.size());
  for (const HistoryRename& r : summary.renames) {
    w.str(r.from);
    w.str(r.to);
  }
  return w.data();
}

std::optional<CommitSummary> HistoryCache::decode(std::string_view bytes) {
  ByteReader r(bytes);
  CommitSummary s;
  uint8_t kind = r.u8();
  if (!r.ok() || kind > static_cast<uint8_t>(CommitSummary::Kind::Empty)) return std::nullopt;
  s.kind = static_cast<CommitSummary::Kind>(kind);
  if (s.kind == CommitSummary::Kind::Mined) {
    s.commit.message = std::string(r.str());
    uint64_t n = r.varint();
    if (!r.ok() || n > r.remaining()) return std::nullopt;
    for (uint64_t i = 0; i < n; ++i) s.commit.paths.emplace_back(r.str());
  }
  uint64_t renames = r.varint();
  if (!r.ok() || renames > r.remaining()) return std::nullopt;
  for (uint64_t i = 0; i < renames; ++i) {
    std::string from(r.str()), to(r.str());
    s.renames.push_back({std::move(from), std::move(to)});
  }
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return s;
}

}  // namespace nib
