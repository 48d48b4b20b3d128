#include "views/DenseView.h"

#include "support/Module.h"

namespace nib {

Expected<std::unique_ptr<DenseView>> DenseView::open(const std::filesystem::path& dir) {
  auto open = moduleFunction<OpenDenseViewFn>("dense", kOpenDenseViewSymbol);
  if (!open) return open.status();
  return (*open)(dir);
}

}  // namespace nib
