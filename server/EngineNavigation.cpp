// The Engine's side of the provider policy: a request stated for PolicyNavigator, and the
// index's answer to it.
#include "server/Engine.h"

#include "support/Log.h"
#include "views/IndexLayout.h"

namespace nib {

Expected<PolicyRequest> Engine::navigationRequest(NavigationKind kind, const std::string& path, uint32_t offset,
                                                  uint32_t line, bool includeDeclaration, ProviderPolicy policy) {
  PolicyRequest r;
  r.kind = kind;
  r.path = path;
  r.offset = offset;
  r.line = line;
  r.includeDeclaration = includeDeclaration;
  r.policy = policy;
  // The index knows the file's language; a file it does not know is detected from its text
  // (the only case that reads it here: a request answered from the index reads nothing more).
  if (auto record = provider_->file(path)) {
    r.language = record->language;
  } else {
    auto text = currentText(path);
    if (!text) return text.status();
    r.language = detectLanguage(path, std::string_view(*text).substr(0, 4096));
  }
  // Overlays that could not take every change in leave answers that may miss some.
  r.partial = !overlay_.complete;
  return r;
}

bool Engine::prepareBackendRequest(PolicyRequest& request, PolicyOutcome& outcome) {
  if (!outcome.askLive) return false;
  const bool c = request.language == Language::C || request.language == Language::Cpp;
  const bool ts = request.language == Language::TypeScript || request.language == Language::JavaScript;
  if (request.kind == NavigationKind::References && (c || ts)) {
    if (unbuiltVersion_ != manifest().versionId) {
      auto asSet = [](std::vector<std::string> files) {
        return std::make_shared<const std::set<std::string>>(files.begin(), files.end());
      };
      unbuiltC_ = asSet(provider_->clangInterpolatedFiles());
      unbuiltTs_ = asSet(provider_->preciseInterpolatedFiles());
      unbuiltVersion_ = manifest().versionId;
    }
    const auto& unbuilt = c ? unbuiltC_ : unbuiltTs_;
    if (!unbuilt->empty()) {
      // The editor's few open buffers, not the version's many unbuilt files, are walked per request.
      request.unbuiltFiles = unbuilt;
      request.shownFiles.insert(request.path);
      for (const auto& [path, buffer] : buffers_)
        if (unbuilt->count(path)) request.shownFiles.insert(path);
    }
  }
  if (Status s = locateForBackend(request); !s.isOk()) {
    // The text cannot be read now: the index's answer stands, saying why.
    outcome.askLive = outcome.wantLive = false;
    outcome.liveError = s.message();
  }
  return outcome.askLive;
}

Status Engine::locateForBackend(PolicyRequest& request) {
  // The open buffer without a copy, else the file on disk.
  std::string disk;
  std::string_view text;
  if (const BufferText* b = bufferOf(request.path)) {
    text = b->text;
  } else {
    auto t = readWorktreeFile(request.path);
    if (!t) return t.status();
    disk = std::move(*t);
    text = disk;
  }
  if (request.offset > text.size()) return Status(ErrorCode::InvalidArgument, "the position is past the end of " + request.path);
  request.position = LineTable(text).positionOf(request.offset);
  return Status::ok();
}

Expected<NavigationResult> Engine::indexAnswer(const PolicyRequest& request) {
  switch (request.kind) {
    case NavigationKind::References: return references(request.path, request.offset, request.includeDeclaration);
    case NavigationKind::TypeDefinition: return typeDefinitions(request.path, request.offset);
    case NavigationKind::Implementation: return implementations(request.path, request.offset);
    case NavigationKind::Definition: break;
  }
  return definition(request.path, request.offset);
}

PolicyOutcome Engine::navigate(PolicyNavigator& navigator, PolicyRequest& request,
                               const std::function<bool()>& cancelled) {
  PolicyOutcome outcome = navigator.decide(request, indexAnswer(request), calibration().get());
  if (prepareBackendRequest(request, outcome)) navigator.askLive(request, outcome, cancelled);
  return outcome;
}

std::shared_ptr<Calibration> Engine::calibration() {
  if (calibration_) return calibration_;
  IndexLayout layout(indexDir_);
  const Manifest& m = manifest();
  // A count holds for the facts that answered it: the view's profile names them (and the nib
  // build, whose resolution rules are part of every answer).
  std::map<std::string, std::string> profiles{{"tree-sitter", m.extractorProfile + " nib " + m.nibVersion}};
  if (const ViewRecord* v = m.view("clang")) profiles["clang"] = v->profile + " nib " + m.nibVersion;
  if (const ViewRecord* v = m.view("precise")) profiles["scip"] = v->profile + " nib " + m.nibVersion;
  std::filesystem::path previous = m.previous.empty() ? std::filesystem::path() : layout.agreementFile(m.previous);
  std::error_code ec;
  if (previous.empty() || !std::filesystem::exists(previous, ec)) previous = layout.newestAgreementFile();
  std::string problem;
  calibration_ = Calibration::load(layout.agreementFile(m.versionId), previous, std::move(profiles),
                                   calibrationSettings_, &problem);
  if (!problem.empty()) logWarn(problem);
  return calibration_;
}

}  // namespace nib
