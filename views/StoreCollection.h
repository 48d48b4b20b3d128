// Collection of the fact store (<repo>/.nib/facts): what no version on disk references any
// more — facts, remembered failures and contents of blobs only pruned versions had, or facts
// made by an extractor no kept version was built with — is deleted, so that an index updated
// edit after edit stays near the size of a fresh one (issue 29, item 7).
//
// The store is shared by every version and every build reuses it, so it is collected by mark
// and sweep under the index's write lock, after the build has published and pruned: the marks
// are every blob a kept version references (its commit view's files and its search views'
// documents; a delta version's entries, its base being kept with it), and the sweep is one
// write transaction, which readers that began before it do not see. A version whose views
// cannot be read stops the collection: an incomplete mark must never delete live facts.
//
// The vector cache and the clang cache are caches of the newest build's work and are bounded
// where they are written (retainCacheKeys in views/Lmdb.h).
#pragma once

#include <cstddef>

#include "support/Status.h"
#include "views/FactStore.h"
#include "views/IndexLayout.h"

namespace nib {

struct FactCollection {
  bool swept = false;        // false: the store held too little garbage to be worth a sweep
  size_t liveBlobs = 0;      // the blobs the kept versions reference (when swept)
  FactStore::Counts before;  // what the store held
  FactStore::Counts removed;
  bool compacted = false;    // the store was rewritten without its free pages
};

// Sweeps `facts` once it holds more than `slack` times the records or contents the published
// version needs (`current`: its counts of files with facts and of searchable files, a cheap
// stand-in for the live set that keeps the sweep off most builds), or always with `force`;
// then rewrites it compacted when over a tenth of its file is free pages. Nothing may be
// written through `facts` afterwards.
Expected<FactCollection> collectFacts(const IndexLayout& layout, FactStore& facts, const FactStore::Counts& current,
                                      double slack = 1.25, bool force = false);

}  // namespace nib
