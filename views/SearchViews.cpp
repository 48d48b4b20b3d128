#include "views/SearchViews.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

#include "support/Binary.h"
#include "support/CompoundSplitter.h"

namespace nib {
namespace {

std::string trigramKey(uint32_t t) {
  return std::string{static_cast<char>(t >> 16), static_cast<char>((t >> 8) & 0xFF), static_cast<char>(t & 0xFF)};
}

Expected<std::unique_ptr<LmdbEnv>> createEnv(const std::filesystem::path& dir) {
  LmdbEnv::Options options;
  options.noSync = true;  // synced once at the end, before the manifest records the digest
  return LmdbEnv::open(dir, options);
}

Status writeDocs(LmdbTxn& txn, const std::vector<SearchDoc>& docs) {
  auto db = txn.openDb("docs", true), paths = txn.openDb("paths", true);
  if (!db) return db.status();
  if (!paths) return paths.status();
  for (const SearchDoc& d : docs) {
    ByteWriter w;
    w.str(d.path);
    w.str(d.blobOid);
    w.u8(static_cast<uint8_t>(d.language));
    w.varint(d.size);
    NIB_RETURN_IF_ERROR(txn.put(*db, idKey(d.id), w.data(), MDB_APPEND));
    NIB_RETURN_IF_ERROR(txn.put(*paths, d.path, idKey(d.id), MDB_APPEND));  // docs come sorted by path
  }
  return Status::ok();
}

// A new view's environment with a write transaction, its docs tables already written.
struct ViewWriter {
  std::unique_ptr<LmdbEnv> env;
  LmdbTxn txn;
};
Expected<ViewWriter> beginView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs) {
  auto env = createEnv(dir);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, true);
  if (!txn) return txn.status();
  NIB_RETURN_IF_ERROR(writeDocs(*txn, docs));
  return ViewWriter{std::move(*env), std::move(*txn)};
}

uint32_t keyId(std::string_view k) {
  uint32_t id = 0;
  for (size_t i = 0; i < 4 && i < k.size(); ++i) id = (id << 8) | static_cast<unsigned char>(k[i]);
  return id;
}

}  // namespace

