// The two search views of an index version, each in its own LMDB environment:
//
//   trigram/  docs (id -> path, blob, language, size) and postings-masked (trigram -> doc ids,
//             each with location and next-byte masks): the candidate files of a substring or
//             regex search, verified against the content;
//   lexical/  docs, units (id -> doc, range, kind, name, length), postings (term -> (unit, tf))
//             meta (unit count, average length) and compound-parts (word -> the one-run
//             identifiers it is part of, "line" -> "clearendofline"): BM25 over source units.
//
// Both index every text file of the version (also files without a grammar, which get one
// file unit), so that a search covers what `grep` would.
#pragma once

#include <cstdint>
#include <functional>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/Language.h"
#include "views/Lmdb.h"
#include "views/SearchFacts.h"

namespace nib {

struct SearchDoc {
  uint32_t id = 0;
  std::string path;
  std::string blobOid;  // the id of the indexed bytes: the content table's key
  Language language = Language::Unknown;
  uint32_t size = 0;
};

struct LexUnit {
  uint32_t doc = 0;
  ByteRange range;
  Granularity granularity = Granularity::File;
  SymbolKind kind = SymbolKind::Unknown;
  std::string name;
  uint32_t length = 0;
};

// `docs` sorted by path with ids equal to their positions; `facts` parallel to `docs`, read one
// document at a time: the writers hold the view being built (compressed), not the corpus's facts.
Status writeTrigramView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs,
                        const SearchFactsSource& facts);
Status writeLexicalView(const std::filesystem::path& dir, const std::vector<SearchDoc>& docs,
                        const SearchFactsSource& facts);

// A view's documents, looked up in LMDB on demand (a query touches few of them; loading all
// of a large repository's would cost more than the query).
class SearchDocs {
 public:
  std::optional<SearchDoc> byId(uint32_t id);
  std::optional<SearchDoc> byPath(const std::string& path);
  // Visits every document in id (= path) order until `visit` returns false.
  void forEach(const std::function<bool(const SearchDoc&)>& visit);
  uint32_t count() const { return count_; }

 protected:
  Status openDocs(LmdbTxn& txn);
  LmdbTxn* docsTxn_ = nullptr;
  MDB_dbi docs_ = 0, paths_ = 0;
  uint32_t count_ = 0;
};

struct TrigramPosting {
  uint32_t doc = 0;
  uint16_t mask = 0xFFFF;  // see trigramMasksOf
};

// The search views' revision: bump it when tokenization, trigram extraction or the views'
// tables change, so that a build never takes an older view for a current one. 3: the lexical
// view's compound-parts table; 4: its postings with the count folded into the delta's low bit;
// 5: its statistics also count the whole-file units and their length (a view without them
// normalizes every unit by one average length, as before).
inline constexpr int kSearchViewsRevision = 5;
// The profile a search view records: its revision and the extractor's (the units come from it).
inline std::string searchViewsProfile(const std::string& extractorProfile) {
  return "s" + std::to_string(kSearchViewsRevision) + "-" + extractorProfile;
}

// The postings table's name; a new name for each format, so that an older view is recognised.
inline constexpr const char* kTrigramPostings = "postings-masked";
inline constexpr const char* kLexicalPostings = "postings-tf";
inline constexpr const char* kCompoundParts = "compound-parts";
// A word that is part of more compounds than this is too common to find any of them by: its
// compounds are not listed.
inline constexpr size_t kMaxCompoundsPerPart = 2000;

// The views' records decoded, each a function of its bytes alone (damaged bytes give nullopt or
// fewer entries, never a read past them): how the views read them, and what fuzz/fuzz_views
// feeds arbitrary bytes. Ids at or past the view's count are dropped.
std::optional<SearchDoc> decodeSearchDoc(uint32_t id, std::string_view bytes);
std::vector<TrigramPosting> decodeTrigramPostings(std::string_view bytes, uint32_t docCount);
std::vector<std::pair<uint32_t, uint32_t>> decodeLexicalPostings(std::string_view bytes, uint32_t unitCount);
std::optional<LexUnit> decodeLexUnit(std::string_view bytes, uint32_t docCount);
std::vector<std::string> decodeCompounds(std::string_view bytes);

class TrigramView : public SearchDocs {
 public:
  static constexpr const char* kDirectory = "trigram";  // the view's folder in a version
  static Expected<std::unique_ptr<TrigramView>> open(const std::filesystem::path& dir);
  // The docs containing the (case-folded) trigram, ascending by id, with its masks there.
  std::vector<TrigramPosting> postings(uint32_t trigram);
  // The size in bytes of the trigram's encoded postings (0 when no doc holds it): a cheap
  // measure of how many docs do, to read the rarest lists first.
  size_t postingsBytes(uint32_t trigram);

 private:
  TrigramView(std::unique_ptr<LmdbEnv> env, LmdbTxn txn) : env_(std::move(env)), txn_(std::move(txn)) {}
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  MDB_dbi postings_ = 0;
};

class LexicalView : public SearchDocs {
 public:
  static Expected<std::unique_ptr<LexicalView>> open(const std::filesystem::path& dir);
  // (unit id, term frequency), by ascending unit id.
  std::vector<std::pair<uint32_t, uint32_t>> postings(const std::string& term);
  // Up to `limit` indexed terms that start with `prefix` (and are longer), in term order.
  std::vector<std::string> termsExtending(const std::string& prefix, size_t limit);
  // The indexed terms written as one run of letters that `part` is a word of, by the
  // vocabulary's own segmentation ("line" -> "clearendofline", "getline"), in term order.
  std::vector<std::string> compoundsOf(const std::string& part);
  std::optional<LexUnit> unit(uint32_t id);
  // Visits every unit in id order (one pass of a cursor, not a lookup per id) until `visit`
  // returns false.
  void forEachUnit(const std::function<bool(uint32_t id, const LexUnit&)>& visit);
  uint32_t unitCount() const { return unitCount_; }
  double averageFileLength() const { return averageFileLength_; }
  double averagePartLength() const { return averagePartLength_; }

 private:
  LexicalView(std::unique_ptr<LmdbEnv> env, LmdbTxn txn) : env_(std::move(env)), txn_(std::move(txn)) {}
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  MDB_dbi postings_ = 0, units_ = 0;
  std::optional<MDB_dbi> parts_;
  uint32_t unitCount_ = 0;
  double averageFileLength_ = 1;
  double averagePartLength_ = 1;
};

}  // namespace nib
