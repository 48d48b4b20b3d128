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

PolicyOutcome PolicyNavigator::decide(const PolicyRequest& request, Expected<NavigationResult> index) const {
  PolicyOutcome out;
  out.policy = request.policy;
  out.index = std::move(index);
  const Expected<NavigationResult>& r = out.index;
  const ProviderPolicy policy = request.policy;
  bool liveAvailable = live_ && policy != ProviderPolicy::Static && live_->hasBackend(request.language);
  // A compiler's facts (libclang's, an SCIP indexer's) are exact for C++ too; tree-sitter's
  // only where the language allows.
  bool exactForLanguage = staticCanBeExact(request.language) || (r && (r->source == "clang" || r->source == "scip"));
  // Tree-sitter's `scope` answers count as the index's best where the language allows (until
  // the policy follows measured agreement: issue 26).
  bool resolved = r && (r->confidence == Confidence::Exact || (r->confidence == Confidence::Scope && staticCanBeExact(request.language)));
  bool exact = r && !r->locations.empty() && resolved && exactForLanguage;
  bool& useLive = out.wantLive;
  if (policy == ProviderPolicy::Static) out.reason = "the static policy";
  else if (policy == ProviderPolicy::Live) out.reason = "the live policy", useLive = true;
  else if (request.partial) out.reason = "the index may miss changes to this file", useLive = true;
  else if (!r && r.status().is(Reason::NoSymbol)) out.reason = "no identifier at the position";
  else if (!r) out.reason = "the index has no answer", useLive = true;
  else if (!exactForLanguage)
    out.reason = std::string(languageName(request.language)) + " needs the compiler's resolution", useLive = true;
  else if (!exact)
    out.reason = r->locations.empty() ? "the index found nothing" : "the index resolved by name only", useLive = true;
  else out.reason = "fresh and exact";
  if (!liveAvailable) {
    if (useLive && policy != ProviderPolicy::Static)
      out.liveError = live_ ? std::string("no live backend is configured for ") + languageName(request.language)
                            : std::string("no live backend is running");
    useLive = false;
  }
  out.askLive = liveAvailable && (useLive || policy == ProviderPolicy::Compare);
  return out;
}

void PolicyNavigator::askLive(const PolicyRequest& request, PolicyOutcome& out, const std::function<bool()>& cancelled) {
  if (!out.askLive || !live_) return;
  out.live = request.kind == NavigationKind::References
                 ? live_->references(request.path, request.language, request.position, request.includeDeclaration,
                                     cancelled)
                 : live_->definition(request.path, request.language, request.position, cancelled);
  const Expected<LiveAnswer>& r = *out.live;
  if (!r) {
    out.liveError = r.status().message();
    return;
  }
  if (request.policy == ProviderPolicy::Compare) {
    LineKeys indexKeys = out.index ? keysOf(*out.index) : LineKeys();
    LineKeys liveKeys = keysOf(*r);
    out.agree = indexKeys == liveKeys;
    out.indexOnly = linesOnlyIn(indexKeys, liveKeys);
    out.liveOnly = linesOnlyIn(liveKeys, indexKeys);
  }
}

PolicyOutcome PolicyNavigator::navigate(const PolicyRequest& request, Expected<NavigationResult> index,
                                        const std::function<bool()>& cancelled) {
  PolicyOutcome out = decide(request, std::move(index));
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
    for (const LiveLocation& l : (*live)->locations) {
      SymbolLocation s;
      s.path = l.path;
      s.range = l.range;
      s.fullRange = l.range;
      // In the workspace the range is in bytes, converted for the wire from the file's text;
      // outside it, the backend's UTF-16 columns stand as they are.
      s.ascii = !l.inWorkspace;
      s.role = request == NavigationKind::Definition ? OccurrenceRole::Definition : OccurrenceRole::Reference;
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
  std::string line = std::string(request.kind == NavigationKind::References ? "references" : "definition") + " " +
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
  line += " static=" + std::to_string(indexCount);
  if (live && live->hasValue()) line += " live=" + std::to_string(keysOf(**live).size());
  if (agree)
    line += *agree ? " agree"
                   : " differ static-only=[" + describeLines(indexOnly, 8, "(none)") + "] live-only=[" +
                         describeLines(liveOnly, 8, "(none)") + "]";
  return line;
}

}  // namespace nib