Status writeTrigramView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs,
                        const std::vector<const SearchFacts*>& facts) {
  auto writer = beginView(dir, docs);
  if (!writer) return writer.status();
  auto& env = writer->env;
  auto* txn = &writer->txn;
  auto db = txn->openDb(kTrigramPostings, true);
  if (!db) return db.status();
  // Counting sort by trigram, so every posting list comes out in doc order without sorting
  // 10^7 pairs. The trigrams present are numbered densely first (a bitmap over all 2^24 and a
  // rank per 64-bit word: 3 MiB), so small repositories do not pay for arrays over every
  // possible trigram. Each entry: doc id delta (varint), then the trigram's 16-bit mask in that
  // doc (two bytes, little end first).
  constexpr size_t kWords = (size_t(1) << 24) / 64;
  std::vector<uint64_t> present(kWords, 0);
  for (const SearchFacts* f : facts)
    if (f)
      for (uint32_t t : f->trigrams) present[t >> 6] |= uint64_t(1) << (t & 63);
  std::vector<uint32_t> rank(kWords + 1, 0);
  for (size_t i = 0; i < kWords; ++i) rank[i + 1] = rank[i] + static_cast<uint32_t>(__builtin_popcountll(present[i]));
  const uint32_t distinct = rank[kWords];
  auto denseId = [&](uint32_t t) {
    uint64_t below = present[t >> 6] & ((uint64_t(1) << (t & 63)) - 1);
    return rank[t >> 6] + static_cast<uint32_t>(__builtin_popcountll(below));
  };
  std::vector<uint32_t> trigramOf;
  trigramOf.reserve(distinct);
  for (size_t i = 0; i < kWords; ++i)
    for (uint64_t bits = present[i]; bits; bits &= bits - 1)
      trigramOf.push_back(static_cast<uint32_t>(i * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
  std::vector<uint32_t> start(size_t(distinct) + 1, 0);
  for (const SearchFacts* f : facts)
    if (f)
      for (uint32_t t : f->trigrams) ++start[denseId(t) + 1];
  for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<uint32_t> ids(start.back());
  std::vector<uint16_t> masks(start.back());
  std::vector<uint32_t> fill(start.begin(), start.end() - 1);
  for (size_t d = 0; d < facts.size(); ++d)
    if (facts[d])
      for (size_t k = 0; k < facts[d]->trigrams.size(); ++k) {
        uint32_t slot = fill[denseId(facts[d]->trigrams[k])]++;
        masks[slot] = k < facts[d]->trigramMasks.size() ? facts[d]->trigramMasks[k] : 0xFFFF;
        ids[slot] = static_cast<uint32_t>(d);
      }
  ByteWriter w;
  for (uint32_t g = 0; g < distinct; ++g) {
    w = ByteWriter();
    uint32_t prev = 0;
    for (uint32_t i = start[g]; i < start[g + 1]; ++i) {
      w.varint(ids[i] - prev);
      w.u8(static_cast<uint8_t>(masks[i] & 0xFF));
      w.u8(static_cast<uint8_t>(masks[i] >> 8));
      prev = ids[i];
    }
    NIB_RETURN_IF_ERROR(txn->put(*db, trigramKey(trigramOf[g]), w.data(), MDB_APPEND));
  }
  NIB_RETURN_IF_ERROR(txn->commit());
  return env->sync();
}

Status writeLexicalView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs,
                        const std::vector<const SearchFacts*>& facts) {
  auto writer = beginView(dir, docs);
  if (!writer) return writer.status();
  auto& env = writer->env;
  auto* txn = &writer->txn;
  auto units = txn->openDb("units", true), postings = txn->openDb("postings", true), meta = txn->openDb("meta", true),
       parts = txn->openDb(kCompoundParts, true);
  for (auto* db : {&units, &postings, &meta, &parts})
    if (!*db) return db->status();
  struct Postings {
    ByteWriter list;
    uint32_t lastUnit = 0;
    uint32_t units = 0;
  };
  std::unordered_map<std::string_view, Postings> lists;  // one lookup per (unit, term)
  uint32_t unitId = 0;
  uint64_t totalLength = 0;
  for (size_t d = 0; d < facts.size(); ++d) {
    if (!facts[d]) continue;
    for (const UnitTerms& u : facts[d]->units) {
      ByteWriter w;
      w.varint(d);
      writeRange(w, u.range);
      w.u8(static_cast<uint8_t>(u.granularity));
      w.u8(static_cast<uint8_t>(u.kind));
      w.str(u.name);
      w.varint(u.length);
      NIB_RETURN_IF_ERROR(txn->put(*units, idKey(unitId), w.data(), MDB_APPEND));
      totalLength += u.length;
      for (const auto& [term, tf] : u.terms) {
        if (term.size() > 400) continue;
        Postings& p = lists[term];
        p.list.varint(unitId - p.lastUnit);  // delta from the previous unit of this term
        p.list.varint(tf);
        p.lastUnit = unitId;
        ++p.units;
      }
      ++unitId;
    }
  }
  std::vector<const std::pair<const std::string_view, Postings>*> sorted;
  sorted.reserve(lists.size());
  for (const auto& entry : lists) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : sorted) NIB_RETURN_IF_ERROR(txn->put(*postings, entry->first, entry->second.list.data(), MDB_APPEND));
  // The compounds each word is part of (see LexicalView::compoundsOf), from the vocabulary's
  // own segmentation.
  std::vector<VocabularyTerm> vocabulary;
  vocabulary.reserve(sorted.size());
  for (const auto* entry : sorted) vocabulary.push_back({entry->first, entry->second.units});
  std::map<std::string_view, std::vector<std::string_view>> compoundsOf;
  for (const auto& [compound, partsOf] : splitCompounds(vocabulary))
    for (std::string_view part : partsOf) compoundsOf[part].push_back(compound);
  for (auto& [part, compounds] : compoundsOf) {
    if (compounds.size() > kMaxCompoundsPerPart) continue;
    std::sort(compounds.begin(), compounds.end());
    ByteWriter w;
    for (std::string_view c : compounds) w.str(c);
    NIB_RETURN_IF_ERROR(txn->put(*parts, part, w.data(), MDB_APPEND));
  }
  ByteWriter m;
  m.varint(unitId);
  m.varint(totalLength);
  NIB_RETURN_IF_ERROR(txn->put(*meta, "stats", m.data()));
  NIB_RETURN_IF_ERROR(txn->commit());
  return env->sync();
}

