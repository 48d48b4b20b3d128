// The dense view's implementation over FAISS (see views/DenseView.h for its files): writing a
// version's vectors.faiss and answering nearest-unit and similarity queries from it. Only the
// dense module (libnib-dense.so) and the tests link this; everything else asks through
// DenseView.
//
// Small views are exact (IndexFlatIP); from kExactLimit vectors on an inverted-file index
// (IndexIVFFlat, searched with kProbes lists), whose trained centroids an update reuses.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/Status.h"
#include "views/DenseView.h"

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

// The dense view in `dir`, read in this process (the module's DenseView::open).
Expected<std::unique_ptr<DenseView>> openFaissDenseView(const std::filesystem::path& dir);

}  // namespace nib
