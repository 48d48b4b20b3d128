#include "server/Engine.h"

#include <atomic>
#include <chrono>
#include <sys/stat.h>

#include <functional>
#include <optional>
#include <thread>
#include <unordered_set>

#include "support/DefinitionText.h"
#include "support/FileIo.h"
#include "support/Log.h"
#include "support/RepoPath.h"
#include "views/IndexLayout.h"

namespace nib {
namespace fs = std::filesystem;

Engine::~Engine() = default;

Expected<std::unique_ptr<Engine>> Engine::open(const fs::path& path, const fs::path& indexDir) {
  auto repo = gitlite::discover(path);
  if (!repo) return repo.status();
  std::unique_ptr<Engine> e(new Engine());
  e->root_ = repo->worktree;
  e->repo_ = std::move(*repo);
  e->indexDir_ = indexDir.empty() ? IndexLayout::forRepository(e->root_).dir() : indexDir;
  auto provider = StaticProvider::open(e->indexDir_);
  if (!provider) return provider.status();
  e->provider_ = std::move(*provider);
  Engine* self = e.get();
  e->provider_->setShownFiles([self](const std::string& p) { return self->isOpen(p); });
  return e;
}

Expected<std::string> Engine::repoPath(const fs::path& path) const {
  auto p = RepoPath::fromFilesystem(root_, path);
  if (!p) return p.status();
  return p->str();
}

Expected<uint32_t> Engine::offsetOf(const std::string& path, Position pos) {
  auto content = currentText(path);
  if (!content) return content.status();
  LineTable lines(*content);
  uint32_t offset;
  if (!lines.offsetOf(pos, &offset))
    return Status(ErrorCode::InvalidArgument, path + " has " + std::to_string(lines.lineCount()) + " lines; line " +
                                                  std::to_string(pos.line + 1) + " does not exist");
  if (pos.column > lines.lineText(pos.line).size())
    return Status(ErrorCode::InvalidArgument, "line " + std::to_string(pos.line + 1) + " of " + path + " has " +
                                                  std::to_string(lines.lineText(pos.line).size()) + " bytes; column " +
                                                  std::to_string(pos.column + 1) + " is past its end");
  return offset;
}

FileState Engine::fileState(const std::string& path) {
  FileState s;
  auto record = provider_->file(path);
  if (!record) return s;
  s.indexed = true;
  auto content = readWorktreeFile(path);
  if (!content) {
    s.changedOnDisk = true;
    return s;
  }
  s.changedOnDisk = gitlite::blobId(*content) != record->blobOid;
  return s;
}

Expected<std::string> Engine::diskContent(const std::string& path) { return readWorktreeFile(path); }

Expected<std::string> Engine::readWorktreeFile(const std::string& path) { return nib::readWorktreeFile(root_, path); }

Expected<Freshness> Engine::freshness(bool withWorktree, bool asAnswered) {
  Freshness f;
  const Manifest& m = manifest();
  f.indexVersion = m.versionId;
  f.indexCommit = m.sourceCommit;
  f.indexTree = m.sourceTree;
  f.indexDirty = m.dirty;
  auto head = gitlite::headCommit(repo_);
  if (!head) return head.status();
  f.headCommit = *head;
  f.headMatches = f.headCommit == f.indexCommit;
  // The worktree comparison the overlays follow, when they are in step with it: taken for this
  // request anyway, so every answer can say what it saw without comparing again.
  const bool synced = snapshot_ && comparison_ && syncedGeneration_ == comparisonGeneration_;
  if (withWorktree || synced) {
    // Stat-based first (no libgit2): conclusive unless folders gained entries that only git's
    // ignore rules can judge; then the probe (a full scan of the worktree with git's rules)
    // decides, when the caller asked for the worktree's tree. The comparison is the one search
    // and the overlays use (cached while a watcher sees no event), so a request pays for it once.
    const WorktreeComparison* cmp = withWorktree && !(asAnswered && synced) ? worktreeComparison() : &*comparison_;
    if (cmp && withWorktree) computeTreeId(*snapshot_, &*comparison_);
    if (cmp && cmp->conclusive) {
      f.worktreeTree = cmp->unchanged ? m.sourceTree : cmp->treeId;
      f.changedFiles = cmp->changed;
      f.deletedFiles = cmp->deleted;
      f.worktreeMethod = "stat";
    } else if (withWorktree && worktreeProbe_) {
      auto tree = worktreeProbe_(root_);
      if (!tree) return tree.status();
      f.worktreeTree = *tree;
      f.worktreeMethod = "scan";
    } else {
      f.worktreeMethod = cmp ? "stat" : "unknown";
    }
    f.worktreeMatches = !f.worktreeTree.empty() && f.worktreeTree == f.indexTree;
    f.fresh = f.headMatches && f.worktreeMatches;
  } else {
    // Without a worktree comparison only HEAD can be compared; a dirty-built index is fresh only
    // if the worktree still matches, which is unknown here.
    f.fresh = f.headMatches && !f.indexDirty;
    f.worktreeMethod = "unchecked";
  }
  f.worktreeEvents = watcher_ ? watcher_->source() : "none";
  // Overlays of the whole worktree (changed files re-extracted, deleted ones tombstoned, new ones
  // added) make answers equal those of a fresh index of the worktree as it is: not fresh, but
  // not partial either.
  // In step again after the comparison above: events it took since the overlays were synced
  // are not overlaid yet, so the answer is not labelled as if they were.
  const bool inStep = snapshot_ && comparison_ && syncedGeneration_ == comparisonGeneration_;
  f.overlaid = inStep && overlay_.complete && !comparison_->unchanged;
  f.overlaidFiles = inStep ? overlay_.files : 0;
  if (inStep && !overlay_.complete) f.partialReason = overlay_.reason;
  f.partial = !f.fresh && !f.overlaid;
  return f;
}

Expected<NavigationResult> Engine::definition(const std::string& path, uint32_t offset, bool declarations) {
  return provider_->definition(path, offset, declarations);
}

Expected<NavigationResult> Engine::references(const std::string& path, uint32_t offset, bool includeDeclaration) {
  return provider_->references(path, offset, includeDeclaration);
}

std::vector<SymbolMatch> Engine::symbols(std::string_view query, size_t limit) { return provider_->symbols(query, limit); }

}  // namespace nib

