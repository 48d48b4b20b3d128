// Unit vectors by (model digest, unit key), shared by every version of one index
// (<repo>/.nib/vectors): an update embeds only the units whose text it has not embedded with
// the same model before. The dense builder stores a document's unit vectors as one block under
// the document's key, and each vector under its text's digest too. The value is float32 bytes.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "views/Lmdb.h"

namespace nib {

// Consecutive vectors stored under one key: rows [firstRow, firstRow + rows) of a matrix.
struct VectorBlock {
  std::string_view key;
  size_t firstRow = 0;
  size_t rows = 1;
};

class VectorCache {
 public:
  static Expected<std::unique_ptr<VectorCache>> open(const std::filesystem::path& dir);
  // The key of one unit's vector: 16 hex digits of the model digest and 16 of the unit's (64
  // bits each: a collision within one repository is not a practical concern).
  static std::string key(const std::string& modelDigest, const std::string& unitDigestHex);
  // For each key, its vector (dimension floats) into out[i * dimension ..]; found[i] says
  // whether it was there. One read snapshot for the whole lookup.
  Status getMany(const std::vector<std::string>& keys, int dimension, std::vector<float>* out,
                 std::vector<bool>* found);
  // Stores the vectors of keys[i] for every i with store[i], in one transaction.
  Status putMany(const std::vector<std::string>& keys, const std::vector<bool>& store, int dimension,
                 const std::vector<float>& vectors);
  // One block of one row per key (row i = keys[i]); the blocks view the keys.
  static std::vector<VectorBlock> rowBlocks(const std::vector<std::string>& keys);
  // The same for blocks: each found block's rows are written into `out` (which must hold every
  // block's rows); a stored value of another size is not found.
  Status getBlocks(const std::vector<VectorBlock>& blocks, int dimension, std::vector<float>* out,
                   std::vector<bool>* found);
  Status putBlocks(const std::vector<VectorBlock>& blocks, const std::vector<bool>& store, int dimension,
                   const std::vector<float>& vectors);
  // Keeps only the keys a build used (its blocks' and the single units' it looked up) once the
  // store holds more than `slack` times as many (retainCacheKeys): vectors of other models, of
  // files' earlier contents and of units no longer written are embedded again if ever needed.
  // Then compacts the store when much of its file is free pages (compactIfSparse): nothing may
  // be written through this object afterwards. Returns how many were deleted.
  Expected<size_t> retainOnly(const std::vector<VectorBlock>& blocks, const std::vector<std::string>& unitKeys,
                              double slack = 1.5);

 private:
  VectorCache(std::unique_ptr<LmdbEnv> env, MDB_dbi dbi, std::filesystem::path dir)
      : env_(std::move(env)), dbi_(dbi), dir_(std::move(dir)) {}
  std::unique_ptr<LmdbEnv> env_;
  MDB_dbi dbi_;
  std::filesystem::path dir_;
};

}  // namespace nib
