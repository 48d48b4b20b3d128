// The typed core every front end talks to (CLI today, the LSP and MCP servers next). Speaks
// repository paths and byte offsets; never URIs or JSON. Owns the repository handle and the
// static provider over the current index version, and says how fresh each answer is.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "providers/SearchProvider.h"
#include "providers/CallGraph.h"
#include "providers/PolicyNavigator.h"
#include "providers/StaticProvider.h"
#include "server/WorktreeWatcher.h"
#include "support/GitLite.h"
#include "support/Status.h"
#include "support/Text.h"
#include "views/Manifest.h"

namespace nib {

// What a rename changes: the symbol's every occurrence (name ranges), and the one at the
// position asked about.
struct RenamePlan {
  std::string oldName;
  std::vector<SymbolLocation> occurrences;
  SymbolLocation at;
};

// A region an editor may fold: whole lines, 0-based, both inclusive.
struct FoldRange {
  uint32_t startLine = 0, endLine = 0;
  friend bool operator<(const FoldRange& a, const FoldRange& b) {
    return a.startLine != b.startLine ? a.startLine < b.startLine : a.endLine > b.endLine;
  }
  friend bool operator==(const FoldRange& a, const FoldRange& b) = default;
};

struct Freshness {
  std::string indexVersion;
  std::string indexCommit;   // the commit the index was built from
  std::string indexTree;     // the tree it reflects (the worktree's when built dirty)
  bool indexDirty = false;   // built from a dirty worktree
  std::string headCommit;    // HEAD now
  std::string worktreeTree;  // the worktree's tree now ("" when not computed)
  bool headMatches = false;  // indexCommit == headCommit
  bool worktreeMatches = false;  // indexTree == worktreeTree (only when computed)
  bool fresh = false;        // everything the index reflects still holds
  bool partial = false;      // some answers may miss changes (stale files)
  bool overlaid = false;     // changed, deleted and new files are overlaid: answers reflect the worktree
  size_t overlaidFiles = 0;  // how many files the overlays hold
  std::string partialReason;  // what the overlays left out, when they are incomplete
  std::string worktreeMethod;  // "stat" (snapshot comparison), "scan" (full), "unknown", "unchecked"
  std::string worktreeEvents;  // who tells of changes: "inotify", "client" (the editor), "none"
  std::vector<std::string> changedFiles;  // known from the stat comparison
  std::vector<std::string> deletedFiles;
};

// The state of one file relative to the index, for labelling an answer about it.
struct FileState {
  bool indexed = false;
  bool changedOnDisk = false;  // its content differs from the indexed blob
};

// Computes the worktree's tree id (the way `git write-tree` over a temporary index would).
// That needs the git index and ignore rules, so front ends supply it from the indexer side;
// the query path never loads libgit2.
using WorktreeProbe = std::function<Expected<std::string>(const std::filesystem::path& root)>;
// Extracts a file's facts (the indexer's Extractor). Injected by front ends that edit buffers
// (the LSP server); the query CLI never needs it and stays free of tree-sitter.
using FactsExtractor = std::function<Expected<FileFacts>(Language language, std::string_view content)>;

// What hover shows for a symbol.
struct HoverInfo {
  std::string signature;  // the definition's first line
  std::string doc;        // the comment or docstring that documents it
  SymbolLocation location;
  Language language = Language::Unknown;
};

// What laying the worktree over the index needs beyond the Engine: a facts extractor and git's
// ignore rules. The light executable loads them (tree-sitter, libgit2) only when the worktree
// differs from the index, through a loader the Engine calls the first time it does.
struct WorktreeTools {
  FactsExtractor extractor;
  std::function<bool(const std::string& path)> ignored;
};
using WorktreeToolsLoader = std::function<Expected<WorktreeTools>(const std::filesystem::path& root)>;

// A documentSymbol tree node: an index into the file's definitions and its children.
struct SymbolTreeNode {
  int32_t definition;
  std::vector<SymbolTreeNode> children;
};

class Engine {
 public:
  // Opens the repository containing `path` and its current index (<repo>/.nib, or `indexDir`).
  static Expected<std::unique_ptr<Engine>> open(const std::filesystem::path& path,
                                                const std::filesystem::path& indexDir = {});
  void setWorktreeProbe(WorktreeProbe probe) { worktreeProbe_ = std::move(probe); }
  void setFactsExtractor(FactsExtractor extractor) { extractor_ = std::move(extractor); }
  // A long-running server watches the worktree, so that the stat comparison behind every
  // search runs again only after something changed: with inotify, or, when the editor watches
  // files for it (`fromClient`), from the changes it reports through noteWorktreeChanges.
  void watchWorktree(bool fromClient = false);
  // Paths (repository-relative) the editor reports created, changed or deleted; `unplaced`
  // when it reported some this side could not map to one (everything is looked at again).
  void noteWorktreeChanges(const std::vector<std::string>& paths, bool unplaced) {
    if (!watcher_) return;
    for (const std::string& p : paths) watcher_->notify(p);
    if (unplaced) watcher_->notifyAll();
  }
  // A one-shot command (the CLI) compares the worktree once, the first time an answer needs it,
  // and every later answer of the process uses that comparison. Without a watcher and without
  // this, every answer compares again.
  void compareWorktreeOnce() { compareOnce_ = true; }
  // Git's ignore rules for paths the index does not know (injected: the Engine has no libgit2).
  void setIgnoredPredicate(std::function<bool(const std::string& path)> ignored) { ignored_ = std::move(ignored); }
  // Called once, by the first syncWorktreeOverlays that finds the worktree changed, when no
  // extractor was set: its tools become the extractor and the ignore rules.
  void setWorktreeToolsLoader(WorktreeToolsLoader loader) { toolsLoader_ = std::move(loader); }

