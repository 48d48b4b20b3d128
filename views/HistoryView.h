// The history view of an index version: what the repository's own commit messages say about its
// files. A commit's message names what it changed in the words people search with ("expire keys
// whose time to live has passed") while the code it touched may never spell them. The view keeps
// each mined commit as a document — its message's terms and the files it changed — so that a
// query finds the past commits most like it and, through them, the files they changed
// (SearchProvider's lexical route, SearchHistory.h).
//
//   history/  files (id -> path), commits (id -> its term count and files), postings (term ->
//             the commits whose message holds it), translations (word -> the code terms it
//             stands for, with their probabilities), meta (stats)
//
// Built by the indexer's history phase (HistoryMiner) from the commits behind the indexed
// commit; a version without history (a shallow clone, an unborn branch, index.history-commits
// 0) has the view absent, with the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/Status.h"
#include "views/Lmdb.h"

namespace nib {

// The view's revision: bump it when its tables or what the miner puts in them change (the
// messages' tokenizer, support/SearchText, included), so that a build never takes an older view
// for a current one. Its profile starts with this prefix.
// 2: paths follow exact renames. 3 (6b3c42d, taken out again): the functions each commit changed.
// 4: the translations table (indexer/HistoryTranslation.h).
inline constexpr int kHistoryViewRevision = 4;
inline std::string historyViewProfilePrefix() { return "h" + std::to_string(kHistoryViewRevision) + ";"; }

struct HistoryTranslation {
  std::string term;
  double probability = 0;  // p(term | word), in (0, 1]
};

struct HistoryData {
  // A message word's code terms, best first (indexer/HistoryTranslation.h).
  struct Translations {
    std::string word;
    std::vector<HistoryTranslation> to;
  };
  struct Commit {
    std::vector<std::string> terms;  // distinct, sorted
    std::vector<uint32_t> files;     // ids into `files`, ascending
  };
  std::vector<std::string> files;  // the paths some commit reached, sorted
  std::vector<Commit> commits;     // newest first
  uint64_t visited = 0;            // commits walked
  std::vector<Translations> translations;  // by word, ascending
};

Status writeHistoryView(const std::filesystem::path& dir, const HistoryData& data);

// A commit as the view keeps it: how many terms its message holds and the files it changed.
struct HistoryCommitRecord {
  uint32_t length = 0;
  std::vector<uint32_t> files;
};

// The view's records decoded, each a function of its bytes alone (damaged bytes give nullopt or
// fewer entries, never a read past them); ids at or past the count are dropped.
std::vector<uint32_t> decodeHistoryPostings(std::string_view bytes, uint32_t commitCount);
std::optional<HistoryCommitRecord> decodeHistoryCommit(std::string_view bytes, uint32_t fileCount);
// A word's translations: each a non-empty term and a probability in (0, 1].
std::vector<HistoryTranslation> decodeHistoryTranslations(std::string_view bytes);

class HistoryView {
 public:
  static constexpr const char* kDirectory = "history";  // the view's folder in a version
  static Expected<std::unique_ptr<HistoryView>> open(const std::filesystem::path& dir);
  // The commits whose message holds `term`, ascending.
  std::vector<uint32_t> postings(const std::string& term);
  std::optional<HistoryCommitRecord> commit(uint32_t id);
  // The code terms `word` stands for in the history's messages, best first (none for a word
  // the model did not learn, or a view of revision 2).
  std::vector<HistoryTranslation> translations(const std::string& word);
  // A commit's message length alone (0 when it cannot be read): what ranking every candidate
  // needs, without decoding its files.
  uint32_t commitLength(uint32_t id);
  std::optional<std::string> path(uint32_t fileId);
  uint32_t commitCount() const { return commitCount_; }
  uint32_t fileCount() const { return fileCount_; }
  double averageLength() const { return averageLength_; }  // of a commit's message, in terms
  uint64_t visited() const { return visited_; }

 private:
  HistoryView(std::unique_ptr<LmdbEnv> env, LmdbTxn txn) : env_(std::move(env)), txn_(std::move(txn)) {}
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  MDB_dbi files_ = 0, commits_ = 0, postings_ = 0;
  std::optional<MDB_dbi> translations_;  // absent in a view of revision 2
  uint32_t commitCount_ = 0, fileCount_ = 0;
  double averageLength_ = 1;
  uint64_t visited_ = 0;
};

}  // namespace nib