namespace nib {

Expected<std::string> Engine::currentText(const std::string& path) {
  if (auto it = buffers_.find(path); it != buffers_.end()) return it->second.text;
  return readWorktreeFile(path);
}

Status Engine::refreshOverlay(const std::string& path, const std::string& text) {
  if (!extractor_) return Status::ok();
  Language lang = detectLanguage(path, std::string_view(text).substr(0, 16384));
  auto record = provider_->file(path);
  // Content identical to what the index holds needs no overlay.
  if (record && record->blobOid == gitlite::blobId(text) && !provider_->hasOverlay(path)) return Status::ok();
  if (lang == Language::Unknown) {
    graph_.reset();
    provider_->removeOverlay(path);
    return Status::ok();
  }
  auto facts = extractor_(lang, text);
  if (!facts) return facts.status();
  graph_.reset();
  // A file the index skipped (too large) whose text is the disk's: the compiler's view of it,
  // which the clang view keeps for a file its units compiled, still holds.
  // Such a file is large: its size is compared first, so that an edit (a buffer of another
  // size) does not read it from disk at each keystroke.
  bool asOnDisk = false;
  std::error_code ec;
  if (provider_->skipReason(path) && std::filesystem::file_size(root_ / path, ec) == text.size() && !ec) {
    auto disk = readWorktreeFile(path);
    asOnDisk = disk && *disk == text;
  }
  provider_->setOverlay(path, lang, std::move(*facts), asOnDisk);
  return Status::ok();
}

Status Engine::openBuffer(const std::string& path, std::string text) {
  // Revisions are unique within the process, across engines (a server reopens its engine).
  static std::atomic<uint64_t> revisions{0};
  BufferText& buffer = buffers_[path];
  buffer.text = std::move(text);
  buffer.revision = ++revisions;
  return refreshOverlay(path, buffer.text);
}

Status Engine::updateBuffer(const std::string& path, std::string text) { return openBuffer(path, std::move(text)); }

Status Engine::closeBuffer(const std::string& path) {
  buffers_.erase(path);
  // The disk decides again: the worktree overlay looks at this path afresh next time.
  syncedGeneration_ = UINT64_MAX;
  diskOverlays_.erase(path);
  auto disk = readWorktreeFile(path);
  auto record = provider_->file(path);
  if (!disk) {
    graph_.reset();
    // Gone from the disk: a file the index has is a tombstone; one it never had just closes.
    if (record && extractor_ && snapshot_) provider_->setTombstone(path);
    else provider_->removeOverlay(path);
    return Status::ok();
  }
  // Back to the disk: no overlay when the disk matches the index, or when the index skipped the
  // file (too large) and so holds no facts of it to differ from; else the disk's facts.
  if ((record && record->blobOid == gitlite::blobId(*disk)) || provider_->skipReason(path)) {
    graph_.reset();
    provider_->removeOverlay(path);
    return Status::ok();
  }
  return refreshOverlay(path, *disk);
}

Expected<HoverInfo> Engine::hover(const std::string& path, uint32_t offset) {
  auto def = provider_->definition(path, offset);
  if (!def) return def.status();
  if (def->locations.empty()) return Status(ErrorCode::NotFound, Reason::NoSymbol, def->note);
  HoverInfo info;
  info.location = def->locations.front();
  auto record = provider_->file(info.location.path);
  info.language = record ? record->language : Language::Unknown;
  auto text = currentText(info.location.path);
  if (!text) return info;
  LineTable lines(*text);
  const ByteRange& full = info.location.fullRange;
  info.signature = definitionSignature(lines, full.start.line, info.location.range.start.line);
  info.doc = leadingComment(lines, full.start.line);
  if (info.doc.empty() && info.language == Language::Python &&
      (isCallableKind(info.location.kind) || isTypeKind(info.location.kind)))
    info.doc = pythonDocstring(*text, info.location.range.endByte);
  return info;
}

Expected<std::vector<SymbolTreeNode>> Engine::documentSymbols(const std::string& path, FileFacts* factsOut) {
  auto facts = provider_->facts(path);
  if (!facts) return facts.status();
  const auto& defs = facts->definitions;
  auto shown = [&](int32_t i) {
    const Definition& d = defs[i];
    return (d.scope == BindingScope::Global || d.scope == BindingScope::Member) && d.kind != SymbolKind::Parameter &&
           d.kind != SymbolKind::TypeParameter;
  };
  // Children under the nearest shown ancestor; definitions come in source order.
  std::vector<std::vector<int32_t>> children(defs.size());
  std::vector<int32_t> roots;
  for (int32_t i = 0; i < static_cast<int32_t>(defs.size()); ++i) {
    if (!shown(i)) continue;
    int32_t p = defs[i].parent;
    while (p >= 0 && !shown(p)) p = defs[p].parent;
    (p >= 0 ? children[p] : roots).push_back(i);
  }
  std::function<SymbolTreeNode(int32_t)> build = [&](int32_t i) {
    SymbolTreeNode n{i, {}};
    for (int32_t c : children[i]) n.children.push_back(build(c));
    return n;
  };
  std::vector<SymbolTreeNode> out;
  for (int32_t r : roots) out.push_back(build(r));
  if (factsOut) *factsOut = std::move(*facts);
  return out;
}

Expected<std::vector<CallNode>> Engine::callablesAt(const std::string& path, uint32_t offset) {
  return provider_->callablesAt(path, offset);
}
Expected<std::vector<CallNode>> Engine::definitionsAt(const std::string& path, uint32_t offset) {
  return provider_->callablesAt(path, offset, /*callableOnly=*/false);
}

Expected<const CallGraph*> Engine::callGraph() {
  if (graph_) return &*graph_;
  // A version is immutable: its graph (without overlays) is resolved once, by whichever
  // process asks first, and kept beside it for every later process. A missing, unreadable or
  // older-format file is simply resolved again; failing to keep it is not an error.
  bool pristine = !provider_->hasOverlays();
  fs::path kept = IndexLayout(indexDir_).callGraphFile(manifest().versionId);
  if (pristine)
    if (auto bytes = readFile(kept))
      if (auto g = CallGraph::deserialize(*bytes)) {
        graph_ = std::move(*g);
        return &*graph_;
      }
  auto g = CallGraph::build(*provider_);
  if (!g) return g.status();
  graph_ = std::move(*g);
  if (pristine) (void)writeFileAtomic(kept, graph_->serialize());
  return &*graph_;
}

std::vector<CallNode> Engine::definitionsNamed(const std::string& symbol) {
  // The last separator splits the qualifier from the name: "lru::Cache::get", "Cache.get".
  size_t dot = symbol.rfind('.');
  size_t colons = symbol.rfind("::");
  size_t cut = std::string::npos, width = 0;
  if (dot != std::string::npos) cut = dot, width = 1;
  if (colons != std::string::npos && (cut == std::string::npos || colons > cut)) cut = colons, width = 2;
  if (cut == std::string::npos || cut == 0) return provider_->nodesNamed(symbol);
  return provider_->nodesNamed(symbol.substr(cut + width), symbol.substr(0, cut));
}

Expected<std::vector<CallEdge>> Engine::incomingCalls(const std::string& path, int32_t definition) {
  // The call hierarchy and nib/callers are one walk over one graph.
  auto node = provider_->node(path, definition);
  if (!node) return node.status();
  auto graph = callGraph();
  if (!graph) return graph.status();
  std::vector<CallEdge> out;
  for (GraphHop& h : (*graph)->callers(path, definition, 1, SIZE_MAX)) out.push_back({std::move(h.from), std::move(h.sites)});
  return out;
}
Expected<std::vector<CallEdge>> Engine::outgoingCalls(const std::string& path, int32_t definition) {
  auto node = provider_->node(path, definition);
  if (!node) return node.status();
  auto graph = callGraph();
  if (!graph) return graph.status();
  std::vector<CallEdge> out;
  for (GraphHop& h : (*graph)->callees(path, definition, 1, SIZE_MAX)) out.push_back({std::move(h.to), std::move(h.sites)});
  // The callee called first comes first, as the calls read.
  std::stable_sort(out.begin(), out.end(), [](const CallEdge& a, const CallEdge& b) {
    return a.sites.front().startByte < b.sites.front().startByte;
  });
  return out;
}

}  // namespace nib