std::optional<SearchDoc> SearchDocs::byId(uint32_t id) {
  auto v = docsTxn_->get(docs_, idKey(id));
  if (!v) return std::nullopt;
  return decodeSearchDoc(id, *v);
}

std::optional<SearchDoc> SearchDocs::byPath(const std::string& path) {
  if (path.empty() || path.size() > 400) return std::nullopt;
  auto id = docsTxn_->get(paths_, path);
  if (!id || id->size() != 4) return std::nullopt;
  return byId(keyId(*id));
}

void SearchDocs::forEach(const std::function<bool(const SearchDoc&)>& visit) {
  (void)docsTxn_->scan(docs_, "", [&](std::string_view k, std::string_view v) {
    auto d = decodeSearchDoc(keyId(k), v);
    return d ? visit(*d) : true;
  });
}

Status SearchDocs::openDocs(LmdbTxn& txn) {
  auto db = txn.openDb("docs", false), paths = txn.openDb("paths", false);
  if (!db || !paths) return Status(ErrorCode::Corrupt, "search view lacks its docs tables");
  docsTxn_ = &txn;
  docs_ = *db;
  paths_ = *paths;
  MDB_stat st;
  if (mdb_stat(txn.raw(), docs_, &st) != 0) return Status(ErrorCode::Corrupt, "cannot count the search view's docs");
  count_ = static_cast<uint32_t>(st.ms_entries);
  return Status::ok();
}

Expected<std::unique_ptr<TrigramView>> TrigramView::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<TrigramView> v(new TrigramView(std::move(reader->env), std::move(reader->txn)));
  NIB_RETURN_IF_ERROR(v->openDocs(v->txn_));
  auto db = v->txn_.openDb(kTrigramPostings, false);
  if (!db) {
    if (v->txn_.openDb("postings", false))
      return Status(ErrorCode::Unsupported, "the trigram view is of an older format: run `nib index` to rebuild it");
    return Status(ErrorCode::Corrupt, "trigram view lacks its postings");
  }
  v->postings_ = *db;
  return v;
}

std::vector<TrigramPosting> TrigramView::postings(uint32_t trigram) {
  std::vector<TrigramPosting> out;
  auto v = txn_.get(postings_, trigramKey(trigram));
  if (!v) return out;
  return decodeTrigramPostings(*v, count_);
}

Expected<std::unique_ptr<LexicalView>> LexicalView::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<LexicalView> v(new LexicalView(std::move(reader->env), std::move(reader->txn)));
  NIB_RETURN_IF_ERROR(v->openDocs(v->txn_));
  auto postings = v->txn_.openDb("postings", false), units = v->txn_.openDb("units", false),
       meta = v->txn_.openDb("meta", false);
  if (!postings || !units || !meta) return Status(ErrorCode::Corrupt, "lexical view lacks a table");
  v->postings_ = *postings;
  v->units_ = *units;
  // Views written before compounds were split lack the table: their queries match whole
  // terms and prefixes only.
  if (auto parts = v->txn_.openDb(kCompoundParts, false)) v->parts_ = *parts;
  auto stats = v->txn_.get(*meta, "stats");
  if (!stats) return Status(ErrorCode::Corrupt, "lexical view lacks its statistics");
  ByteReader r(*stats);
  v->unitCount_ = r.u32();
  uint64_t total = r.varint();
  v->averageLength_ = v->unitCount_ ? std::max(1.0, static_cast<double>(total) / v->unitCount_) : 1.0;
  return v;
}

