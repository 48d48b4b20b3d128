// The provider policy: which of the index and a live language server answers a definition or
// references request, and why. One implementation for every front door — the LSP server,
// `nib def`/`nib refs --provider`, and the MCP tools — so that a request gets the same choice
// and the same provenance wherever it arrives.
//
// A request goes in two steps, so that a server can ask the backend off its request thread:
// `decide` takes the index's answer (always computed: it is cheap and compare needs it) and
// says whether the backend is to be asked; `askLive` asks it and makes the final choice.
// `navigate` runs both.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "providers/Agreement.h"
#include "providers/LiveProvider.h"
#include "providers/StaticProvider.h"

namespace nib {

struct PolicyRequest {
  NavigationKind kind = NavigationKind::Definition;
  std::string path;          // repository path
  uint32_t offset = 0;       // byte offset in the text the request is about (the index's key)
  uint32_t line = 0;         // its 0-based line, for the trace (the caller knows it)
  // The 0-based line and byte column the backend is sent: filled only when it is asked
  // (Engine::locateForBackend), since it needs the text's lines.
  Position position;
  bool includeDeclaration = true;
  Language language = Language::Unknown;
  ProviderPolicy policy = ProviderPolicy::Auto;
  bool partial = false;      // the index may miss changes to this file: auto asks the backend
  // Files whose references are left out of the backend's answer: files no project builds (no
  // compile command; no tsconfig.json includes them), but for those in `shownFiles` (the asked
  // one and those the editor has open). clangd keeps the references of every file it once
  // opened and never reads such a file again; tsserver keeps the inferred projects of files it
  // opened. What they say of such files depends on their history (a fresh server lists none
  // there) and may be stale. Filled with the text's position (Engine::prepareBackendRequest), for
  // C, C++, TypeScript and JavaScript references; `unbuiltFiles` is shared by a version's requests.
  std::shared_ptr<const std::set<std::string>> unbuiltFiles;
  std::set<std::string> shownFiles;
};

struct PolicyOutcome {
  ProviderPolicy policy = ProviderPolicy::Auto;
  std::string reason;        // why this provider: "fresh and exact", "the live policy", ...
  bool wantLive = false;     // the policy prefers the backend's answer
  bool askLive = false;      // the backend is to be asked (wantLive, or compare)
  Expected<NavigationResult> index = Status(ErrorCode::Internal, "not asked");
  std::optional<Expected<LiveAnswer>> live;  // once asked
  std::string liveError;     // why the backend was not asked, or did not answer
  std::optional<bool> agree; // compare: whether both answered the same lines
  std::string category;      // the index answer's category (answerCategory), under every policy
  std::string agreement;     // its measured agreement (describeAgreement), deciding only when conclusive
  LineKeys indexOnly, liveOnly;

  // The backend's answer is the one given (asked, answered, and preferred by the policy).
  bool answeredLive() const { return wantLive && live && live->hasValue(); }
  const char* provider() const { return answeredLive() ? "live" : "static"; }
  // The answer in nib's vocabulary: the backend's locations (exact for the text it was sent,
  // source "live"; definitions for a definition request) or the index's answer, with a note
  // when the backend failed.
  Expected<NavigationResult> answer(NavigationKind request) const;
  // One line for the trace log and --verbose: the policy, provider, reason, backend, timing and
  // for compare the lines only one side gave.
  std::string describe(const PolicyRequest& request) const;
};

// Why a backend's references answer may be partial (LiveAnswer::indexing).
std::string partialLiveNote(const LiveAnswer& answer);
// What a live references answer says of itself: partial while the backend indexed, and the
// references left out of it (LiveAnswer::leftOut); "" when neither.
std::string liveReferencesNote(const LiveAnswer& answer);

// A backend's references answer settled for the request: sites in files no project builds that
// are not shown are left out (counted in LiveAnswer::leftOut); while the backend still indexes
// (and not under compare), the index's references stand for the other files it listed none of.
void settleLiveReferences(const PolicyRequest& request, const Expected<NavigationResult>& index, LiveAnswer& answer,
                          LiveProvider& live);

class PolicyNavigator {
 public:
  // `live` may be null (no backends): every request is answered from the index, and a policy
  // that wanted the backend says why it could not.
  explicit PolicyNavigator(LiveProvider* live) : live_(live) {}

  // `calibration` (may be null) holds the measured agreement of each category of answer: under
  // `auto` a measured category is answered by the index only at or above its threshold.
  PolicyOutcome decide(const PolicyRequest& request, Expected<NavigationResult> index,
                       const Calibration* calibration = nullptr) const;
  void askLive(const PolicyRequest& request, PolicyOutcome& outcome, const std::function<bool()>& cancelled = {});
  PolicyOutcome navigate(const PolicyRequest& request, Expected<NavigationResult> index,
                         const std::function<bool()>& cancelled = {}, const Calibration* calibration = nullptr);

 private:
  // Under auto: decides by the category's measured agreement; false when it is not measured
  // or the measurement is not conclusive yet (the unmeasured rules decide then).
  bool calibrated(const PolicyRequest& request, PolicyOutcome& out, const Calibration* calibration) const;
  static void unmeasuredRule(const PolicyRequest& request, PolicyOutcome& out);

  LiveProvider* live_;
};

}  // namespace nib
