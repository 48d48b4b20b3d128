// The dense view of an index version (versions/<id>/dense/):
//
//   model.bin      the fastText model (DenseModel), hard-linked from the version that trained
//                  it: updates keep the model, so their vectors stay comparable; or
//   encoder        the external encoder's settings (TextEncoder), when .nib.conf names one;
//   vectors.faiss  a FAISS inner-product index over the lexical view's units, one normalized
//                  vector per unit that has one, under the unit's id in the lexical view.
//
// Small views are exact (IndexFlatIP); from kExactLimit vectors on an inverted-file index
// (IndexIVFFlat, searched with kProbes lists), whose trained centroids an update reuses.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/Status.h"
#include "views/DenseModel.h"
#include "views/TextEncoder.h"

namespace faiss {
struct Index;
}

namespace nib {

inline constexpr size_t kExactLimit = 200000;
inline constexpr size_t kProbes = 32;

// Writes `file`: `ids[i]` has vector vectors[i * dimension ..]. When `previous` names an IVF
// index of the same dimension, its centroids are reused (no training). `kind` receives the
// index's description for the profile ("flat" or "ivf<lists>"). From `exactLimit` vectors on,
// the index is an IVF one.
Status writeDenseIndex(const std::filesystem::path& file, const std::vector<int64_t>& ids,
                       const std::vector<float>& vectors, int dimension, const std::filesystem::path& previous,
                       std::string* kind, size_t exactLimit = kExactLimit);

// An external encoder's input: a unit's text up to this many bytes (embedding models read a
// bounded context; the start of a unit says the most about it).
inline constexpr size_t kMaxEncodedBytes = 4096;

// Scales v to length 1; false (v unchanged) when it is zero.
bool normalizeVector(float* v, int dimension);

// FAISS runs its loops on OpenMP threads; a server answering requests on its own threads
// wants one per search (nib serve calls this once at start).
void limitDenseThreads(int threads);

// Whether the vectors of a dense view with this recorded profile compare with the queries this
// build embeds: an external encoder's always (the configuration names the encoder), the
// repository model's only when trained with this build's settings and embedding rule.
inline bool denseVectorsComparable(const std::string& viewProfile) {
  return EncoderSettings::madeProfile(viewProfile) || DenseTraining().madeProfile(viewProfile);
}

class DenseView {
 public:
  static Expected<std::unique_ptr<DenseView>> open(const std::filesystem::path& dir);
  ~DenseView();
  int dimension() const { return dimension_; }
  // The vector of a query (or of a changed file's text), normalized, from the same model or
  // encoder as the units'; empty when nothing in the text can be embedded.
  Expected<std::vector<float>> embed(std::string_view text) const;
  // A unit's vector as the build computes it (from its terms), for units of changed files;
  // nullopt with an external encoder (each would cost a request: changed files are then
  // embedded whole, by `embed`).
  std::optional<std::vector<float>> embedUnit(const std::vector<std::pair<std::string, uint32_t>>& terms) const;
  size_t size() const;
  std::string kind() const;
  // Up to k (unit id, cosine similarity) pairs, best first, for a normalized query vector.
  std::vector<std::pair<uint32_t, float>> nearest(const float* query, size_t k) const;
  // The cosine similarity of a normalized query vector and one unit's stored vector; nullopt
  // when the unit has none.
  std::optional<float> similarity(const float* query, uint32_t unit) const;

 private:
  DenseView() = default;
  std::unique_ptr<DenseModel> model_;
  std::unique_ptr<TextEncoder> encoder_;
  int dimension_ = 0;
  std::unique_ptr<faiss::Index> index_;
};

}  // namespace nib