std::vector<std::pair<uint32_t, uint32_t>> LexicalView::postings(const std::string& term) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  if (term.empty() || term.size() > 400) return out;
  auto v = txn_.get(postings_, term);
  if (!v) return out;
  return decodeLexicalPostings(*v, unitCount_);
}

std::vector<std::string> LexicalView::termsExtending(const std::string& prefix, size_t limit) {
  std::vector<std::string> out;
  if (prefix.empty() || prefix.size() > 400) return out;
  (void)txn_.scan(postings_, prefix, [&](std::string_view key, std::string_view) {
    if (key.substr(0, prefix.size()) != prefix) return false;
    if (key.size() > prefix.size()) out.emplace_back(key);
    return out.size() < limit;
  });
  return out;
}

std::vector<std::string> LexicalView::compoundsOf(const std::string& part) {
  std::vector<std::string> out;
  if (!parts_ || part.empty() || part.size() > 400) return out;
  auto v = txn_.get(*parts_, part);
  if (!v) return out;
  return decodeCompounds(*v);
}

std::optional<LexUnit> LexicalView::unit(uint32_t id) {
  auto v = txn_.get(units_, idKey(id));
  if (!v) return std::nullopt;
  return decodeLexUnit(*v, count_);
}

std::optional<SearchDoc> decodeSearchDoc(uint32_t id, std::string_view v) {
  ByteReader r(v);
  SearchDoc d;
  d.id = id;
  d.path = std::string(r.str());
  d.blobOid = std::string(r.str());
  d.language = static_cast<Language>(r.u8());
  d.size = r.u32();
  if (!r.ok()) return std::nullopt;
  if (static_cast<int>(d.language) >= kLanguageCount) d.language = Language::Unknown;
  return d;
}

std::vector<TrigramPosting> decodeTrigramPostings(std::string_view bytes, uint32_t docCount) {
  std::vector<TrigramPosting> out;
  ByteReader r(bytes);
  uint32_t id = 0;
  while (!r.atEnd() && r.ok()) {
    id += r.u32();
    uint16_t mask = r.u8();
    mask |= static_cast<uint16_t>(r.u8() << 8);
    if (r.ok() && id < docCount) out.push_back({id, mask});
  }
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> decodeLexicalPostings(std::string_view bytes, uint32_t unitCount) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  ByteReader r(bytes);
  uint32_t id = 0;
  while (!r.atEnd() && r.ok()) {
    id += r.u32();
    uint32_t tf = r.u32();
    if (r.ok() && id < unitCount) out.emplace_back(id, tf);
  }
  return out;
}

std::optional<LexUnit> decodeLexUnit(std::string_view bytes, uint32_t docCount) {
  ByteReader r(bytes);
  LexUnit u;
  u.doc = r.u32();
  u.range = readRange(r);
  u.granularity = static_cast<Granularity>(r.u8());
  u.kind = static_cast<SymbolKind>(r.u8());
  u.name = std::string(r.str());
  u.length = r.u32();
  if (!r.ok() || u.doc >= docCount) return std::nullopt;
  return u;
}

std::vector<std::string> decodeCompounds(std::string_view bytes) {
  std::vector<std::string> out;
  ByteReader r(bytes);
  while (!r.atEnd()) {
    std::string_view c = r.str();
    if (!r.ok()) break;
    out.emplace_back(c);
  }
  return out;
}

}  // namespace nib
