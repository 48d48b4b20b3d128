// The dense view of an index version (versions/<id>/dense/):
//
//   model.bin      the fastText model (DenseModel), hard-linked from the version that trained
//                  it: updates keep the model, so their vectors stay comparable; or
//   encoder        the external encoder's settings (TextEncoder), when .nib.conf names one;
//   vectors.faiss  a FAISS inner-product index over the lexical view's units, one normalized
//                  vector per unit that has one, under the unit's id in the lexical view.
//
// This header is the light side: the interface the search provider asks through. The
// implementation (views/FaissDenseView, FAISS and fastText) lives in the dense module,
// libnib-dense.so, which DenseView::open loads on first use (support/Module.h), so that no
// command but a semantic or hybrid query maps FAISS, BLAS or fastText.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/Status.h"
#include "views/DenseTraining.h"
#include "support/TextEncoder.h"

namespace nib {

// Whether the vectors of a dense view with this recorded profile compare with the queries this
// build embeds: an external encoder's always (the configuration names the encoder), the
// repository model's only when trained with this build's settings and embedding rule.
inline bool denseVectorsComparable(const std::string& viewProfile) {
  return EncoderSettings::madeProfile(viewProfile) || DenseTraining().madeProfile(viewProfile);
}

class DenseView {
 public:
  // Opens the dense view in `dir` through the dense module; Unavailable when the module cannot
  // be loaded (the message names the file), Corrupt when the view's files do not read.
  static Expected<std::unique_ptr<DenseView>> open(const std::filesystem::path& dir);
  virtual ~DenseView() = default;

  virtual int dimension() const = 0;
  // The vector of a query (or of a changed file's text), normalized, from the same model or
  // encoder as the units'; empty when nothing in the text can be embedded.
  virtual Expected<std::vector<float>> embed(std::string_view text) const = 0;
  // A unit's vector as the build computes it (from its terms), for units of changed files;
  // nullopt with an external encoder (each would cost a request: changed files are then
  // embedded whole, by `embed`).
  virtual std::optional<std::vector<float>> embedUnit(const std::vector<std::pair<std::string, uint32_t>>& terms) const = 0;
  virtual size_t size() const = 0;
  virtual std::string kind() const = 0;
  // Up to k (unit id, cosine similarity) pairs, best first, for a normalized query vector.
  virtual std::vector<std::pair<uint32_t, float>> nearest(const float* query, size_t k) const = 0;
  // The cosine similarity of a normalized query vector and one unit's stored vector; nullopt
  // when the unit has none.
  virtual std::optional<float> similarity(const float* query, uint32_t unit) const = 0;
};

// The dense module's entry point behind DenseView::open (cli/dense_module.cpp defines it).
using OpenDenseViewFn = Expected<std::unique_ptr<DenseView>>(const std::filesystem::path& dir);
inline constexpr const char* kOpenDenseViewSymbol = "nib_dense_open_view";

}  // namespace nib
