// The static navigation provider: answers definition, references and symbol queries from one
// published index version (commit view + per-file facts), finishing at query time the name
// resolution the extractor could not do inside one file (imports, members, cross-file globals).
// Speaks repository paths and byte offsets; knows nothing of URIs, JSON or the wire.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "providers/ClangNavigator.h"
#include "providers/Navigation.h"
#include "support/Status.h"
#include "views/ClangView.h"
#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/FileFacts.h"
#include "views/Manifest.h"
#include "views/VersionDelta.h"

namespace nib {

class SymbolMatcher;

// One resolved use of a definition by another, for the persisted-shape call and type graph:
// a call site, or a reference to a type (a class, struct, enum, alias ...).
// Ends are (file id, definition index) pairs; StaticProvider::nodeById names them.
struct SymbolEdge {
  uint32_t fromFile = 0;
  int32_t fromDef = -1;  // the caller, or the definition whose body uses the type (-1: top level)
  uint32_t toFile = 0;
  int32_t toDef = -1;    // the callee, or the type
  bool typeUse = false;
  Confidence confidence = Confidence::Exact;
  ByteRange site;  // in from's file
};

class StaticProvider {
 public:
  // Opens the current version of the index in `indexDir` (<repo>/.nib).
  static Expected<std::unique_ptr<StaticProvider>> open(const std::filesystem::path& indexDir);
  ~StaticProvider();

  const Manifest& manifest() const { return manifest_; }
  // Whether the precise view read the file when the version was built (changed since or not).
  bool preciseRead(const std::string& path);
  // Whether libclang's facts cover the file (a compile command reached it, and it is unchanged).
  bool hasClangFacts(const std::string& path);
  // C/C++ files no compile command reaches, which the clang view indexed with a borrowed
  // command (empty without a clang view).
  std::vector<std::string> clangInterpolatedFiles();
  // TypeScript and JavaScript files no tsconfig.json's project includes (where one exists), which
  // the precise view indexed in an inferred project (empty without a precise view).
  std::vector<std::string> preciseInterpolatedFiles();
  // C/C++ files that are one unit's main file and that another unit #includes (a test file an
  // amalgamation includes whole; empty without a clang view).
  std::vector<std::string> clangSharedMainFiles();
  // The fact store's reader (file contents for search); valid while this provider lives.
  FactStore::Reader& factReader() { return *reader_; }
  std::optional<FileRecord> file(const std::string& path);
  // Every indexed file in path order, overlays included (tombstones left out), until `visit`
  // says stop.
  void forEachFile(const std::function<bool(const FileRecord&)>& visit);
  // A delta version's entries (VersionDelta): the files that differ from its base; empty for a
  // complete version.
  const std::vector<DeltaEntry>& versionDelta() const;
  std::optional<std::string> skipReason(const std::string& path);
  Expected<FileFacts> facts(const std::string& path);
  // The worktree as it was when this version was built (NotFound for commit builds); valid
  // while this provider lives.
  Expected<WorktreeSnapshot> worktreeSnapshot() {
    return delta_ ? delta_->worktreeSnapshot() : view_->worktreeSnapshot();
  }

  // `declarations` prefers declarations (prototypes, signatures) over definitions.
  Expected<NavigationResult> definition(const std::string& path, uint32_t offset, bool declarations = false);
  Expected<NavigationResult> references(const std::string& path, uint32_t offset, bool includeDeclaration);
  // The occurrences in `path` of the symbol at `offset` (its definition and declarations
  // included, with their roles): what an editor highlights. Reads no other file.
  Expected<NavigationResult> highlights(const std::string& path, uint32_t offset);
  // The loaded-file cache's bound, in occurrences and definitions (tests of the trimming set a
  // tiny one; answers never depend on it).
  void setCacheBound(size_t entries) { cacheBound_ = entries; }
  std::vector<SymbolMatch> symbols(std::string_view query, size_t limit);

