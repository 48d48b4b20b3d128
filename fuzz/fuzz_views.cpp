// The records of a version's views that have no decoder of their own elsewhere (issue 29): a
// delta entry, a worktree snapshot, the search views' documents, postings, units and
// compound lists, a build's spilled search facts, and the history view's postings, commits and translations. The first byte picks the decoder, the rest is its input; any bytes decode or
// are refused, and what decodes stays inside the input (the snapshot's text views it).
#include <cstdlib>

#include "FuzzInput.h"
#include "views/HistoryView.h"
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
  // The seeds name their decoder by an ASCII digit ('0' is case 0); any byte picks one.
  switch (static_cast<uint8_t>(data[0] - '0') % 10) {
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
    case 7: {
      // Commit ids ascend, each inside the count.
      auto commits = nib::decodeHistoryPostings(in, kCount);
      for (size_t i = 0; i < commits.size(); ++i)
        if (commits[i] >= kCount || (i > 0 && commits[i] <= commits[i - 1])) std::abort();
      break;
    }
    case 8: {
      auto c = nib::decodeHistoryCommit(in, kCount);
      if (c)
        for (size_t i = 0; i < c->files.size(); ++i)
          if (c->files[i] >= kCount || (i > 0 && c->files[i] < c->files[i - 1])) std::abort();
      break;
    }
    case 9: {
      // Each translation a term and a probability in (0, 1].
      for (const auto& t : nib::decodeHistoryTranslations(in))
        if (t.term.empty() || !(t.probability > 0 && t.probability <= 1)) std::abort();
      break;
    }
  }
  return 0;
}
