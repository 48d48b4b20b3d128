// The indexer's side of the dense build: the work runs in the dense module (DenseBuilder.cpp,
// linked into libnib-dense.so), which this loads the first time a version needs a dense view.
#include <system_error>

#include "indexer/DenseBuilder.h"
#include "support/Module.h"

namespace nib {

DenseBuildReport buildDenseView(const DenseBuildInput& input) {
  auto build = moduleFunction<BuildDenseViewFn>("dense", kBuildDenseViewSymbol);
  if (build) return (*build)(input);
  // No module, no dense view: recorded as failed with the reason, the version is still built.
  DenseBuildReport report;
  report.view.name = "dense";
  report.view.capabilities = {"semantic", "hybrid"};
  report.view.status = ViewStatus::Failed;
  report.view.error = build.status().message();
  std::error_code ec;
  std::filesystem::remove_all(input.dir, ec);
  return report;
}

}  // namespace nib