  // Makes every answer reflect the worktree as it is now (needs the facts extractor): files
  // changed on disk since the index was built are re-extracted into overlays, deleted files
  // become tombstones, and new files git does not ignore are added, up to `budget` files; open
  // buffers win over the disk. Cheap when nothing changed (the comparison is cached while the
  // watcher sees no event). The state says how complete the overlay is.
  struct WorktreeOverlay {
    size_t files = 0;          // overlaid from the disk (changed, added) or tombstoned
    bool complete = true;      // false: over budget, unreadable files, or new entries unjudged
    std::string reason;        // why not complete
    // Overlaid files the precise view read: answered from tree-sitter until its projects'
    // indexers run again (the server builds a new version for that: LspServer::refreshIfBehind).
    size_t preciseFiles = 0;
  };
  const WorktreeOverlay& syncWorktreeOverlays(size_t budget = kOverlayBudget);
  static constexpr size_t kOverlayBudget = 500;

  // Open editor buffers: their text replaces the disk content for positions, and their facts
  // (when an extractor is set) overlay the index in every answer.
  Status openBuffer(const std::string& path, std::string text);
  Status updateBuffer(const std::string& path, std::string text);
  // Closing falls back to the disk: an overlay stays while the disk differs from the index.
  Status closeBuffer(const std::string& path);
  // The text a position in `path` refers to: the open buffer, else the file on disk.
  Expected<std::string> currentText(const std::string& path);
  bool isOpen(const std::string& path) const { return buffers_.count(path) > 0; }
  // An open buffer's text without a copy, and its revision: a number no other text of any
  // buffer of any Engine in this process had, so that callers can keep what they derive from
  // the text (line tables) until the revision changes. Null when `path` is not open; the
  // pointer is valid until the buffer is updated or closed.
  struct BufferText {
    std::string text;
    uint64_t revision = 0;
  };
  const BufferText* bufferOf(const std::string& path) const {
    auto it = buffers_.find(path);
    return it == buffers_.end() ? nullptr : &it->second;
  }
  ~Engine();

  const std::filesystem::path& root() const { return root_; }
  const std::filesystem::path& indexDir() const { return indexDir_; }
  const Manifest& manifest() const { return provider_->manifest(); }
  // The index's records, overlays included (what the front ends show beside answers).
  std::optional<FileRecord> fileRecord(const std::string& path) { return provider_->file(path); }
  void forEachFile(const std::function<bool(const FileRecord&)>& visit) { provider_->forEachFile(visit); }
  Expected<FileFacts> facts(const std::string& path) { return provider_->facts(path); }
  // Whether buffers, the worktree or tombstones overlay the version now.
  bool hasOverlays() const { return provider_->hasOverlays(); }
  // C/C++ files the clang view indexed with a borrowed command, and main files another unit
  // #includes (the benchmark samples them apart).

  // Maps a filesystem path (absolute or relative to the working directory) to a repository path.
  Expected<std::string> repoPath(const std::filesystem::path& path) const;
  // Byte offset of a 0-based (line, UTF-8 byte column) position in the file as it is on disk.
  Expected<uint32_t> offsetOf(const std::string& path, Position pos);
  FileState fileState(const std::string& path);
  // The file's content on disk, for rendering and column conversion. When the file changed
  // since it was indexed (fileState), positions from the index may not line up with it.
  Expected<std::string> diskContent(const std::string& path);

