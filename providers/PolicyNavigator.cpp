#include "providers/PolicyNavigator.h"

namespace nib {
namespace {

LineKeys keysOf(const NavigationResult& r) {
  LineKeys keys;
  for (const SymbolLocation& l : r.locations) keys.insert({l.path, l.range.start.line});
  return keys;
}

LineKeys keysOf(const LiveAnswer& a) {
  LineKeys keys;
  for (const LiveLocation& l : a.locations) keys.insert({l.path, l.range.start.line});
  return keys;
}

}  // namespace

// The rules that decide a category nothing has measured yet: a compiler's facts answer from the
// index (exact for the text indexed), tree-sitter's definitions where the language's scoping is
// all there is to resolve; tree-sitter's references, answers by name, a compiler's answers in code
// no compile command builds (its command was guessed, as the backend's is), in a file whose own
// parse reported errors, choosing among several source files' definitions or listing references
// in code the build's units see differently, and languages that need a compiler go to the backend.
void PolicyNavigator::unmeasuredRule(const PolicyRequest& request, PolicyOutcome& out) {
  const Expected<NavigationResult>& r = out.index;
  bool compiler = r && (r->source == "clang" || r->source == "scip");
  bool exactForLanguage = staticCanBeExact(request.language) || compiler;
  bool resolved = r && (r->confidence == Confidence::Exact || (r->confidence == Confidence::Scope && staticCanBeExact(request.language)));
  // A compiler's type edges and overrides are its whole answer: none found is an answer too.
  bool wholeAnswer = compiler && (request.kind == NavigationKind::TypeDefinition || request.kind == NavigationKind::Implementation);
  bool exact = r && (!r->locations.empty() || wholeAnswer) && resolved && exactForLanguage;
  bool& useLive = out.wantLive;
  if (!r && r.status().is(Reason::NoSymbol)) out.reason = "no identifier at the position";
  else if (!r) out.reason = "the index has no answer", useLive = true;
  else if (!exactForLanguage)
    out.reason = std::string(languageName(request.language)) + " needs the compiler's resolution", useLive = true;
  else if (r->facet == kRecoveredFacet)
    out.reason = "the compiler dropped the statement for its error: the file's scopes chose the answer", useLive = true;
  else if (!exact)
    out.reason = r->locations.empty() ? "the index found nothing" : "the index resolved by name only", useLive = true;
  else if (!compiler && request.kind == NavigationKind::References)
    out.reason = "tree-sitter's references are not measured to agree yet", useLive = true;
  else if (r->facet == kUncompiledFacet)
    out.reason = "no compile command builds this code: the index's command was guessed", useLive = true;
  else if (r->facet == kSeveralDefinitionsFacet && request.kind != NavigationKind::References)
    out.reason = "several source files define the symbol: the backend's index keeps one of them", useLive = true;
  else if (r->facet == kIncluderDependentFacet)
    out.reason = "references in code the build's units see differently: the backend's index keeps one unit's view",
    useLive = true;
  else if (r->facet == kParseErrorsFacet)
    out.reason = "the file's own parse reported errors: the compiler's recovery decided the answer", useLive = true;
  else out.reason = "fresh and exact";
}

std::string partialLiveNote(const LiveAnswer& answer) {
  if (answer.indexMerged)
    return answer.backend + " was still indexing the workspace: merged with the index's references (" +
           std::to_string(answer.fromIndex) + " in files it listed none of)";
  return answer.backend + " was still indexing the workspace: references in files it has not read yet may be missing";
}

std::string liveReferencesNote(const LiveAnswer& answer) {
  std::string note = answer.indexing ? partialLiveNote(answer) : "";
  if (answer.leftOut > 0)
    note += (note.empty() ? "" : "; ") + std::string("left out ") + std::to_string(answer.leftOut) + " reference" +
            (answer.leftOut == 1 ? "" : "s") + " " + answer.backend +
            " gave in files no project builds that are not open (no compile command, no tsconfig.json): it knows "
            "those only from files it opened before";
  return note;
}

PolicyOutcome PolicyNavigator::decide(const PolicyRequest& request, Expected<NavigationResult> index,
                                      const Calibration* calibration) const {
  PolicyOutcome out;
  out.policy = request.policy;
  out.index = std::move(index);
  // Named under every policy, so that nib/locate says which measured category an answer falls in
  // (the benchmark compares its own counts with the sampler's by it).
  if (out.index || out.index.status().is(Reason::NoSymbol)) out.category = answerCategory(out.index);
  const ProviderPolicy policy = request.policy;
  bool liveAvailable = live_ && policy != ProviderPolicy::Static && live_->hasBackend(request.language);
  bool& useLive = out.wantLive;
  if (policy == ProviderPolicy::Static) out.reason = "the static policy";
  else if (policy == ProviderPolicy::Live) out.reason = "the live policy", useLive = true;
  else if (request.partial) out.reason = "the index may miss changes to this file", useLive = true;
  else if (!calibrated(request, out, calibration)) {
    unmeasuredRule(request, out);
    if (!out.agreement.empty()) out.reason += " (measured so far: " + out.agreement + ", not yet conclusive)";
  }
  if (!liveAvailable) {
    if (useLive && policy != ProviderPolicy::Static)
      out.liveError = live_ ? std::string("no live backend is configured for ") + languageName(request.language)
                            : std::string("no live backend is running");
    useLive = false;
  }
  out.askLive = liveAvailable && (useLive || policy == ProviderPolicy::Compare);
  return out;
}

bool PolicyNavigator::calibrated(const PolicyRequest& request, PolicyOutcome& out, const Calibration* calibration) const {
  const Expected<NavigationResult>& r = out.index;
  // Errors other than "no symbol here" go to the backend whatever was measured.
  if (!r && !r.status().is(Reason::NoSymbol)) return false;
  if (!calibration || !live_ || !live_->hasBackend(request.language)) return false;
  AgreementKey key{request.language, request.kind, out.category,
                   backendName(live_->settings().commands.at(request.language))};
  auto verdict = calibration->verdict(key);
  if (!verdict) return false;
  out.agreement = verdict->agreement;
  if (!verdict->conclusive) return false;  // the rules decide; the agreement is shown with them
  out.wantLive = !verdict->fromIndex;
  out.reason = verdict->reason;
  return true;
}

void settleLiveReferences(const PolicyRequest& request, const Expected<NavigationResult>& index, LiveAnswer& answer,
                          LiveProvider& live) {
  if (request.kind != NavigationKind::References) return;
  auto unbuiltClosed = [&](const std::string& path) {
    return request.unbuiltFiles && request.unbuiltFiles->count(path) && !request.shownFiles.count(path);
  };
  size_t before = answer.locations.size();
  std::erase_if(answer.locations, [&](const LiveLocation& l) { return l.inWorkspace && unbuiltClosed(l.path); });
  answer.leftOut = before - answer.locations.size();
  // A backend still loading its index lists the references of what it has read (the open file,
  // in clangd's first second: 8 of lzma_filter's 126 in XZ Utils); the index's stand for the
  // files it lists none of, whatever the index's measured agreement, which counts whole answers.
  // Not under `compare`, which sets the backend's own answer against the index's.
  if (request.policy == ProviderPolicy::Compare || !answer.indexing || !index || index->locations.empty()) return;
  // The files just left out stay out: the answer keeps one rule for them, whoever listed them.
  std::vector<SymbolLocation> merged;
  for (const SymbolLocation& s : index->locations)
    if (!unbuiltClosed(s.path)) merged.push_back(s);
  live.addIndexReferences(answer, merged);
}

void PolicyNavigator::askLive(const PolicyRequest& request, PolicyOutcome& out, const std::function<bool()>& cancelled) {
  if (!out.askLive || !live_) return;
  out.live = live_->locate(request.kind, request.path, request.language, request.position, request.includeDeclaration,
                           cancelled);
  Expected<LiveAnswer>& r = *out.live;
  if (!r) {
    out.liveError = r.status().message();
    return;
  }
  settleLiveReferences(request, out.index, *r, *live_);
  if (request.policy == ProviderPolicy::Compare) {
    LineKeys indexKeys = out.index ? keysOf(*out.index) : LineKeys();
    LineKeys liveKeys = keysOf(*r);
    out.agree = indexKeys == liveKeys;
    out.indexOnly = linesOnlyIn(indexKeys, liveKeys);
    out.liveOnly = linesOnlyIn(liveKeys, indexKeys);
  }
}

PolicyOutcome PolicyNavigator::navigate(const PolicyRequest& request, Expected<NavigationResult> index,
                                        const std::function<bool()>& cancelled, const Calibration* calibration) {
  PolicyOutcome out = decide(request, std::move(index), calibration);
  askLive(request, out, cancelled);
  return out;
}

Expected<NavigationResult> PolicyOutcome::answer(NavigationKind request) const {
  if (answeredLive()) {
    NavigationResult result;
    result.source = "live";
    // The backend's answer reflects the text it was sent: the buffer or the disk as it is now.
    result.confidence = Confidence::Exact;
    if (index) result.symbol = index->symbol;
    if (request == NavigationKind::References) result.note = liveReferencesNote(**live);
    for (const LiveLocation& l : (*live)->locations) {
      SymbolLocation s;
      s.path = l.path;
      s.range = l.range;
      s.fullRange = l.range;
      // In the workspace the range is in bytes, converted for the wire from the file's text;
      // outside it, the backend's UTF-16 columns stand as they are.
      s.ascii = !l.inWorkspace;
      s.role = locatesDefinitions(request) ? OccurrenceRole::Definition : OccurrenceRole::Reference;
      result.locations.push_back(std::move(s));
    }
    return result;
  }
  if (!index) return index.status();
  NavigationResult result = *index;
  if (wantLive && live && !live->hasValue())
    result.note = (result.note.empty() ? "" : result.note + "; ") + "the live backend did not answer (" +
                  live->status().message() + "): answered from the index";
  return result;
}

std::string PolicyOutcome::describe(const PolicyRequest& request) const {
  std::string line = std::string(navigationKindName(request.kind)) + " " +
                     request.path + ":" + std::to_string(toDisplayLine(request.line)) +
                     " policy=" + providerPolicyName(policy) + " provider=" + provider() + " reason=\"" + reason + "\"";
  size_t indexCount = index ? keysOf(*index).size() : 0;
  if (live && live->hasValue()) {
    const LiveAnswer& a = **live;
    line += " backend=\"" + a.backend + "\" ms=" + std::to_string(static_cast<int>(a.milliseconds)) +
            (a.cold ? " cold" : " warm");
  } else if (live) {
    line += " live-error=\"" + live->status().message() + "\"";
  }
  if (!category.empty()) line += " category=\"" + category + "\"";
  line += " static=" + std::to_string(indexCount);
  if (live && live->hasValue()) line += " live=" + std::to_string(keysOf(**live).size());
  if (live && live->hasValue() && (**live).leftOut) line += " live-left-out=" + std::to_string((**live).leftOut);
  if (agree)
    line += *agree ? " agree"
                   : " differ static-only=[" + describeLines(indexOnly, 8, "(none)") + "] live-only=[" +
                         describeLines(liveOnly, 8, "(none)") + "]";
  return line;
}

}  // namespace nib
