#include "views/SearchViews.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>

#include "support/Binary.h"
#include "support/CompoundSplitter.h"
#include "support/StringMap.h"

namespace nib {
namespace {

std::string trigramKey(uint32_t t) {
  return std::string{static_cast<char>(t >> 16), static_cast<char>((t >> 8) & 0xFF), static_cast<char>(t & 0xFF)};
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

// A new view's bulk writer, its docs tables already written.
Expected<LmdbBulkWriter> beginView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs) {
  auto w = LmdbBulkWriter::create(dir);
  if (!w) return w.status();
  NIB_RETURN_IF_ERROR(writeDocs(w->txn(), docs));
  return w;
}

uint32_t keyId(std::string_view k) {
  uint32_t id = 0;
  for (size_t i = 0; i < 4 && i < k.size(); ++i) id = (id << 8) | static_cast<unsigned char>(k[i]);
  return id;
}

void appendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

}  // namespace

Status writeTrigramView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs,
                        const SearchFactsSource& facts) {
  auto writer = beginView(dir, docs);
  if (!writer) return writer.status();
  auto db = writer->openDb(kTrigramPostings);
  if (!db) return db.status();
  // One pass in doc order, each trigram's list compressed as it grows (entries: doc id delta as
  // a varint, then the trigram's 16-bit mask in that doc, two bytes, low first), so the build
  // holds about the view's own size rather than every posting uncompressed. Lists are numbered
  // in order of first appearance; a table over all 2^24 trigrams maps to them. The table is an
  // anonymous mapping, zero by definition and faulted in lazily, so only the pages of trigrams
  // present are ever touched: the allocator's calloc cleared all 64 MiB of reused memory, a
  // tenth of the search views' time on a 15 MB corpus.
  constexpr size_t kTableBytes = (size_t(1) << 24) * sizeof(uint32_t);
  void* table = ::mmap(nullptr, kTableBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (table == MAP_FAILED) return Status(ErrorCode::IoError, "cannot map the trigram table");
  auto unmap = [](uint32_t* p) { ::munmap(p, kTableBytes); };
  std::unique_ptr<uint32_t, decltype(unmap)> slotOf(static_cast<uint32_t*>(table), unmap);
  std::vector<std::string> lists;
  std::vector<uint32_t> last, trigramOf;
  SearchFacts f;
  for (size_t d = 0; d < facts.size(); ++d) {
    NIB_RETURN_IF_ERROR(facts.load(d, f, kSearchTrigrams));
    for (size_t k = 0; k < f.trigrams.size(); ++k) {
      uint32_t t = f.trigrams[k] & 0xFFFFFF;
      uint32_t& slot = slotOf.get()[t];
      if (slot == 0) {
        lists.emplace_back();
        last.push_back(0);
        trigramOf.push_back(t);
        slot = static_cast<uint32_t>(lists.size());
      }
      std::string& list = lists[slot - 1];
      appendVarint(list, d - last[slot - 1]);
      uint16_t mask = k < f.trigramMasks.size() ? f.trigramMasks[k] : 0xFFFF;
      list.push_back(static_cast<char>(mask & 0xFF));
      list.push_back(static_cast<char>(mask >> 8));
      last[slot - 1] = static_cast<uint32_t>(d);
    }
  }
  slotOf.reset();
  std::vector<uint32_t> order(lists.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return trigramOf[a] < trigramOf[b]; });
  for (uint32_t i : order) {
    NIB_RETURN_IF_ERROR(writer->append(*db, trigramKey(trigramOf[i]), lists[i]));
    std::string().swap(lists[i]);  // handed to LMDB: freed as it goes
  }
  return writer->finish();
}

