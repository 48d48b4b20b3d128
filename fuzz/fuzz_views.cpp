// The records of a version's views that have no decoder of their own elsewhere (issue 29): a
// delta entry, a worktree snapshot, and the search views' documents, postings, units and
// compound lists, and a build's spilled search facts. The first byte picks the decoder, the rest is its input; any bytes decode or
// are refused, and what decodes stays inside the input (the snapshot's text views it).
#include <cstdlib>

#include "FuzzInput.h"
#include "views/SearchViews.h"
#include "views/VersionDelta.h"
#include "views/WorktreeSnapshot.h"

namespace {

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in = nib::fuzz::bytes(data + 1, size - 1);
  constexpr uint32_t kCount = 1000;
  switch (data[0] % 7) {
    case 0: {
      auto e = nib::VersionDelta::decodeEntry("a/path.c", in);
      if (e && e->state > nib::DeltaEntry::State::Deleted) std::abort();
      break;
    }
    case 1: {
      auto s = nib::decodeWorktreeSnapshot(in);
      if (s) {
        for (const auto& f : s->files)
          if (!inside(f.path, in) || !inside(f.oid, in)) std::abort();
        for (const auto& d : s->dirs)
          for (std::string_view name : d.names)
            if (!inside(name, in)) std::abort();
      }
      break;
    }
    case 2: (void)nib::decodeSearchDoc(7, in); break;
    case 3:
      for (const auto& p : nib::decodeTrigramPostings(in, kCount))
        if (p.doc >= kCount) std::abort();
      break;
    case 4:
      for (const auto& [unit, tf] : nib::decodeLexicalPostings(in, kCount))
        if (unit >= kCount) std::abort();
      break;
    case 5: {
      auto u = nib::decodeLexUnit(in, kCount);
      if (u && u->doc >= kCount) std::abort();
      (void)nib::decodeCompounds(in);
      break;
    }
    case 6: {
      // What decodes encodes to bytes that decode to the same facts.
      nib::SearchFacts first, second;
      if (!nib::decodeSearchFacts(in, first)) break;
      if (first.trigrams.size() != first.trigramMasks.size()) std::abort();
      if (!nib::decodeSearchFacts(nib::encodeSearchFacts(first), second)) std::abort();
      if (second.trigrams != first.trigrams || second.units.size() != first.units.size()) std::abort();
      break;
    }
  }
  return 0;
}