namespace nib {

Expected<SearchResult> Engine::search(const SearchRequest& request) {
  if (!search_) search_ = SearchProvider::open(IndexLayout(indexDir_).versionDir(manifest().versionId), manifest());
  SearchContext context;
  context.readCurrent = [this](const std::string& path) { return currentText(path); };
  context.packedContent = [this](const std::string& oid) -> std::optional<std::string_view> {
    auto c = provider_->factReader().packedContent(oid);
    if (!c) return std::nullopt;
    return *c;
  };
  // Changed files are cut into units by their facts when those are of the content searched: an
  // overlay's (kept in step with the buffer or the disk) or the version's own (a delta entry the
  // disk still holds). Files the comparison found changed on disk differ from the version: no
  // need to hash them to know.
  // The worktree as it is now, by stat data (hashing only files whose stat changed): taken once,
  // so that every use below sees the same comparison.
  const WorktreeComparison* cmp = worktreeComparison();
  auto changedOnDisk = std::make_shared<std::unordered_set<std::string>>();
  if (cmp) changedOnDisk->insert(cmp->changed.begin(), cmp->changed.end());
  context.currentFacts = [this, changedOnDisk](const std::string& path, std::string_view content) -> std::optional<FileFacts> {
    bool current = provider_->hasOverlay(path);
    if (!current && changedOnDisk->count(path)) return std::nullopt;
    if (!current) {
      auto record = provider_->file(path);
      if (!record || record->blobOid != gitlite::blobId(content)) return std::nullopt;
    }
    auto facts = provider_->facts(path);
    if (!facts) return std::nullopt;
    return std::move(*facts);
  };
  // A delta version's files differ from the base whose search views it shares: searched as
  // they are (the comparison below is against the delta's own snapshot, so the disk holds
  // the delta's content unless it changed again, and then the disk is what counts).
  for (const DeltaEntry& e : provider_->versionDelta()) {
    if (e.searchable) context.changed.insert(e.path);
    else context.deleted.insert(e.path);
  }
  if (cmp) {
    context.changed.insert(cmp->changed.begin(), cmp->changed.end());
    context.deleted.insert(cmp->deleted.begin(), cmp->deleted.end());
    // New entries may be files git ignores: without git's rules they are reported, not searched.
    context.notSearched = cmp->added;
  }
  // Files the index skipped as binary or too large stay out, as they were indexed, even when they
  // changed since (grep would print them; the answer says so). Files that became symbolic links
  // are not followed: the indexer skips links, and a link may point outside the workspace.
  // (Binary files are left out without a word, as rg does.)
  for (auto it = context.changed.begin(); it != context.changed.end();) {
    auto reason = provider_->skipReason(*it);
    bool skipped = reason && (reason->rfind(kTooLargeReason, 0) == 0 || reason->rfind("binary", 0) == 0);
    struct stat st;
    bool link = !skipped && ::lstat((root_ / *it).c_str(), &st) == 0 && S_ISLNK(st.st_mode);
    if (link) context.deleted.insert(*it);
    it = skipped || link ? context.changed.erase(it) : std::next(it);
  }
  if (auto n = manifest().stats.find("skipped.too-large"); n != manifest().stats.end() && n->second != "0")
    context.skippedTooLarge = std::strtoull(n->second.c_str(), nullptr, 10);
  // Open buffers are what the user sees: they override the disk.
  // (A buffer of a file the index lacks is "changed" too: it is searched as it is.)
  for (const auto& [path, buffer] : buffers_) {
    context.changed.insert(path);
    context.deleted.erase(path);
    std::erase(context.notSearched, path);
  }
  if (request.route == SearchRoute::Structural) return searchStructural(request, context);
  return search_->search(request, context);
}

}  // namespace nib

