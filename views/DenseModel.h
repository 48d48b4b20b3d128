// The dense view's embedding model: word and subword vectors learned from the repository itself
// with fastText (skip-gram over identifier sub-tokens, comments and doc strings, the approach of
// Neural Code Search), and the one rule that turns a bag of tokens into a unit vector: a sum of
// word vectors weighted by smooth inverse frequency (a / (a + p(word))) times a sublinear count
// (1 + log tf: a body that repeats a local name is not about it), normalized to length 1. Units at
// index time and queries at search time go through the same rule and the same tokenizer as the
// lexical view (support/SearchText.h), so a query word meets the unit tokens it was trained with.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/Status.h"
#include "views/DenseTraining.h"

namespace fasttext {
class FastText;
}

namespace nib {

class DenseModel {
 public:
  // Trains on `corpus` (one sequence of tokens per line) with one thread and a fixed seed, so
  // the same corpus gives the same model byte for byte, and saves it to `modelFile`.
  static Expected<std::unique_ptr<DenseModel>> train(const std::filesystem::path& corpus,
                                                     const std::filesystem::path& modelFile,
                                                     const DenseTraining& training);
  static Expected<std::unique_ptr<DenseModel>> load(const std::filesystem::path& modelFile);
  ~DenseModel();
  DenseModel(const DenseModel&) = delete;
  DenseModel& operator=(const DenseModel&) = delete;

  int dimension() const { return dimension_; }
  size_t vocabularySize() const { return weights_.size(); }
  // The unit vector of a bag of (token, count), written to out[0..dimension); false when no
  // token has a vector (then `out` is zero). Safe to call from several threads at once.
  bool embedTerms(const std::vector<std::pair<std::string, uint32_t>>& terms, float* out) const;
  // The same for running text (a query): its tokens as the lexical view splits them.
  bool embedText(std::string_view text, float* out) const;

  static constexpr double kSifA = 1e-3;  // SIF's smoothing: words above ~0.1% frequency fade
  static constexpr float kOovWeight = 0.3f;  // a word without its own vector (see embedTerms)

 private:
  DenseModel() = default;
  Status init();
  std::unique_ptr<fasttext::FastText> fastText_;
  int dimension_ = 0;
  std::vector<float> weights_;  // SIF weight per vocabulary word id
};

}  // namespace nib