Status writeLexicalView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs,
                        const SearchFactsSource& facts) {
  auto writer = beginView(dir, docs);
  if (!writer) return writer.status();
  auto units = writer->openDb("units"), postings = writer->openDb(kLexicalPostings), meta = writer->openDb("meta"),
       parts = writer->openDb(kCompoundParts);
  for (auto* db : {&units, &postings, &meta, &parts})
    if (!*db) return db->status();
  struct Postings {
    std::string list;
    uint32_t lastUnit = 0;
    uint32_t units = 0;
  };
  // One lookup per (unit, term); the terms are owned by the map, the facts being read one
  // document at a time.
  StringMap<Postings> lists;  // a term read into a reused buffer is looked up without a copy
  uint32_t unitId = 0;
  uint64_t totalLength = 0;
  uint64_t fileUnits = 0, fileLength = 0;
  SearchFacts f;
  for (size_t d = 0; d < facts.size(); ++d) {
    NIB_RETURN_IF_ERROR(facts.load(d, f, kSearchUnits));
    for (const UnitTerms& u : f.units) {
      ByteWriter w;
      w.varint(d);
      writeRange(w, u.range);
      w.u8(static_cast<uint8_t>(u.granularity));
      w.u8(static_cast<uint8_t>(u.kind));
      w.str(u.name);
      w.varint(u.length);
      NIB_RETURN_IF_ERROR(writer->append(*units, idKey(unitId), w.data()));
      totalLength += u.length;
      if (u.granularity == Granularity::File) {
        ++fileUnits;
        fileLength += u.length;
      }
      for (const auto& [term, tf] : u.terms) {
        if (term.size() > 400) continue;
        auto it = lists.find(std::string_view(term));
        if (it == lists.end()) it = lists.emplace(term, Postings()).first;
        Postings& p = it->second;
        // The delta from the previous unit of this term, its low bit set when the term occurs
        // once there (63 % of the postings of a 12k-file Linux sample), else the count follows:
        // a quarter fewer bytes than a count with every posting.
        uint64_t delta = unitId - p.lastUnit;
        appendVarint(p.list, (delta << 1) | (tf == 1 ? 1 : 0));
        if (tf != 1) appendVarint(p.list, tf);
        p.lastUnit = unitId;
        ++p.units;
      }
      ++unitId;
    }
  }
  std::vector<std::pair<const std::string, Postings>*> sorted;
  sorted.reserve(lists.size());
  for (auto& entry : lists) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (auto* entry : sorted) {
    NIB_RETURN_IF_ERROR(writer->append(*postings, entry->first, entry->second.list));
    std::string().swap(entry->second.list);
  }
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
    NIB_RETURN_IF_ERROR(writer->append(*parts, part, w.data()));
  }
  ByteWriter m;
  m.varint(unitId);
  m.varint(totalLength);
  m.varint(fileUnits);
  m.varint(fileLength);
  NIB_RETURN_IF_ERROR(writer->put(*meta, "stats", m.data()));
  return writer->finish();
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

size_t TrigramView::postingsBytes(uint32_t trigram) {
  auto v = txn_.get(postings_, trigramKey(trigram));
  return v ? v->size() : 0;
}

Expected<std::unique_ptr<LexicalView>> LexicalView::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<LexicalView> v(new LexicalView(std::move(reader->env), std::move(reader->txn)));
  NIB_RETURN_IF_ERROR(v->openDocs(v->txn_));
  auto postings = v->txn_.openDb(kLexicalPostings, false), units = v->txn_.openDb("units", false),
       meta = v->txn_.openDb("meta", false);
  if (!postings && v->txn_.openDb("postings", false))
    return Status(ErrorCode::Unsupported, Reason::OtherFormat,
                  "the lexical view is of an older format: run `nib index` to rebuild it");
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
  // A view before search revision 5 has one average length for every unit.
  const double average = v->unitCount_ ? std::max(1.0, static_cast<double>(total) / v->unitCount_) : 1.0;
  v->averageFileLength_ = average;
  v->averagePartLength_ = average;
  if (r.remaining() > 0) {
    uint64_t fileUnits = r.varint(), fileLength = r.varint();
    if (r.ok() && fileUnits > 0 && fileUnits <= v->unitCount_ && fileLength <= total) {
      v->averageFileLength_ = std::max(1.0, static_cast<double>(fileLength) / fileUnits);
      if (fileUnits < v->unitCount_)
        v->averagePartLength_ = std::max(1.0, static_cast<double>(total - fileLength) / (v->unitCount_ - fileUnits));
    }
  }
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

void LexicalView::forEachUnit(const std::function<bool(uint32_t id, const LexUnit&)>& visit) {
  (void)txn_.scan(units_, "", [&](std::string_view k, std::string_view v) {
    auto u = decodeLexUnit(v, count_);
    return u ? visit(keyId(k), *u) : true;
  });
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
    uint64_t v = r.varint();
    uint64_t next = id + (v >> 1);
    uint32_t tf = (v & 1) ? 1 : r.u32();
    if (!r.ok() || next >= unitCount) break;  // ids only grow: nothing after one past the end counts
    id = static_cast<uint32_t>(next);
    out.emplace_back(id, tf);
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
