#include "server/CurrentEngine.h"

#include "support/FileIo.h"

namespace nib {

Expected<Engine*> CurrentEngine::get() {
  auto text = readFile(indexDir_ / "CURRENT");
  if (!text) return Status(ErrorCode::NotFound, Reason::NoIndex, "no index at " + indexDir_.string() + " (run `nib index`)");
  std::string current = *text;
  while (!current.empty() && (current.back() == '\n' || current.back() == ' ')) current.pop_back();
  if (engine_ && engine_->manifest().versionId == current) return engine_.get();
  auto engine = Engine::open(root_);
  if (!engine) return engine.status();
  engine_ = std::move(*engine);
  if (prepare_) prepare_(*engine_);
  engine_->watchWorktree();
  return engine_.get();
}

}  // namespace nib
