#pragma once

namespace nib::cli {

// Settles mimalloc for a batch worker (`nib-indexer`, `nib-clang`) before its real work: memory
// a worker frees is kept for its next file or unit instead of being handed back to the kernel
// 25 ms later, and new memory comes in transparent huge pages where the kernel allows them
// (madvise), so that a worker takes a page fault per 2 MiB rather than per 4 KiB. A worker
// allocates and frees the same few hundred MiB again and again, unit after unit; with mimalloc's
// defaults it faulted them in again each time. What the user set in the environment
// (MIMALLOC_ALLOW_DECOMMIT, MIMALLOC_LARGE_OS_PAGES) stands. Does nothing where the worker was
// built without mimalloc (the fuzz build).
void settleBatchAllocator();

}  // namespace nib::cli
