#include "providers/RegexPlan.h"

#include <algorithm>

namespace nib {

Expected<RegexPlan> RegexPlan::build(const std::string& pattern, const RE2::Options& options) {
  RegexPlan plan;
  // Atoms shorter than a trigram cannot be looked up; RE2 then leaves them out of the formula
  // (treating that part as "anything"), which keeps the formula a necessary condition.
  plan.filter_ = std::make_shared<re2::FilteredRE2>(3);
  int id = 0;
  RE2::ErrorCode code = plan.filter_->Add(pattern, options, &id);
  if (code != RE2::NoError) {
    RE2 probe(pattern, options);
    return Status(ErrorCode::InvalidArgument, "invalid regular expression: " + probe.error());
  }
  std::vector<std::string> atoms;
  plan.filter_->Compile(&atoms);
  for (size_t i = 0; i < atoms.size(); ++i) {
    // The trigram view folds ASCII letters only; an atom lower-cased from a non-ASCII capital
    // would not be found in the text's bytes, so it is assumed present instead.
    bool ascii = std::all_of(atoms[i].begin(), atoms[i].end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (ascii && atoms[i].size() >= 3) {
      plan.atoms_.push_back(atoms[i]);
      plan.lookupToFilter_.push_back(static_cast<int>(i));
    } else {
      plan.alwaysPresent_.push_back(static_cast<int>(i));
    }
  }
  // A formula that holds with none of the lookup atoms needs no lookup: scan everything.
  plan.scansEverything_ = plan.mayMatch({});
  return plan;
}

std::vector<std::string> RegexPlan::lineAtoms() const {
  // Testing each atom costs a pass over the formula per atom: for long alternations (hundreds of
  // words) there is no single necessary atom anyway, and all of them are the answer.
  if (atoms_.size() > 32) return atoms_;
  std::vector<int> all(atoms_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  int best = -1;
  for (size_t a = 0; a < atoms_.size(); ++a) {
    std::vector<int> without;
    for (int i : all)
      if (i != static_cast<int>(a)) without.push_back(i);
    bool necessary = !mayMatch(without);  // the formula is monotone: this is exact
    if (necessary && (best < 0 || atoms_[a].size() > atoms_[static_cast<size_t>(best)].size())) best = static_cast<int>(a);
  }
  if (best >= 0) return {atoms_[static_cast<size_t>(best)]};
  return atoms_;
}

bool RegexPlan::mayMatch(const std::vector<int>& present) const {
  std::vector<int> ids = alwaysPresent_;
  for (int i : present) ids.push_back(lookupToFilter_[static_cast<size_t>(i)]);
  std::sort(ids.begin(), ids.end());
  std::vector<int> passed;
  filter_->AllPotentials(ids, &passed);
  return !passed.empty();
}

}  // namespace nib