  // Call hierarchy over the call sites the extractor recorded.
  // The definitions the identifier at `offset` resolves to: callables only, or of any kind.
  Expected<std::vector<CallNode>> callablesAt(const std::string& path, uint32_t offset, bool callableOnly = true);
  // The type hierarchy from libclang's base-class edges (StaticProviderClang.cpp): the class
  // named at a position (empty: no class there, or no clang facts for the file), and a node's
  // direct bases or derived classes. A node of another version, or whose symbol is no longer
  // `name`, is ContentModified.
  Expected<std::vector<TypeNode>> typesAt(const std::string& path, uint32_t offset);
  // Overriders of a virtual method or classes deriving from a class, from the clang view; other
  // files have no precise source for them and get Unsupported, saying so.
  Expected<NavigationResult> implementations(const std::string& path, uint32_t offset);
  // The declaration of the type of what is at the position, from the clang view likewise.
  Expected<NavigationResult> typeDefinitions(const std::string& path, uint32_t offset);
  Expected<std::vector<TypeNode>> supertypes(uint32_t symbol, const std::string& name);
  Expected<std::vector<TypeNode>> subtypes(uint32_t symbol, const std::string& name);
  // Every call edge and type use of the version (overlays included), resolved as the call
  // hierarchy resolves them; `visit` sees each once, file by file in path order.
  Status forEachEdge(const std::function<void(SymbolEdge&&)>& visit);
  // A call-hierarchy node for a definition of `path` (-1: its top level).
  Expected<CallNode> node(const std::string& path, int32_t definition);
  // The same for an edge's end (valid inside forEachEdge's visit, and after it).
  Expected<CallNode> nodeById(uint32_t fileId, int32_t definition);
  // The definitions (not declarations, unless there is nothing else) named `name` in the global
  // and member tables; `qualifier`, when given, must end the container ("Cache" in
  // "lru::Cache"). In path and position order.
  std::vector<CallNode> nodesNamed(const std::string& name, const std::string& qualifier = "");

  // Overlays: facts of a file as it is now (an editor buffer, or a file changed on disk since
  // the index was built) replace the indexed ones in every answer, for this file and for the
  // name tables, until removed. A path the index does not know becomes a new file. A delta
  // version's own entries are overlays too, laid when the version opens; removing a session's
  // overlay brings back the version's state of the path, and the queries below count only the
  // session's.
  // `asOnDisk`: the text is the file on disk, which the index skipped (too large): its facts
  // serve the open buffer, while the clang and precise views, whose units compiled the file,
  // still answer there.
  void setOverlay(const std::string& path, Language language, FileFacts facts, bool asOnDisk = false);
  // The files open in the editor, for the clang and precise views' references
  // (ClangNavigator::setShown).
  void setShownFiles(std::function<bool(const std::string& path)> shown);
  void removeOverlay(const std::string& path);
  bool hasOverlay(const std::string& path) const;
  bool hasOverlays() const { return sessionOverlays_ > 0; }
  // A file deleted since the index was built: its definitions and references leave every
  // answer, and the path is unknown, until the tombstone is removed.
  void setTombstone(const std::string& path);

 private:
  struct Target {
    uint32_t fileId;
    int32_t def;  // -1: the whole file (a module)
    bool operator<(const Target& o) const { return fileId != o.fileId ? fileId < o.fileId : def < o.def; }
    bool operator==(const Target& o) const { return fileId == o.fileId && def == o.def; }
  };
  struct Resolved {
    std::vector<Target> targets;
    Confidence confidence = Confidence::Exact;
    std::optional<SymbolLocation> importSite;  // set when the symbol leaves the repository
  };
  struct LoadedFile {
    FileRecord record;
    FileFacts facts;
    bool complete = false;  // false: only definitions were decoded
    mutable uint64_t lastUse = 0;  // when a query last asked for it (the cache evicts the oldest)
    bool tombstone = false; // deleted since the index was built
    bool fromVersion = false;  // a delta version's entry, not the session's
    bool asOnDisk = false;     // a skipped file's text as on disk (setOverlay)
  };

  StaticProvider(Manifest manifest, std::unique_ptr<CommitView> view, std::unique_ptr<FactStore> facts);
  // Loads a file's facts; `occurrences` asks for all of them, else definitions suffice.
  Expected<const LoadedFile*> load(uint32_t fileId, bool occurrences = false);
  Expected<const LoadedFile*> loadPath(const std::string& path);
  Expected<uint32_t> occurrenceAt(const LoadedFile& f, const std::string& path, uint32_t offset);
  Resolved resolve(const LoadedFile& file, const Occurrence& occ);
  Resolved resolveImport(const LoadedFile& file, const Occurrence& occ);
  Resolved resolveGlobal(const LoadedFile& file, const std::string& name);
  Resolved resolveGlobalUncached(const LoadedFile& file, const std::string& name);
  Resolved resolveMember(const LoadedFile& file, const Occurrence& occ);
  std::optional<SymbolLocation> locationOf(const Target& t);
  // What a references query looks for in each file it reads: the names the symbol is spelled
  // with, the definitions they must resolve to (or, unresolved, the bare name).
  struct ReferenceQuery {
    std::set<std::string> names;
    std::set<Target> targets;
    bool unresolved = false;
    std::string startName;
    bool includeDeclaration = true;
    Confidence confidence = Confidence::Exact;
  };
  ReferenceQuery referenceQuery(const LoadedFile& origin, const Occurrence& start, bool includeDeclaration);
  void referencesIn(const LoadedFile& file, const ReferenceQuery& query, std::vector<SymbolLocation>& found);
  std::vector<Target> declarationsOf(const std::vector<Target>& targets);
  CallNode nodeOf(const LoadedFile& f, int32_t def);
  struct Candidate {
    const LoadedFile* file;
    const Definition* def;
  };
  // A name-table entry's definition, or nullopt when its file cannot be loaded, belongs to
  // another language family (names never resolve across them), or lacks that definition.
  std::optional<Candidate> candidate(const DefinitionRef& d, int family);
  const std::vector<DefinitionRef>& definitionsNamed(const std::string& name, bool member);

