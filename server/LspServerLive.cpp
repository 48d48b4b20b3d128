// The LSP session's definition and references: the provider policy (static, live, compare,
// auto) over the index's answer and a live language server's, the live backends' start-up from
// the options and `.nib.conf`, and the trace log of every answer's provenance. The rest of the
// session is LspServer.cpp (handlers) and LspServerLoop.cpp (threads).
#include "views/IndexLayout.h"
#include "server/LspServer.h"

#include <ctime>
#include <fstream>

#include "protocol/PositionEncoder.h"
#include "server/StructuralAnswer.h"
#include "support/FileIo.h"
#include "support/Log.h"
#include "support/ProjectConfig.h"
#include "support/RepoPath.h"

namespace nib {

void LspServer::startLiveProvider() {
  LiveSettings settings;
  settings.root = root_;
  settings.commands = defaultLiveCommands(options_.backendsBin);
  long long timeoutMs = 5000;
  std::string provider = options_.provider;
  std::filesystem::path tracePath = options_.traceLog;
  if (auto config = ProjectConfig::load(root_)) {
    // A repository's own configuration must not make nib run its programs by merely being
    // opened: its commands are used only when the user allows it (as direnv or a workspace
    // trust prompt would ask).
    for (const char* language : {"c", "cpp", "python", "javascript", "typescript"})
      if (auto v = config->get(std::string("live.") + language)) {
        if (!options_.allowProjectCommands) {
          log(2, std::string(".nib.conf's live.") + language + " is ignored: commands from the repository run only with " +
                     "`nib serve --allow-project-commands`");
          continue;
        }
        Status s = parseLiveCommand(std::string(language) + "=" + *v, &settings.commands);
        if (!s.isOk()) log(2, ".nib.conf: " + s.message());
      }
    if (auto t = config->getInt("live.timeout-ms", timeoutMs, 50, 600000)) timeoutMs = *t;
    else log(2, t.status().message());
    if (provider.empty())
      if (auto v = config->get("provider")) provider = *v;
    if (tracePath.empty())
      if (auto v = config->get("live.trace-log")) {
        // Inside the repository only: the repository must not choose a file nib appends to.
        std::filesystem::path p = std::filesystem::path(*v).lexically_normal();
        if (p.is_absolute() || p.empty() || *p.begin() == "..")
          log(2, ".nib.conf's live.trace-log must be a path inside the repository; using .nib/trace.log");
        else
          tracePath = root_ / p;
      }
  } else {
    log(2, config.status().message() + " (live backends use their defaults)");
  }
  for (const std::string& spec : options_.liveCommands) {
    Status s = parseLiveCommand(spec, &settings.commands);
    if (!s.isOk()) log(2, "--live: " + s.message());
  }
  if (options_.liveTimeoutMs > 0) timeoutMs = options_.liveTimeoutMs;
  settings.timeout = std::chrono::milliseconds(timeoutMs);
  // A backend that does not even initialize must not stall the first request for long either:
  // the three default backends initialize in well under a second.
  settings.startTimeout = std::chrono::milliseconds(std::max(timeoutMs, 2000LL));
  // The backends' stderr goes next to the index (never into the client's stream).
  if (std::filesystem::is_directory(IndexLayout::forRepository(root_).dir())) settings.stderrPath = IndexLayout::forRepository(root_).dir() / "backends.log";
  if (!provider.empty()) {
    if (auto p = parseProviderPolicy(provider)) policy_ = *p;
    else log(2, p.status().message() + "; using auto");
  }
  tracePath_ = tracePath.empty() ? IndexLayout::forRepository(root_).dir() / "trace.log" : tracePath;
  std::filesystem::path root = root_;
  live_ = std::make_unique<LiveProvider>(
      std::move(settings), [root](const std::string& path) { return readWorktreeFile(root, path); },
      [this](const std::string& message) { log(2, message); });
}

void LspServer::trace(const std::string& line) {
  // One line per navigation answer: which provider answered and why. Appended (the folder may
  // not exist before the first index build: then nothing is written); cut at 8 MiB.
  // The stream stays open (a navigation request must not pay for opening the file); the size
  // is read once when it is opened and counted from then on.
  std::lock_guard<std::mutex> g(traceMutex_);
  std::error_code ec;
  if (!traceOut_.is_open()) {
    traceOut_.open(tracePath_, std::ios::app);
    traceBytes_ = std::filesystem::file_size(tracePath_, ec);
    if (ec) traceBytes_ = 0;
  }
  if (traceBytes_ > (8u << 20)) {
    traceOut_.close();
    std::filesystem::rename(tracePath_, tracePath_.string() + ".1", ec);
    traceOut_.open(tracePath_, std::ios::trunc);
    traceBytes_ = 0;
  }
  if (!traceOut_) return;
  std::string entry = utcTimestamp() + ' ' + line + '\n';
  traceOut_ << entry;
  traceOut_.flush();  // read by people and tests while the server runs
  traceBytes_ += entry.size();
}

std::string LspServer::answerNavigation(const Task& task, Engine& engine, std::optional<LiveJob>* live) {
  const std::string& m = task.method;
  LiveJob job;
  job.locate = m == "nib/locate";
  const lsp::TextDocumentPosition* where;
  std::string requested;
  if (job.locate) {
    const auto& p = std::get<lsp::LocateParams>(task.params);
    where = &p.at;
    job.kind = p.request;
    job.includeDeclaration = p.includeDeclaration;
    requested = p.provider;
  } else if (m == "textDocument/references") {
    const auto& p = std::get<lsp::ReferenceParams>(task.params);
    where = &p.at;
    job.kind = "references";
    job.includeDeclaration = p.includeDeclaration;
  } else {
    where = &std::get<lsp::TextDocumentPosition>(task.params);
    job.kind = "definition";
  }
  job.policy = policy_;
  if (!requested.empty())
    if (auto p = parseProviderPolicy(requested)) job.policy = *p;

  auto pos = positionOf(engine, *where);
  if (!pos) return failure(task, pos.status());
  job.path = pos->first;
  auto r = job.kind == "references" ? engine.references(pos->first, pos->second, job.includeDeclaration)
                                    : engine.definition(pos->first, pos->second);
  // The index knows the file's language; a file it does not know is detected from its text.
  if (auto record = engine.provider().file(job.path)) job.language = record->language;
  else if (auto text = engine.currentText(job.path)) job.language = detectLanguage(job.path, std::string_view(*text).substr(0, 4096));

  // The static answer, as a response and (for nib/locate) with its provenance.
  job.staticOk = static_cast<bool>(r);
  lsp::LocateResult& out = job.located;
  out.provider = "static";
  out.policy = providerPolicyName(job.policy);
  if (r) {
    for (const SymbolLocation& l : r->locations) job.staticKeys.insert({l.path, l.range.start.line});
    out.locations = wireLocations(engine, r->locations);
    out.confidence = confidenceName(r->confidence);
    out.note = r->note;
    out.facts = r->source;
    // Plain LSP methods answer with the locations alone; nib/locate encodes `out` at the end.
    if (!job.locate) job.staticBody = lsp::encodeResult(task.id, out.locations);
  } else {
    job.staticBody = failure(task, r.status());
  }
  bool partial = !overlayComplete_;
  if (job.locate) {
    if (auto f = engine.freshness(true)) {
      out.indexCommit = f->indexCommit;
      out.headCommit = f->headCommit;
      out.indexVersion = f->indexVersion;
      out.worktreeTree = f->worktreeTree;
      FileState state = engine.fileState(pos->first);
      out.fresh = f->fresh && !state.changedOnDisk;
      // With the worktree overlaid, answers equal a fresh index's even when it is not fresh.
      out.partial = !out.fresh && !f->overlaid;
      partial = partial || out.partial;
    }
  }

  // Which provider: static when the answer reflects the file as it is and can be exact for its
  // language; the live backend otherwise (and always under `live`).
  bool liveAvailable = live_ && job.policy != ProviderPolicy::Static && live_->hasBackend(job.language);
  // libclang's facts are exact for C++ too; tree-sitter's only where the language allows.
  bool exactForLanguage = staticCanBeExact(job.language) || (r && r->source == "clang");
  bool exact = r && !r->locations.empty() && r->confidence == Confidence::Exact && exactForLanguage;
  if (job.policy == ProviderPolicy::Static) job.reason = "the static policy";
  else if (job.policy == ProviderPolicy::Live) job.reason = "the live policy", job.useLive = true;
  else if (partial) job.reason = "the index may miss changes to this file", job.useLive = true;
  else if (!r && r.status().is(Reason::NoSymbol)) job.reason = "no identifier at the position";
  else if (!r) job.reason = "the index has no answer", job.useLive = true;
  else if (!exactForLanguage) job.reason = std::string(languageName(job.language)) + " needs the compiler's resolution", job.useLive = true;
  else if (!exact) job.reason = r->locations.empty() ? "the index found nothing" : "the index resolved by name only", job.useLive = true;
  else job.reason = "fresh and exact";
  if (!liveAvailable) {
    if (job.useLive && live_ && job.policy != ProviderPolicy::Static)
      out.liveError = std::string("no live backend is configured for ") + languageName(job.language);
    job.useLive = false;
  }
  if (liveAvailable && (job.useLive || job.policy == ProviderPolicy::Compare)) {
    // The backend gets a (line, column) position in the text the request was made against.
    if (auto text = engine.currentText(job.path)) {
      job.position = LineTable(*text).positionOf(pos->second);
      *live = std::move(job);
      return {};
    }
  }
  job.position.line = where->position.line;  // for the trace: lines are the same in every encoding
  trace(job.kind + " " + job.path + ":" + std::to_string(toDisplayLine(job.position.line)) + " policy=" +
        providerPolicyName(job.policy) + " provider=static reason=\"" + job.reason + "\" static=" +
        std::to_string(job.staticKeys.size()));
  if (!job.locate || !job.staticOk) return job.staticBody;
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::finishLive(const Task& task, LiveJob& job) {
  auto cancelled = [&] { return isCancelled(task.id); };
  auto r = job.kind == "references"
               ? live_->references(job.path, job.language, job.position, job.includeDeclaration, cancelled)
               : live_->definition(job.path, job.language, job.position, cancelled);
  if (!r && r.status().code() == ErrorCode::Cancelled) return lsp::encodeError(task.id, lsp::RequestCancelled, "cancelled");
  LineKeys liveKeys;
  std::vector<lsp::WireLocation> wire;
  if (r) {
    for (const LiveLocation& l : r->locations) {
      liveKeys.insert({l.path, l.range.start.line});
      lsp::WireLocation w{l.inWorkspace ? uriOf(l.path) : l.uri, l.wire};
      // The backends speak UTF-16; other encodings are converted from the byte range.
      if (encoding_ != Encoding::Utf16 && l.inWorkspace) {
        std::string text;
        {
          std::lock_guard<std::mutex> g(docsMutex_);
          if (auto it = documents_.find(w.uri); it != documents_.end()) text = it->second.text;
        }
        if (text.empty())
          if (auto disk = readWorktreeFile(root_, l.path)) text = std::move(*disk);
        w.range = PositionEncoder(text, text.empty(), encoding_).toWire(l.range);
      }
      wire.push_back(std::move(w));
    }
  }
  std::string line = job.kind + " " + job.path + ":" + std::to_string(toDisplayLine(job.position.line)) +
                     " policy=" + providerPolicyName(job.policy);
  bool answerLive = job.useLive && r;
  line += std::string(" provider=") + (answerLive ? "live" : "static") + " reason=\"" + job.reason + "\"";
  if (r) line += " backend=\"" + r->backend + "\" ms=" + std::to_string(static_cast<int>(r->milliseconds)) +
                 (r->cold ? " cold" : " warm");
  else line += " live-error=\"" + r.status().message() + "\"";
  line += " static=" + std::to_string(job.staticKeys.size());
  if (r) line += " live=" + std::to_string(liveKeys.size());
  if (job.policy == ProviderPolicy::Compare && r) {
    bool agree = liveKeys == job.staticKeys;
    job.located.agree = agree;
    line += agree ? " agree"
                  : " differ static-only=[" + describeLines(linesOnlyIn(job.staticKeys, liveKeys), 8, "(none)") +
                        "] live-only=[" + describeLines(linesOnlyIn(liveKeys, job.staticKeys), 8, "(none)") + "]";
  }
  trace(line);

  lsp::LocateResult& out = job.located;
  if (r) {
    out.backend = r->backend;
    out.liveMilliseconds = r->milliseconds;
  } else {
    out.liveError = r.status().message();
  }
  if (answerLive) {
    // Nothing to go to is `null`, as the index answers it.
    if (!job.locate && wire.empty() && job.kind == "definition") return lsp::encodeNullResult(task.id);
    if (!job.locate) return lsp::encodeResult(task.id, wire);
    out.locations = std::move(wire);
    out.provider = "live";
    out.facts.clear();
    // The backend's answer reflects the text it was sent: the buffer or the disk as it is now.
    out.confidence = "exact";
    out.note.clear();
    return lsp::encodeResult(task.id, out);
  }
  // The index answers: chosen by the policy (compare), or because the backend failed.
  if (job.useLive && !r && job.locate)
    out.note = (out.note.empty() ? "" : out.note + "; ") + "the live backend did not answer (" + r.status().message() +
               "): answered from the index";
  if (!job.locate || !job.staticOk) return job.staticBody;
  return lsp::encodeResult(task.id, out);
}

}  // namespace nib
