// The commit view of one index version: which blob each path holds, and the name tables that
// tie per-file facts together (name -> definitions, name -> files mentioning it). Written once
// by the builder into the version's own LMDB environment and read by queries through short read
// transactions; per-file detail stays in the FactStore and is loaded only for the files a query
// touches.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Language.h"
#include "views/FactStore.h"
#include "views/FileFacts.h"
#include "views/Lmdb.h"
#include "views/WorktreeSnapshot.h"

namespace nib {

struct FileRecord {
  uint32_t fileId = 0;
  std::string path;
  std::string blobOid;
  Language language = Language::Unknown;
  uint64_t size = 0;
  FactKey factKey() const;
  std::string profileDigest;
};

struct SkippedFile {
  std::string path;
  std::string reason;  // "binary", kTooLargeReason, "symlink", "submodule", "unreadable", ...
};
// The reason a file over the index's size limit is skipped with (a prefix: an error may follow).
inline constexpr const char* kTooLargeReason = "too-large";

// A definition named in the name tables: enough to rank candidates before loading facts.
struct DefinitionRef {
  uint32_t fileId = 0;
  uint32_t index = 0;  // into FileFacts::definitions
  SymbolKind kind = SymbolKind::Unknown;
  bool isDeclaration = false;
  friend bool operator==(const DefinitionRef&, const DefinitionRef&) = default;
};

// What the commit view needs of one file's facts; small enough to keep for every file while a
// build runs, so the builder need not hold all facts in memory.
struct FileSummary {
  struct Def {
    std::string name;
    uint32_t index = 0;
    SymbolKind kind = SymbolKind::Unknown;
    bool isDeclaration = false;
    bool member = false;
  };
  std::vector<Def> defs;           // only definitions visible across files
  std::vector<std::string> names;  // distinct occurrence names
  uint64_t definitionCount = 0;
  uint64_t occurrenceCount = 0;
};
// Consumes the facts: their name table moves into the summary.
FileSummary summarizeFacts(FileFacts&& facts);
// The compact form a build keeps summaries in on disk until the commit view is written; decodes
// into `out` reusing its storage, false when the bytes are not what the encoder wrote.
std::string encodeFileSummary(const FileSummary& summary);
bool decodeFileSummary(std::string_view bytes, FileSummary& out);
// Summary `i` (parallel to the files) into `out`: the writer reads them one at a time.
using FileSummarySource = std::function<Status(size_t i, FileSummary& out)>;

class CommitViewWriter {
 public:
  // `files` must be sorted by path, with ids equal to their positions; `summaries` parallel,
  // read one at a time (the writer holds the name tables being built, not every summary).
  // `worktree` is recorded when the version was built from a worktree (else nullptr).
  static Status write(const std::filesystem::path& dir, const std::vector<FileRecord>& files,
                      const FileSummarySource& summaries, const std::vector<SkippedFile>& skipped,
                      const WorktreeSnapshot* worktree);
};

class CommitView {
 public:
  // The view's folder in a version, and the caches kept beside its artifacts (written by the
  // first query that needs them; a version never changes). The call graph's file belongs to
  // providers/CallGraph, whose format byte makes an older file be resolved again.
  static constexpr const char* kDirectory = "structural";
  static constexpr const char* kCallGraphFile = "callgraph.bin";
  static Expected<std::unique_ptr<CommitView>> open(const std::filesystem::path& dir);

  std::optional<FileRecord> fileByPath(const std::string& path);
  std::optional<FileRecord> fileById(uint32_t id);
  // Definitions visible across files: top-level ones (`member == false`) or members of types.
  std::vector<DefinitionRef> definitions(const std::string& name, bool member);
  // Files with any occurrence of `name`: the fan-out of a references query.
  std::vector<uint32_t> filesMentioning(const std::string& name);
  // Visits every definition name in order until `visit` returns false; the definitions of a
  // name are decoded only when asked for (`definitionsAt`), since most names are skipped.
  void forEachDefinitionName(const std::function<bool(std::string_view name, bool member, std::string_view raw)>& visit);
  static std::vector<DefinitionRef> decodeDefinitions(std::string_view raw);
  // Every key of the `defs` table (a kind byte, 'G' or 'M', then the name), each followed by
  // '\n', in key order. Kept as one file beside the view (kDefinitionKeysFile: a cache, written
  // by the first query that asks, since a version never changes) so that scoring every name
  // reads a few MiB in order instead of walking the whole table (qemu: 355k entries, 15 ms of
  // a 22 ms `nib symbols`). Unsupported when a name holds a newline.
  Expected<std::string_view> definitionKeys();
  static constexpr const char* kDefinitionKeysFile = "names.list";
  // Visits every indexed file in path order until `visit` returns false.
  void forEachFile(const std::function<bool(const FileRecord&)>& visit);
  std::vector<SkippedFile> skipped();
  // Why the index left `path` out; nullopt when it did not.
  std::optional<std::string> skipReason(const std::string& path);
  uint32_t fileCount();
  // NotFound when the version was built from a commit rather than a worktree. Valid while this
  // view lives (its text views the view's read transaction).
  Expected<WorktreeSnapshot> worktreeSnapshot() { return readWorktreeSnapshot(txn_); }

 private:
  CommitView(std::unique_ptr<LmdbEnv> env, LmdbTxn txn) : env_(std::move(env)), txn_(std::move(txn)) {}
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  std::filesystem::path dir_;
  std::optional<std::string> definitionKeys_;  // built from the table
  // names.list, mapped: reading it into memory cost more than the scan (6 MiB on qemu).
  struct Mapping {
    void* at = nullptr;
    size_t size = 0;
    ~Mapping();
  };
  std::unique_ptr<Mapping> keysMap_;
  std::string_view mappedKeys_;
  MDB_dbi files_ = 0, ids_ = 0, defs_ = 0, names_ = 0, skipped_ = 0;
};

}  // namespace nib