  // C/C++ answers from libclang's facts come from clang_ (ClangNavigator) first; a file the
  // clang view does not cover, or a position it declines, answers from tree-sitter facts,
  // labelled by labelWithoutClang.
  // A file's text as the index holds it (the clang view's navigator reads `#undef`s there).
  Expected<std::string> indexedText(const std::string& path);
  ClangNavigator::AskedFile asked(const LoadedFile& f);
  // A C/C++ file the index skipped as too large (a bundled sqlite3.c), which the clang view
  // compiled and still describes (its stat signature holds): what the word answers read of it,
  // from its text on disk — the spellings in code of the word asked about stand for its
  // tree-sitter facts, which the index does not have. The same whether or not an editor has the
  // file open, so that the command line and the language server answer alike.
  struct DiskFile {
    FileFacts facts;
    std::string text;
    Language language = Language::Unknown;
  };
  std::optional<DiskFile> tooLargeFile(const std::string& path, uint32_t offset);
  // Asked at the first byte of a name libclang resolved nothing at, right after `::` (a member of
  // a template's type parameter, `T::value`): where clangd 14's selection, finding nothing at
  // the name, takes the token on the cursor's left, the `::`, so the qualifier (T). The offset
  // that names the qualifier (its end), or nullopt.
  std::optional<uint32_t> qualifierBefore(const LoadedFile& f, const Occurrence& occ, uint32_t offset);
  ClangNavigator::AskedFile asked(const DiskFile& f);
  void labelWithoutClang(const std::string& path, NavigationResult& out);
  // The answer where libclang resolved no name in compiled code (ClangNavigator::resolvedNothingAt).
  static NavigationResult unresolvedAnswer(const std::string& name);
  std::optional<NavigationResult> recoveredLocal(const std::string& path, const FileFacts& facts, const Occurrence& occ);
  std::optional<NavigationResult> recoveredReferences(const std::string& path, const FileFacts& facts, const Occurrence& occ,
                                                      bool includeDeclaration);
  void addRecoveredUses(const std::string& path, NavigationResult& refs);
  // The callees of the call whose name is at `site`, from libclang's facts: the tree-sitter
  // definitions where clang's entity is defined (else declared); empty when clang recorded no
  // reference there or none of its sites maps (then tree-sitter resolution answers). `memo`
  // keeps each clang symbol's answer for one walk.
  std::vector<Target> clangCalleesAt(const std::vector<ClangFileOccurrence>& occurrences, const ByteRange& site,
                                     std::map<uint32_t, std::vector<Target>>& memo);
  // forEachEdge's parts (StaticProviderGraph.cpp): a file's call edges (returning the
  // occurrences that are calls) and its type uses; callees are definitions where one exists.
  std::vector<Target> preferDefinitions(std::vector<Target> targets);
  std::set<uint32_t> callEdgesOf(const LoadedFile& file, std::map<uint32_t, std::vector<Target>>& clangCallees,
                                 const std::function<void(SymbolEdge&&)>& visit);
  void typeUseEdgesOf(const LoadedFile& file, const std::unordered_set<std::string>& typeNames,
                      const std::set<uint32_t>& callOccurrences, const std::function<void(SymbolEdge&&)>& visit);
  // A delta version: lays its entries over the base's commit view (at open, and again when a
  // session's overlay of the path goes).
  Status applyVersionEntry(const DeltaEntry& entry);
  std::unique_ptr<VersionDelta> delta_;
  size_t sessionOverlays_ = 0;
  std::map<std::string, uint32_t> versionIds_;  // files the delta added: their ids
  void setOverlayOf(const std::string& path, Language language, FileFacts facts, bool fromVersion);
  std::unique_ptr<ClangNavigator> clang_;
  Status clangStatus_;  // why the version's clang view could not be opened
  // TypeScript/JavaScript and Python answers from the SCIP indexers' facts (the precise view,
  // in the clang view's format) come first likewise. `preciseFor(path)`: the precise view's
  // navigator for those languages (else nullptr); `compilerFacts(path)`: the navigator of
  // whichever compiler's facts cover the path's language (nullptr: none).
  std::unique_ptr<ClangNavigator> precise_;
  ClangNavigator* preciseFor(const std::string& path);
  ClangNavigator* compilerFacts(const std::string& path);
  // Definition and references from clang's and tree-sitter's facts (after the precise view).
  Expected<NavigationResult> definitionFromFacts(const std::string& path, uint32_t offset, bool declarations);
  Expected<NavigationResult> referencesFromFacts(const std::string& path, uint32_t offset, bool includeDeclaration);
  static Expected<NavigationResult> onlyIfResolved(Expected<NavigationResult> r);
  static Expected<NavigationResult> scoped(Expected<NavigationResult> r);
  void addJsDocParameterTags(NavigationResult& out);
  // At a call of an overloaded TypeScript function: the one signature that can take the call's
  // arguments, as TypeScript's server answers (providers/TypeScriptOverloads.h); where several
  // can, every signature stays, labelled `name` (facet `overload`): not the server's answer.
  void narrowOverloadCall(const std::string& path, uint32_t offset, NavigationResult& out);
  Manifest manifest_;
  std::unique_ptr<CommitView> view_;
  std::unique_ptr<FactStore> factStore_;
  std::optional<FactStore::Reader> reader_;
  std::unordered_map<uint32_t, std::unique_ptr<LoadedFile>> cache_;
  // Workspace symbols in a process that answers more than one (a server, the daemon): each
  // definition key's place in the key list and the byte classes of its name (SymbolMatcher),
  // made by the second query, so that later ones test a word per name instead of scanning the
  // list for the query's rarest byte (a common letter there visits a fifth of 550k names).
  struct KeyLine {
    uint32_t offset = 0, length = 0;
    uint64_t classes = 0;
  };
  std::vector<KeyLine> keyLines_;
  unsigned symbolQueries_ = 0;
  void indexKeyLines(std::string_view keys);
  // Calls visit(key) for the keys whose names may score against `matcher`: by the index from
  // the second query of this provider on, by SymbolMatcher::forEachCandidate's scan before.
  void forEachKeyCandidate(std::string_view keys, const SymbolMatcher& matcher,
                           const std::function<void(std::string_view)>& visit);
  std::vector<std::unique_ptr<LoadedFile>> retired_;  // partial entries replaced by complete ones
  std::map<std::pair<std::string, bool>, std::vector<DefinitionRef>> defCache_;
  std::map<std::string, std::vector<Target>> moduleFiles_;  // whole-module imports -> files
  std::map<std::string, std::unique_ptr<LoadedFile>> overlays_;  // by path
  std::unordered_map<uint32_t, const LoadedFile*> overlayById_;
  uint32_t nextOverlayId_ = 0x80000000u;  // ids for files the index does not know
  std::vector<uint32_t> filesMentioning(const std::string& name);
  void invalidateCaches();
  void releaseAfterDecoding();
  // Once the cache is over its bound, drops the files asked for longest ago until it is at half
  // of it, never `fileId`'s. Only where nothing but `fileId`'s entry is pointed at.
  void trimCacheKeeping(uint32_t fileId);
  // Whether every target is bound inside a function or block (or nowhere a reference can see):
  // then only its own file can refer to it.
  bool targetsAreLocal(const std::set<Target>& targets);
  uint64_t useClock_ = 0;
  void beginQuery();
  // About 90 bytes each once decoded. With 500k (trimmed to half, oldest first, also in the
  // middle of a references query), `nib serve` peaked at 146 MiB through 400 requests on qemu;
  // 4 M, emptied only between queries, let it reach 888 MiB.
  static constexpr size_t kMaxCachedOccurrences = 500'000;
  size_t cacheBound_ = kMaxCachedOccurrences;
  size_t cachedOccurrences_ = 0;
  static constexpr size_t kReleaseAfterDecoded = 200'000;
  size_t decodedSinceRelease_ = 0;
  std::map<std::pair<uint32_t, std::string>, Resolved> globalMemo_;
};

}  // namespace nib