  // Cheap: compares HEAD with the indexed commit. `withWorktree` also asks the worktree probe
  // for the worktree's tree id (a scan of the worktree; used by `nib status`). `asAnswered`:
  // the labels of an answer just given — the worktree as the overlays saw it for that answer,
  // without taking events that arrived since (which would make the answer look partial when
  // only its label is newer than it).
  Expected<Freshness> freshness(bool withWorktree, bool asAnswered = false);

  // A definition or references request at a byte offset (on 0-based `line`), stated for the
  // provider policy (EngineNavigation.cpp): the file's language (the index's, else detected
  // from its text) and whether the index may miss changes to it. Reads nothing for an indexed
  // file: the position a backend needs is found only when one is asked (locateForBackend).
  Expected<PolicyRequest> navigationRequest(NavigationKind kind, const std::string& path, uint32_t offset,
                                            uint32_t line, bool includeDeclaration, ProviderPolicy policy);
  // Fills the request's line and byte column in the text as it is now (the open buffer, else
  // the disk), for the live backend.
  Status locateForBackend(PolicyRequest& request);
  // When the policy asks the backend: locates the request for it (true), or, when the text
  // cannot be read, withdraws the ask and says why in the outcome (false).
  bool prepareBackendRequest(PolicyRequest& request, PolicyOutcome& outcome);
  // The index's answer to it, overlays applied.
  Expected<NavigationResult> indexAnswer(const PolicyRequest& request);
  // The measured agreement of the index's answers with the live backends (providers/Agreement),
  // loaded the first time it is asked for: this version's counts, else its predecessor's for
  // the facts it shares.
  void setCalibrationSettings(CalibrationSettings settings) {
    calibrationSettings_ = settings;
    if (calibration_) calibration_->setSettings(settings);
  }
  std::shared_ptr<Calibration> calibration();
  // The answer the policy chooses: the index's, or the live backend's through `navigator`.
  PolicyOutcome navigate(PolicyNavigator& navigator, PolicyRequest& request,
                         const std::function<bool()>& cancelled = {});

  Expected<NavigationResult> definition(const std::string& path, uint32_t offset, bool declarations = false);
  Expected<NavigationResult> references(const std::string& path, uint32_t offset, bool includeDeclaration);
  // A rename of the symbol at `offset` to `newName` (EngineRename.cpp): every occurrence to
  // edit, or a refusal (Reason::Unsafe) naming why the index cannot make it exactly — never a
  // partial one. An empty `newName` checks the symbol only (prepareRename).
  Expected<RenamePlan> planRename(const std::string& path, uint32_t offset, const std::string& newName);
  // The file's foldable regions (EngineFolding.cpp): every definition over several lines, as
  // the facts of the text as it is now give them.
  Expected<std::vector<FoldRange>> foldingRanges(const std::string& path);
  // What an editor's "expand selection" steps through from `offset` (EngineSelection.cpp): the
  // name there, its line, each definition and source unit around it, the whole file; innermost
  // first, each containing the one before, from the facts of the text as it is now.
  struct SelectionChain {
    std::vector<ByteRange> ranges;
    bool ascii = true;  // the file's columns are the same in every encoding
  };
  Expected<SelectionChain> selectionRanges(const std::string& path, uint32_t offset);
  // The occurrences in `path` of the symbol at `offset` (documentHighlight), with their roles.
  Expected<NavigationResult> highlights(const std::string& path, uint32_t offset) {
    return provider_->highlights(path, offset);
  }
  std::vector<SymbolMatch> symbols(std::string_view query, size_t limit);
  Expected<HoverInfo> hover(const std::string& path, uint32_t offset);
  // The file's definitions visible outside their function (types, members, functions,
  // globals), nested by containment.
  Expected<std::vector<SymbolTreeNode>> documentSymbols(const std::string& path, FileFacts* facts);
  Expected<std::vector<CallNode>> callablesAt(const std::string& path, uint32_t offset);
  // The definitions (of any kind) the identifier at a position names.
  Expected<std::vector<CallNode>> definitionsAt(const std::string& path, uint32_t offset);
  // A call-hierarchy node for a definition of `path` (-1: its top level).
  Expected<CallNode> node(const std::string& path, int32_t definition) { return provider_->node(path, definition); }
  // The type hierarchy (libclang's base-class edges): the class named at a position, and a
  // node's direct bases or derived classes.
  // textDocument/typeDefinition (StaticProvider::typeDefinitions).
  Expected<NavigationResult> typeDefinitions(const std::string& path, uint32_t offset) {
    return provider_->typeDefinitions(path, offset);
  }
  // textDocument/implementation (StaticProvider::implementations).
  Expected<NavigationResult> implementations(const std::string& path, uint32_t offset) {
    return provider_->implementations(path, offset);
  }
  Expected<std::vector<TypeNode>> typesAt(const std::string& path, uint32_t offset) {
    return provider_->typesAt(path, offset);
  }
  Expected<std::vector<TypeNode>> supertypes(uint32_t symbol, const std::string& name) {
    return provider_->supertypes(symbol, name);
  }
  Expected<std::vector<TypeNode>> subtypes(uint32_t symbol, const std::string& name) {
    return provider_->subtypes(symbol, name);
  }
  Expected<std::vector<CallEdge>> incomingCalls(const std::string& path, int32_t definition);
  Expected<std::vector<CallEdge>> outgoingCalls(const std::string& path, int32_t definition);
  // The call and type-use graph of the version with the open buffers' facts, resolved on first
  // use and again after a buffer changed. Valid until the next buffer change.
  Expected<const CallGraph*> callGraph();
  // Definitions named `symbol`: "name", or qualified as "Type.name" / "ns::name".
  std::vector<CallNode> definitionsNamed(const std::string& symbol);