namespace nib {

void Engine::watchWorktree(bool fromClient) {
  if (!snapshot_) {
    if (auto s = provider_->worktreeSnapshot()) snapshot_ = std::move(*s);
  }
  if (!snapshot_) return;
  std::vector<std::string> folders;
  for (const auto& d : snapshot_->dirs) folders.emplace_back(d.path);
  watcher_ = fromClient ? std::make_unique<WorktreeWatcher>(root_, folders, WorktreeWatcher::FromClient{})
                        : std::make_unique<WorktreeWatcher>(root_, folders);
  comparison_.reset();
}

const WorktreeComparison* Engine::worktreeComparison() {
  if (!snapshot_) {
    if (auto s = provider_->worktreeSnapshot()) snapshot_ = std::move(*s);
    else return nullptr;
  }
  // Events are drained before comparing, so a change during the comparison is seen next time.
  // With the folders that had events known, only their files are looked at again.
  if (!comparison_ || (!watcher_ && !compareOnce_)) {
    comparison_ = compareWorktree(root_, *snapshot_, &hashCache_);
    ++comparisonGeneration_;
  } else if (!watcher_) {
    // A one-shot command's comparison stands for the whole command.
  } else if (WorktreeWatcher::Events events = watcher_->drain(); events.any) {
    comparison_ = events.all ? compareWorktree(root_, *snapshot_, &hashCache_)
                             : compareWorktree(root_, *snapshot_, &hashCache_, &*comparison_, &events.folders);
    ++comparisonGeneration_;
  }
  return &*comparison_;
}

std::map<std::string, std::string> Engine::worktreeChanges(const WorktreeComparison& cmp, size_t budget,
                                                           WorktreeOverlay* state) {
  std::map<std::string, std::string> wanted;  // path -> blob id now ("" = deleted)
  auto overBudget = [&] {
    if (wanted.size() < budget) return false;
    state->complete = false;
    state->reason = "more than " + std::to_string(budget) + " files changed since the index was built";
    return true;
  };
  for (const std::string& p : cmp.deleted) {
    if (overBudget()) break;
    wanted[p] = "";
  }
  auto addFile = [&](const std::string& p) {
    if (overBudget()) return;
    struct stat st;
    if (::lstat((root_ / p).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      wanted[p] = "";  // a link or something else now: out of the answers, as the indexer would leave it
      return;
    }
    auto oid = gitlite::blobIdOfFile(root_ / p);
    if (!oid) {
      state->complete = false;
      state->reason = "cannot read " + p;
      return;
    }
    wanted[p] = *oid;
  };
  for (const std::string& p : cmp.changed) addFile(p);
  // New entries: files git does not ignore, and the files of new folders.
  for (const std::string& p : cmp.added) {
    if (!ignored_) {
      state->complete = false;
      state->reason = "new files were not judged (no ignore rules)";
      break;
    }
    if (ignored_(p)) continue;
    std::error_code ec;
    fs::path full = root_ / p;
    if (fs::is_symlink(full, ec)) continue;  // the indexer skips links
    if (fs::is_regular_file(full, ec)) {
      addFile(p);
    } else if (fs::is_directory(full, ec)) {
      for (auto it = fs::recursive_directory_iterator(full, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::string rel = fs::relative(it->path(), root_, ec).generic_string();
        if (ignored_(rel)) {
          if (it->is_directory(ec)) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) addFile(rel);
      }
    }
  }
  return wanted;
}

bool Engine::applyWorktreeOverlays(const std::map<std::string, std::string>& wanted) {
  bool changed = false;
  // Files that went back to what the index holds, or are buffers now: the index (or the buffer)
  // answers again.
  for (auto it = diskOverlays_.begin(); it != diskOverlays_.end();) {
    if (wanted.count(it->first) || buffers_.count(it->first)) {
      ++it;
      continue;
    }
    provider_->removeOverlay(it->first);
    it = diskOverlays_.erase(it);
    changed = true;
  }
  struct Job {
    std::string path, text;
    Language language = Language::Unknown;
    std::optional<Expected<FileFacts>> facts;
  };
  std::vector<Job> jobs;
  for (const auto& [path, oid] : wanted) {
    if (buffers_.count(path)) continue;
    if (auto known = diskOverlays_.find(path); known != diskOverlays_.end() && known->second == oid) continue;
    changed = true;
    if (oid.empty()) {
      provider_->setTombstone(path);
      diskOverlays_[path] = oid;
      continue;
    }
    auto text = readWorktreeFile(path);
    if (!text) continue;  // gone again since it was hashed: the next comparison sees it
    diskOverlays_[path] = oid;
    Language lang = detectLanguage(path, std::string_view(*text).substr(0, 16384));
    // The index's rules: binary files stay out; a file without a grammar has no facts to
    // overlay (the search views read it from disk anyway).
    bool binary = std::string_view(*text).substr(0, kBinaryProbeBytes).find('\0') != std::string_view::npos;
    if (lang == Language::Unknown || binary) {
      if (provider_->file(path)) provider_->setTombstone(path);
      continue;
    }
    jobs.push_back(Job{path, std::move(*text), lang, std::nullopt});
  }
  // Extraction is most of the cost when many files changed (a branch switch, a pull): it runs
  // on every core, and the provider takes the results in order.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) jobs[i].facts = extractor_(jobs[i].language, jobs[i].text);
  };
  const unsigned threads = jobs.size() < 4 ? 1 : std::min<unsigned>(4, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (Job& job : jobs) {
    if (*job.facts) provider_->setOverlay(job.path, job.language, std::move(**job.facts));
    else if (provider_->file(job.path)) provider_->setTombstone(job.path);
  }
  return changed;
}

const Engine::WorktreeOverlay& Engine::syncWorktreeOverlays(size_t budget) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto msSince = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  const WorktreeComparison* cmp = worktreeComparison();
  if (!cmp) {
    overlay_ = WorktreeOverlay{0, false, "no worktree snapshot"};
    return overlay_;
  }
  if (comparisonGeneration_ == syncedGeneration_) return overlay_;
  const double compareMs = msSince(start);
  if (!extractor_ && toolsLoader_ && !cmp->unchanged) {
    auto tools = toolsLoader_(root_);
    toolsLoader_ = nullptr;
    if (tools) {
      extractor_ = std::move(tools->extractor);
      if (!ignored_) ignored_ = std::move(tools->ignored);
    } else {
      toolsError_ = tools.status();
    }
  }
  // From here on the overlays reflect this comparison, whatever they could hold of it.
  syncedGeneration_ = comparisonGeneration_;
  if (!extractor_) {
    overlay_ = WorktreeOverlay{0, cmp->unchanged,
                               toolsError_.isOk() ? "no extractor" : "the worktree cannot be overlaid: " + toolsError_.message()};
    return overlay_;
  }
  WorktreeOverlay state;
  if (applyWorktreeOverlays(worktreeChanges(*cmp, budget, &state))) graph_.reset();
  // The project's configuration changes what a build declares (which files are skipped, the
  // dense encoder, the compilation database): no overlay can stand for that, so answers say
  // partial (and the server rebuilds) until a version is built with it.
  for (const auto* list : {&cmp->changed, &cmp->deleted, &cmp->added})
    for (const std::string& p : *list)
      if (p == ".nib.conf" || p == "compile_commands.json") {
        state.complete = false;
        state.reason = p + " changed since the index was built";
      }
  state.files = diskOverlays_.size();
  for (const auto& [path, blob] : diskOverlays_) state.preciseFiles += provider_->preciseRead(path);
  overlay_ = state;
  logDebug("worktree overlay: " + std::to_string(state.files) + " file(s), compared in " + std::to_string(compareMs) +
           " ms, synced in " + std::to_string(msSince(start)) + " ms");
  return overlay_;
}

}  // namespace nib
