// The Engine's side of the provider policy: a request stated for PolicyNavigator, and the
// index's answer to it.
#include "server/Engine.h"

namespace nib {

Expected<PolicyRequest> Engine::navigationRequest(NavigationKind kind, const std::string& path, uint32_t offset,
                                                  bool includeDeclaration, ProviderPolicy policy) {
  auto text = currentText(path);
  if (!text) return text.status();
  if (offset > text->size()) return Status(ErrorCode::InvalidArgument, "the position is past the end of " + path);
  PolicyRequest r;
  r.kind = kind;
  r.path = path;
  r.offset = offset;
  r.position = LineTable(*text).positionOf(offset);
  r.includeDeclaration = includeDeclaration;
  r.policy = policy;
  // The index knows the file's language; a file it does not know is detected from its text.
  if (auto record = provider_->file(path)) r.language = record->language;
  else r.language = detectLanguage(path, std::string_view(*text).substr(0, 4096));
  // Overlays that could not take every change in leave answers that may miss some.
  r.partial = !overlay_.complete;
  return r;
}

Expected<NavigationResult> Engine::indexAnswer(const PolicyRequest& request) {
  return request.kind == NavigationKind::References ? references(request.path, request.offset, request.includeDeclaration)
                                                    : definition(request.path, request.offset);
}

PolicyOutcome Engine::navigate(PolicyNavigator& navigator, const PolicyRequest& request,
                               const std::function<bool()>& cancelled) {
  return navigator.navigate(request, indexAnswer(request), cancelled);
}

}  // namespace nib
