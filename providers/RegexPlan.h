// Which strings every match of a regular expression must contain, by RE2's own analysis
// (FilteredRE2's prefilter): an AND/OR formula over lower-cased "atoms". The trigram route looks
// the atoms up in the (case-folded) trigram view to choose candidate files, and in each file's
// folded text to choose candidate lines; the formula says whether a file can match at all.
// Parsing regex syntax by hand to find literals got escapes, \Q...\E, \p classes and multi-byte
// characters wrong; RE2 already knows its own syntax.
#pragma once

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

#include "support/Status.h"

namespace nib {

class RegexPlan {
 public:
  // InvalidArgument when RE2 rejects the pattern.
  static Expected<RegexPlan> build(const std::string& pattern, const RE2::Options& options);

  // True when some match needs none of the atoms nib can look up: every file is a candidate.
  bool scansEverything() const { return scansEverything_; }
  // The atoms to look up (ASCII, lower case). A line can match only if it holds one of them,
  // unless `lineFilterSound()` is false.
  const std::vector<std::string>& atoms() const { return atoms_; }
  // False when some atom could not be looked up (non-ASCII): lines must all be tried.
  bool lineFilterSound() const { return alwaysPresent_.empty(); }
  // Atoms of which every matching line holds at least one: the longest atom the formula cannot
  // do without, when there is one ("str" and "cpy(" for `strn?cpy\(`: just "cpy("), else all.
  std::vector<std::string> lineAtoms() const;
  // Whether a text holding the atoms `present` (indexes into atoms()) may match.
  bool mayMatch(const std::vector<int>& present) const;

 private:
  std::shared_ptr<re2::FilteredRE2> filter_;
  std::vector<std::string> atoms_;      // lookup atoms
  std::vector<int> lookupToFilter_;     // atoms_[i] is the filter's atom lookupToFilter_[i]
  std::vector<int> alwaysPresent_;      // the filter's atoms nib cannot look up: assumed present
  bool scansEverything_ = true;
};

}  // namespace nib
