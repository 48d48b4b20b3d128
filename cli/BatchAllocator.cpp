#include "cli/BatchAllocator.h"

#include <cstdlib>

#ifdef NIB_MIMALLOC
#include <mimalloc.h>
#endif

namespace nib::cli {

void settleBatchAllocator() {
#ifdef NIB_MIMALLOC
  // Measured on libxml2's clang view (70 units, 2 threads, 3 interleaved cold rounds each): 4.10 s
  // with mimalloc's defaults, 3.52 s with both settings; the structural and search build of the
  // 14.8 MB combined corpus 2.27 → 2.08 s. Options are read when used, so setting them here, at
  // the top of main, covers every allocation that matters.
  if (!std::getenv("MIMALLOC_ALLOW_DECOMMIT")) mi_option_disable(mi_option_allow_decommit);
  if (!std::getenv("MIMALLOC_LARGE_OS_PAGES")) mi_option_enable(mi_option_large_os_pages);
#endif
}

}  // namespace nib::cli
