// Builds the dense view of a version from its search facts: trains the embedding model on a
// deterministic sample of the repository's text, or keeps the previous version's model (an
// update must produce vectors comparable with the ones it reuses), embeds every lexical unit
// whose (model, text) pair the vector cache does not hold, and writes the FAISS index.
#pragma once

#include <cstdint>
#include <optional>
#include <filesystem>
#include <string>
#include <vector>

#include "support/Status.h"
#include "views/DenseTraining.h"
#include "views/FactStore.h"
#include "views/Manifest.h"
#include "support/TextEncoder.h"
#include "views/SearchViews.h"

namespace nib {

struct DenseBuildInput {
  std::filesystem::path dir;           // versions/<id>/dense, created by the caller
  std::filesystem::path vectorsDir;    // the shared VectorCache
  // The lexical view's documents and facts: unit ids are assigned in the same order.
  const std::vector<SearchDoc>* docs = nullptr;
  const std::vector<const SearchFacts*>* facts = nullptr;
  FactStore::Reader* contents = nullptr;  // the documents' bytes, for the training text
  // The search views' profile (tokenizer revision and extractor): with a document's path and
  // blob id it determines every unit's terms, so it names them in the vector cache's keys.
  std::string searchProfile;
  // The current version's folder and dense view, when it has one: its model is kept unless
  // `retrain` (or the training settings changed).
  std::filesystem::path previousDir;
  const ViewRecord* previousView = nullptr;
  bool retrain = false;
  std::filesystem::path model;  // a model file to use as it is (neither trained nor kept)
  // An external encoder (the project configuration's): used instead of a fastText model.
  std::optional<EncoderSettings> encoder;
  unsigned threads = 1;
  DenseTraining training;
  // The training sample's size, in tokens: it bounds the training time (about 0.8 s on one core
  // with the default settings; a wider window or a bigger sample gives better vectors slowly).
  uint64_t trainTokens = 100000;
};

struct DenseBuildReport {
  ViewRecord view;  // Complete with artifacts, or Failed with the reason
  bool trained = false;
  std::string modelDigest;
  uint64_t units = 0, vectors = 0, embedded = 0, reused = 0, trainingTokens = 0;
  uint64_t cacheCollected = 0;  // vectors deleted from the cache as no longer used (VectorCache::retainOnly)
  double trainSeconds = 0, embedSeconds = 0, indexSeconds = 0;
  std::string indexKind;
  int dimension = 0;
};

// Never fails the version: a dense view that cannot be built is recorded as Failed (a dense
// module that cannot be loaded too, with the reason). The build runs in the dense module
// (libnib-dense.so, loaded on first use) so that the indexer maps FAISS and fastText only
// when it builds a dense view.
DenseBuildReport buildDenseView(const DenseBuildInput& input);

// The build itself, in this process: the module's entry point, and the tests'.
DenseBuildReport buildDenseViewInProcess(const DenseBuildInput& input);
using BuildDenseViewFn = DenseBuildReport(const DenseBuildInput& input);
inline constexpr const char* kBuildDenseViewSymbol = "nib_dense_build_view";

}  // namespace nib
