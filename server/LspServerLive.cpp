// The LSP session's navigation requests (definition, references, typeDefinition, implementation):
// the provider policy (static, live, compare, auto) over the index's answer and a live language
// server's, the live backends' start-up from the options and `.nib.conf`, and the trace log of
// every answer's provenance. The rest of the session is LspServer.cpp (handlers) and
// LspServerLoop.cpp (threads).
#include "views/IndexLayout.h"
#include "server/LspServer.h"

#include <ctime>
#include <fstream>

#include "protocol/PositionEncoder.h"
#include "server/LiveSetup.h"
#include "server/StructuralAnswer.h"
#include "support/FileIo.h"
#include "support/Log.h"
#include "support/ProjectConfig.h"
#include "support/RepoPath.h"

namespace nib {

void LspServer::startLiveProvider() {
  LiveSetup setup = liveSetup(root_, options_.live, [this](const std::string& message) { log(2, message); });
  policy_ = setup.policy;
  tracePath_ = setup.tracePath;
  calibrationSettings_ = setup.calibration;
  samplerSettings_ = setup.sampling;
  live_ = nib::startLiveProvider(root_, std::move(setup.settings), [this](const std::string& message) { log(2, message); });
}

void LspServer::startSampler() {
  // The counts steer `auto` (and show what `compare` would choose); under `static` and `live`
  // nothing is measured, and without a backend there is nothing to measure against.
  if (policy_ != ProviderPolicy::Auto && policy_ != ProviderPolicy::Compare) return;
  if (!live_ || live_->settings().commands.empty() || samplerSettings_.perHour == 0) return;
  auto withEngine = [this](const std::function<void(Engine&)>& f) {
    std::lock_guard<std::mutex> g(engineMutex_);
    if (!engine_ || building_) return false;
    f(*engine_);
    return true;
  };
  auto busy = [this] {
    std::lock_guard<std::mutex> g(cancelMutex_);
    return !active_.empty();
  };
  sampler_ = std::make_unique<AgreementSampler>(live_->settings(), withEngine, busy, samplerSettings_,
                                                [this](const std::string& message) { log(3, message); });
  sampler_->start();
}

namespace {
// The trace lines of the request this thread is answering (see LspServer::trace).
thread_local std::string pendingTrace;
}  // namespace

void LspServer::trace(const std::string& line) { pendingTrace += utcTimestamp() + ' ' + line + '\n'; }

void LspServer::flushTrace() {
  if (pendingTrace.empty()) return;
  std::string entry;
  entry.swap(pendingTrace);
  // Appended (the folder may not exist before the first index build: then nothing is written);
  // cut at 8 MiB. The stream stays open (a request must not pay for opening the file); the size
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
  traceOut_ << entry;
  traceOut_.flush();  // read by people and tests while the server runs
  traceBytes_ += entry.size();
}

namespace {

// What a navigation request asks, whichever method carried it.
struct NavigationAsk {
  const lsp::TextDocumentPosition* where = nullptr;
  NavigationKind kind = NavigationKind::Definition;
  bool includeDeclaration = true;
  std::string provider;  // nib/locate's policy for this request ("" for the server's)
};

NavigationAsk navigationAskOf(const std::string& method, const lsp::Params& params) {
  NavigationAsk ask;
  if (method == "nib/locate") {
    const auto& p = std::get<lsp::LocateParams>(params);
    ask.where = &p.at;
    for (NavigationKind k : {NavigationKind::References, NavigationKind::TypeDefinition, NavigationKind::Implementation})
      if (p.request == navigationKindName(k)) ask.kind = k;
    ask.includeDeclaration = p.includeDeclaration;
    ask.provider = p.provider;
  } else if (method == "textDocument/references") {
    const auto& p = std::get<lsp::ReferenceParams>(params);
    ask.where = &p.at;
    ask.kind = NavigationKind::References;
    ask.includeDeclaration = p.includeDeclaration;
  } else {
    ask.where = &std::get<lsp::TextDocumentPosition>(params);
    if (method == "textDocument/typeDefinition") ask.kind = NavigationKind::TypeDefinition;
    if (method == "textDocument/implementation") ask.kind = NavigationKind::Implementation;
  }
  return ask;
}

}  // namespace

std::string LspServer::answerNavigation(const Task& task, Engine& engine, std::optional<LiveJob>* live) {
  LiveJob job;
  job.locate = task.method == "nib/locate";
  NavigationAsk ask = navigationAskOf(task.method, task.params);
  const lsp::TextDocumentPosition* where = ask.where;
  ProviderPolicy policy = policy_;
  if (!ask.provider.empty())
    if (auto p = parseProviderPolicy(ask.provider)) policy = *p;

  auto pos = positionOf(engine, *where);
  if (!pos) return failure(task, pos.status());
  // Lines are the same in every position encoding: the wire's line is the text's.
  auto request =
      engine.navigationRequest(ask.kind, pos->first, pos->second, where->position.line, ask.includeDeclaration, policy);
  if (!request) return failure(task, request.status());
  job.request = std::move(*request);
  auto r = engine.indexAnswer(job.request);

  // The static answer, as a response and (for nib/locate) with its provenance.
  lsp::LocateResult& out = job.located;
  out.provider = "static";
  out.policy = providerPolicyName(policy);
  if (r) {
    out.locations = wireLocations(engine, r->locations);
    out.confidence = confidenceName(r->confidence);
    out.note = r->note;
    out.facts = r->source;
    // Plain LSP methods answer with the locations alone; nib/locate encodes `out` at the end.
    if (!job.locate) job.staticBody = lsp::encodeResult(task.id, out.locations);
  } else {
    job.staticBody = failure(task, r.status());
  }
  job.request.partial = job.request.partial || !overlayComplete_;
  if (job.locate) {
    if (auto f = engine.freshness(true, /*asAnswered=*/true)) {
      out.indexCommit = f->indexCommit;
      out.headCommit = f->headCommit;
      out.indexVersion = f->indexVersion;
      out.worktreeTree = f->worktreeTree;
      FileState state = engine.fileState(pos->first);
      out.fresh = f->fresh && !state.changedOnDisk;
      // With the worktree overlaid, answers equal a fresh index's even when it is not fresh.
      out.partial = !out.fresh && !f->overlaid;
      job.request.partial = job.request.partial || out.partial;
    }
  }
  // A document that missed an edit answers from the last text nib could apply: labelled, and
  // the policy treats it as a file the index may not match.
  if (std::string why = unsyncedReason(task.uri); !why.empty()) {
    job.request.partial = true;
    out.partial = true;
    job.syncNote = "the document missed " + why + ": answered from the last text nib could apply";
    out.note = (out.note.empty() ? "" : out.note + "; ") + job.syncNote;
  }
  job.outcome = PolicyNavigator(live_.get()).decide(job.request, std::move(r), engine.calibration().get());
  out.reason = job.outcome.reason;
  out.category = job.outcome.category;
  out.agreement = job.outcome.agreement;
  // The backend is asked without the engine lock, about the text as it is now (its position
  // found here, under the lock, and only when it is asked).
  if (engine.prepareBackendRequest(job.request, job.outcome)) {
    *live = std::move(job);
    return {};
  }
  out.liveError = job.outcome.liveError;
  trace(job.outcome.describe(job.request));
  if (!job.locate || !job.outcome.index) return job.staticBody;
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::finishLive(const Task& task, LiveJob& job) {
  PolicyOutcome& outcome = job.outcome;
  PolicyNavigator(live_.get()).askLive(job.request, outcome, [&] { return isCancelled(task.id); });
  if (outcome.live && !*outcome.live && outcome.live->status().code() == ErrorCode::Cancelled)
    return lsp::encodeError(task.id, lsp::RequestCancelled, "cancelled");
  std::vector<lsp::WireLocation> wire;
  if (outcome.live && *outcome.live)
    for (const LiveLocation& l : (**outcome.live).locations) {
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
  trace(outcome.describe(job.request));

  lsp::LocateResult& out = job.located;
  if (outcome.live && *outcome.live) {
    out.backend = (**outcome.live).backend;
    out.liveMilliseconds = (**outcome.live).milliseconds;
  } else {
    out.liveError = outcome.liveError;
  }
  out.agree = outcome.agree;
  if (outcome.answeredLive()) {
    // Nothing to go to is `null`, as the index answers it.
    bool definition = locatesDefinitions(job.request.kind);
    if (!job.locate && wire.empty() && definition) return lsp::encodeNullResult(task.id);
    if (!job.locate) return lsp::encodeResult(task.id, wire);
    out.locations = std::move(wire);
    out.provider = "live";
    out.facts.clear();
    // The backend's answer reflects the text it was sent: the buffer or the disk as it is now.
    out.confidence = "exact";
    out.note = job.syncNote;  // the backend was sent the same last good text
    if (!definition) {
      // Merged with the index's references, the answer misses no file the index knows.
      if ((**outcome.live).indexing && !(**outcome.live).indexMerged) out.partial = true;
      if (std::string note = liveReferencesNote(**outcome.live); !note.empty())
        out.note = (out.note.empty() ? "" : out.note + "; ") + note;
    }
    return lsp::encodeResult(task.id, out);
  }
  // Neither could answer: the index's refusal, with the backend's reason added.
  if (!outcome.index && outcome.wantLive && !outcome.liveError.empty()) {
    const Status& s = outcome.index.status();
    return failure(task, Status(s.code(), s.reason(), s.message() + "; the live backend did not answer either: " +
                                                          outcome.liveError));
  }
  // The index answers: chosen by the policy (compare), or because the backend failed.
  if (outcome.wantLive && job.locate)
    if (auto answer = outcome.answer(job.request.kind)) out.note = answer->note;
  if (!job.locate || !outcome.index) return job.staticBody;
  return lsp::encodeResult(task.id, out);
}

}  // namespace nib
