// libnib-dense.so: the dense view's heavy half (FAISS, fastText, BLAS, OpenMP, and libcurl for
// an external encoder), loaded on demand through support/Module.h so that no other command of
// the `nib` executable, and no request of the language server but a semantic or hybrid one,
// pays for mapping these libraries. Exports only the entry points below; everything it links
// statically stays hidden (--exclude-libs), so its copies of nib's code never clash with the
// loading executable's.
#include <mutex>
#include <string>
#include <type_traits>

#include "indexer/DenseBuilder.h"
#include "protocol/HttpEncoder.h"
#include "support/Log.h"
#include "support/Module.h"
#include "views/DenseView.h"
#include "views/FaissDenseView.h"

#define NIB_MODULE_EXPORT extern "C" __attribute__((visibility("default")))

// The loader calls this once after dlopen: the module's own copy of the log level follows the
// executable's, and an external encoder (support/TextEncoder) is reached over protocol/'s HTTP
// client. Returns the ABI this module was built with, which the loader compares with its own.
NIB_MODULE_EXPORT const char* nib_module_init(int logLevel) {
  static std::once_flag once;
  static std::string abi;
  std::call_once(once, [] {
    nib::installHttpEncoder();
    abi = nib::moduleAbi();
  });
  nib::setLogLevel(static_cast<nib::LogLevel>(logLevel));
  return abi.c_str();
}

NIB_MODULE_EXPORT nib::Expected<std::unique_ptr<nib::DenseView>> nib_dense_open_view(const std::filesystem::path& dir) {
  return nib::openFaissDenseView(dir);
}

NIB_MODULE_EXPORT nib::DenseBuildReport nib_dense_build_view(const nib::DenseBuildInput& input) {
  return nib::buildDenseViewInProcess(input);
}

// The entry points have exactly the types the loaders cast them to.
static_assert(std::is_same_v<decltype(nib_dense_open_view), nib::OpenDenseViewFn>);
static_assert(std::is_same_v<decltype(nib_dense_build_view), nib::BuildDenseViewFn>);