  // Ranked search (lexical or trigram route) over the index, with files that changed since it
  // was built (on disk or in open buffers) searched as they are now.
  Expected<SearchResult> search(const SearchRequest& request);

 private:
  Engine() = default;
  std::filesystem::path root_;
  std::filesystem::path indexDir_;
  gitlite::Repository repo_;
  std::unique_ptr<SearchProvider> search_;
  std::unique_ptr<WorktreeWatcher> watcher_;
  std::optional<WorktreeComparison> comparison_;  // valid while the watcher saw no event
  WorktreeHashCache hashCache_;  // dirty files hashed by earlier comparisons
  bool compareOnce_ = false;
  const WorktreeComparison* worktreeComparison();
  // The structural route (StructuralSearch.cpp): lexical seeds and their call-graph neighbors.
  Expected<SearchResult> searchStructural(const SearchRequest& request, const SearchContext& context);
  std::unique_ptr<StaticProvider> provider_;
  // Decoded once (the version does not change). It views provider_'s memory, so it is declared
  // after provider_ and destroyed before it.
  std::optional<WorktreeSnapshot> snapshot_;
  WorktreeProbe worktreeProbe_;
  FactsExtractor extractor_;
  WorktreeToolsLoader toolsLoader_;
  Status toolsError_;  // why the loader failed (it is not asked again)
  std::map<std::string, BufferText> buffers_;  // open buffers by repository path
  std::optional<CallGraph> graph_;               // dropped whenever an overlay changes
  std::function<bool(const std::string&)> ignored_;
  std::map<std::string, std::string> diskOverlays_;  // path -> blob id overlaid ("" = tombstone)
  uint64_t comparisonGeneration_ = 0, syncedGeneration_ = UINT64_MAX;
  WorktreeOverlay overlay_;
  CalibrationSettings calibrationSettings_;
  std::shared_ptr<Calibration> calibration_;
  // Per version, the files no project builds: the clang view's without a compile command and
  // the precise view's outside every tsconfig.json (the live references answer leaves them out
  // unless open: PolicyRequest::unbuiltFiles). Read once per version.
  std::shared_ptr<const std::set<std::string>> unbuiltC_, unbuiltTs_;
  std::string unbuiltVersion_;
  Status refreshOverlay(const std::string& path, const std::string& text);
  // syncWorktreeOverlays' halves: what the worktree holds now where it differs from the index
  // (path -> blob id, "" for gone), within `budget`; then the overlays made to match it (true
  // when any changed).
  std::map<std::string, std::string> worktreeChanges(const WorktreeComparison& cmp, size_t budget, WorktreeOverlay* state);
  bool applyWorktreeOverlays(const std::map<std::string, std::string>& wanted);
  // A worktree file's bytes: regular files inside the worktree only (never through a link).
  Expected<std::string> readWorktreeFile(const std::string& path);
};

}  // namespace nib
