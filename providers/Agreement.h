// How often the index's answers equal a live language server's, measured per category of answer
// (the language, the request, which facts answered and how, the server compared with): the
// calibration the `auto` provider policy follows. A label such as `exact` says how an answer was
// made; only a measurement says how often such answers are what the live server would say.
//
// The counts come from the server's idle sampler (server/AgreementSampler) and are kept per
// index version in `.nib/agreement/<version>` (IndexLayout::agreementFile). A version that has
// none yet starts from its predecessor's counts for the categories whose facts are unchanged:
// each count remembers the profile of the view that answered it (the clang view's, the precise
// view's, the extractor's), and a count taken with other facts is dropped.
#pragma once

#include <compare>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "providers/LiveProvider.h"
#include "providers/Navigation.h"
#include "support/Language.h"
#include "support/Status.h"

namespace nib {

struct AgreementKey {
  Language language = Language::Unknown;
  NavigationKind kind = NavigationKind::Definition;
  std::string category;  // answerCategory(): "clang exact", "clang exact macro", "tree-sitter scope", "none", ...
  std::string backend;   // the live server compared with: its program's name ("clangd", "pylsp")
  auto operator<=>(const AgreementKey&) const = default;
};

struct AgreementCount {
  uint64_t sampled = 0, agreed = 0;
  std::string profile;  // the answering facts' profile when they were counted
  double rate() const { return sampled ? static_cast<double>(agreed) / static_cast<double>(sampled) : 0; }
  // The Wilson score interval at 95 %: honest for small counts and rates near 0 or 1.
  std::pair<double, double> interval() const;
};

// What the index's and a live server's answers are compared by — the agreement sampler and
// `nib bench live-vs-static` alike: the (path, 0-based line, byte column) of each location inside
// the repository, with installed packages (node_modules/) and .git/ left out on both sides; with
// `outside` (definitions), also each location outside the repository by its absolute path (a
// system header's declaration, which clangd answers and so must the index). References compare
// the repository's only: the index lists none outside it, where clangd's are a header's own uses.
using AnswerSites = std::set<std::tuple<std::string, uint32_t, uint32_t>>;
AnswerSites answerSites(const Expected<NavigationResult>& answer, bool outside);  // empty for an error
AnswerSites answerSites(const LiveAnswer& answer, bool outside);

// The category of an index answer: which facts answered, how certain they were, and what the
// symbol is where that matters ("clang exact macro"); "none" when the index has no answer.
std::string answerCategory(const Expected<NavigationResult>& answer);
// Which facts answer a category: "clang", "scip", "tree-sitter", or "" (no answer).
std::string categorySource(const std::string& category);
// The name a live backend is known by in the counts: its program's file name.
std::string backendName(const std::vector<std::string>& argv);
// "definitions from clang exact (clangd): 97.1 % ± 1.4 of 412 sampled".
std::string describeAgreement(const AgreementKey& key, const AgreementCount& count);

struct CalibrationSettings {
  double threshold = 0.99;   // the index answers a category whose agreement is at least this
  uint64_t minSamples = 20;  // fewer samples are no measurement yet
};

// The policy's word on one category: whether the index answers it, and why. A measurement
// decides only when it is conclusive: the agreement's whole 95 % interval at or above the
// threshold (the index answers) or below it (the backend answers). A rate over the threshold
// on a few dozen samples is not evidence that 99 % of answers agree; until the interval clears
// the threshold the rules for unmeasured categories decide.
struct CalibrationVerdict {
  bool conclusive = false;
  bool fromIndex = false;
  std::string reason;     // "references from tree-sitter scope agree with pylsp on 61.5 % ..."
  std::string agreement;  // describeAgreement of the deciding count
};

// The counts of one index version. Thread-safe: the sampler records while requests read.
class Calibration {
 public:
  // `profiles`: per facts source ("clang", "scip", "tree-sitter"), the profile of this version's
  // facts; a count recorded with another is not this version's measurement.
  Calibration(std::filesystem::path file, std::map<std::string, std::string> profiles, CalibrationSettings settings);
  // The version's counts from `file`; when it has none, those of `previous` (another version's
  // file) whose facts are unchanged. A file that cannot be read is no measurement (logged by
  // the caller through `problem`).
  static std::shared_ptr<Calibration> load(const std::filesystem::path& file, const std::filesystem::path& previous,
                                           std::map<std::string, std::string> profiles, CalibrationSettings settings,
                                           std::string* problem = nullptr);

  void record(const AgreementKey& key, bool agreed);
  std::optional<AgreementCount> count(const AgreementKey& key) const;  // this version's facts only
  // Whether the index answers the category: by its own measurement once conclusive, else by
  // that of the same facts' categories (language, request, backend alike) that decide nothing
  // alone, pooled, when that is conclusive; nothing while neither has minSamples counted (the
  // verdict may be inconclusive).
  std::optional<CalibrationVerdict> verdict(const AgreementKey& key) const;
  // Whether the category's own count decides it (min-samples or more, conclusive either way):
  // the sampler spends its backends on the categories that are not.
  bool decidedAlone(const AgreementKey& key) const;
  std::vector<std::pair<AgreementKey, AgreementCount>> entries() const;
  // Writes the counts (atomically) when they changed since the last save.
  Status save();
  CalibrationSettings settings() const {
    std::lock_guard<std::mutex> g(mutex_);
    return settings_;
  }
  void setSettings(CalibrationSettings settings) {
    std::lock_guard<std::mutex> g(mutex_);
    settings_ = settings;
  }

  static std::string encode(const std::map<AgreementKey, AgreementCount>& counts);
  static Expected<std::map<AgreementKey, AgreementCount>> decode(std::string_view text);

 private:
  std::string profileOf(const AgreementKey& key) const;

  std::filesystem::path file_;
  std::map<std::string, std::string> profiles_;
  CalibrationSettings settings_;
  mutable std::mutex mutex_;
  std::map<AgreementKey, AgreementCount> counts_;
  bool dirty_ = false;
};

}  // namespace nib
