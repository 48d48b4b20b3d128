#include "views/HistoryView.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "support/Binary.h"

namespace nib {
namespace {

constexpr size_t kMaxTerm = 400;  // LMDB keys are limited to 511 bytes
// A translation's probability is kept in 16 bits: its rank and rough size are what a query uses.
constexpr double kProbabilityScale = 65535;

}  // namespace

Status writeHistoryView(const std::filesystem::path& dir, const HistoryData& data) {
  auto writer = LmdbBulkWriter::create(dir);
  if (!writer) return writer.status();
  auto files = writer->openDb("files"), commits = writer->openDb("commits"), postings = writer->openDb("postings"),
       translations = writer->openDb("translations"), meta = writer->openDb("meta");
  for (auto* db : {&files, &commits, &postings, &translations, &meta})
    if (!*db) return db->status();
  for (uint32_t id = 0; id < data.files.size(); ++id)
    NIB_RETURN_IF_ERROR(writer->append(*files, idKey(id), data.files[id]));
  // Postings per term in commit order, each the delta from the previous commit (a varint). A
  // history's vocabulary is small (the words of a few thousand messages): the lists are built
  // in a map.
  std::map<std::string_view, std::pair<ByteWriter, uint32_t>> lists;  // term -> (list, last commit)
  uint64_t totalLength = 0;
  for (uint32_t id = 0; id < data.commits.size(); ++id) {
    const HistoryData::Commit& c = data.commits[id];
    ByteWriter w;
    w.varint(c.terms.size());
    w.varint(c.files.size());
    uint32_t previous = 0;
    for (uint32_t f : c.files) {
      w.varint(f - previous);
      previous = f;
    }
    NIB_RETURN_IF_ERROR(writer->append(*commits, idKey(id), w.data()));
    totalLength += c.terms.size();
    for (const std::string& term : c.terms) {
      if (term.empty() || term.size() > kMaxTerm) continue;
      auto& [list, last] = lists[term];
      list.varint(id - last);
      last = id;
    }
  }
  for (auto& [term, entry] : lists) NIB_RETURN_IF_ERROR(writer->append(*postings, term, entry.first.data()));
  // Per word (appended in word order, as LMDB keys sort): its terms and their probabilities.
  for (const HistoryData::Translations& t : data.translations) {
    if (t.word.empty() || t.word.size() > kMaxTerm || t.to.empty()) continue;
    ByteWriter w;
    for (const HistoryTranslation& to : t.to) {
      // (A probability that rounds to 0, or an empty term, is what the decoder stops at.)
      uint64_t p = static_cast<uint64_t>(std::clamp(to.probability, 0.0, 1.0) * kProbabilityScale + 0.5);
      if (p == 0 || to.term.empty()) break;
      w.str(to.term);
      w.varint(p);
    }
    if (!w.data().empty()) NIB_RETURN_IF_ERROR(writer->append(*translations, t.word, w.data()));
  }
  ByteWriter m;
  for (uint64_t v : {static_cast<uint64_t>(data.commits.size()), static_cast<uint64_t>(data.files.size()), totalLength,
                     data.visited})
    m.varint(v);
  NIB_RETURN_IF_ERROR(writer->put(*meta, "stats", m.data()));
  return writer->finish();
}

std::vector<uint32_t> decodeHistoryPostings(std::string_view bytes, uint32_t commitCount) {
  std::vector<uint32_t> out;
  ByteReader r(bytes);
  uint64_t id = 0;
  while (!r.atEnd()) {
    uint64_t delta = r.varint();
    // Ids only grow (the first may be 0): nothing after one past the end counts, nor a repeat.
    // (The delta is bounded first: a huge one would wrap the sum around.)
    if (!r.ok() || delta >= commitCount || (!out.empty() && delta == 0)) break;
    id += delta;
    if (id >= commitCount) break;
    out.push_back(static_cast<uint32_t>(id));
  }
  return out;
}

std::optional<HistoryCommitRecord> decodeHistoryCommit(std::string_view bytes, uint32_t fileCount) {
  ByteReader r(bytes);
  HistoryCommitRecord c;
  c.length = r.u32();
  uint64_t n = r.varint();
  if (!r.ok() || n > r.remaining()) return std::nullopt;  // each file takes a byte at least
  uint64_t id = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t delta = r.varint();
    if (!r.ok() || delta >= fileCount) return std::nullopt;  // bounded before the sum can wrap
    id += delta;
    if (id >= fileCount) return std::nullopt;
    c.files.push_back(static_cast<uint32_t>(id));
  }
  return c;
}

std::vector<HistoryTranslation> decodeHistoryTranslations(std::string_view bytes) {
  std::vector<HistoryTranslation> out;
  ByteReader r(bytes);
  while (!r.atEnd()) {
    std::string_view term = r.str();
    uint64_t p = r.varint();
    // A probability rounds to 0 (too small to keep) or beyond the scale only in damaged bytes.
    if (!r.ok() || term.empty() || p == 0 || p > static_cast<uint64_t>(kProbabilityScale)) break;
    out.push_back({std::string(term), static_cast<double>(p) / kProbabilityScale});
  }
  return out;
}

Expected<std::unique_ptr<HistoryView>> HistoryView::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<HistoryView> v(new HistoryView(std::move(reader->env), std::move(reader->txn)));
  auto files = v->txn_.openDb("files", false), commits = v->txn_.openDb("commits", false),
       postings = v->txn_.openDb("postings", false), meta = v->txn_.openDb("meta", false);
  if (!files || !commits || !postings || !meta) return Status(ErrorCode::Corrupt, "history view lacks a table");
  v->files_ = *files;
  v->commits_ = *commits;
  v->postings_ = *postings;
  // A view of revision 2 has no translations: the lexical route goes without them.
  if (auto translations = v->txn_.openDb("translations", false)) v->translations_ = *translations;
  auto stats = v->txn_.get(*meta, "stats");
  if (!stats) return Status(ErrorCode::Corrupt, "history view lacks its statistics");
  ByteReader r(*stats);
  v->commitCount_ = r.u32();
  v->fileCount_ = r.u32();
  uint64_t total = r.varint();
  v->visited_ = r.varint();
  if (!r.ok()) return Status(ErrorCode::Corrupt, "history view's statistics are damaged");
  if (v->commitCount_ > 0) v->averageLength_ = std::max(1.0, static_cast<double>(total) / v->commitCount_);
  return v;
}

std::vector<uint32_t> HistoryView::postings(const std::string& term) {
  if (term.empty() || term.size() > kMaxTerm) return {};
  auto v = txn_.get(postings_, term);
  if (!v) return {};
  return decodeHistoryPostings(*v, commitCount_);
}

std::vector<HistoryTranslation> HistoryView::translations(const std::string& word) {
  if (!translations_ || word.empty() || word.size() > kMaxTerm) return {};
  auto v = txn_.get(*translations_, word);
  if (!v) return {};
  return decodeHistoryTranslations(*v);
}

std::optional<HistoryCommitRecord> HistoryView::commit(uint32_t id) {
  auto v = txn_.get(commits_, idKey(id));
  if (!v) return std::nullopt;
  return decodeHistoryCommit(*v, fileCount_);
}

uint32_t HistoryView::commitLength(uint32_t id) {
  auto v = txn_.get(commits_, idKey(id));
  if (!v) return 0;
  ByteReader r(*v);
  uint32_t length = r.u32();
  return r.ok() ? length : 0;
}

std::optional<std::string> HistoryView::path(uint32_t fileId) {
  auto v = txn_.get(files_, idKey(fileId));
  if (!v) return std::nullopt;
  return std::string(*v);
}

}  // namespace nib
