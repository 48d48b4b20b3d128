#include "views/VectorCache.h"

#include <cstring>

namespace nib {

Expected<std::unique_ptr<VectorCache>> VectorCache::open(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message());
  LmdbEnv::Options options;
  options.maxDbs = 2;
  // A cache: a crash may lose the last batches (they are embedded again), never the store's
  // consistency, so commits skip the fsync that costs an update more than its embedding.
  options.noSync = true;
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, /*write=*/true);
  if (!txn) return txn.status();
  auto dbi = txn->openDb("vectors", true);
  if (!dbi) return dbi.status();
  NIB_RETURN_IF_ERROR(txn->commit());
  return std::unique_ptr<VectorCache>(new VectorCache(std::move(*env), *dbi, dir));
}

std::string VectorCache::key(const std::string& modelDigest, const std::string& unitDigestHex) {
  return modelDigest.substr(0, 16) + unitDigestHex.substr(0, 16);
}

std::vector<VectorBlock> VectorCache::rowBlocks(const std::vector<std::string>& keys) {
  std::vector<VectorBlock> blocks(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) blocks[i] = {keys[i], i, 1};
  return blocks;
}

Status VectorCache::getMany(const std::vector<std::string>& keys, int dimension, std::vector<float>* out,
                            std::vector<bool>* found) {
  out->assign(keys.size() * dimension, 0.0f);
  return getBlocks(rowBlocks(keys), dimension, out, found);
}

Status VectorCache::putMany(const std::vector<std::string>& keys, const std::vector<bool>& store, int dimension,
                            const std::vector<float>& vectors) {
  return putBlocks(rowBlocks(keys), store, dimension, vectors);
}

Status VectorCache::getBlocks(const std::vector<VectorBlock>& blocks, int dimension, std::vector<float>* out,
                              std::vector<bool>* found) {
  const size_t rowBytes = static_cast<size_t>(dimension) * sizeof(float);
  found->assign(blocks.size(), false);
  auto txn = LmdbTxn::begin(*env_, /*write=*/false);
  if (!txn) return txn.status();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const VectorBlock& b = blocks[i];
    if ((b.firstRow + b.rows) * dimension > out->size()) return Status(ErrorCode::InvalidArgument, "a vector block past the matrix");
    if (b.rows == 0) {
      (*found)[i] = true;
      continue;
    }
    auto v = txn->get(dbi_, b.key);
    // A value of another size is from a model of another dimension (or a block of another
    // length) under a colliding key: embedded again, never trusted.
    if (!v || v->size() != b.rows * rowBytes) continue;
    std::memcpy(out->data() + b.firstRow * dimension, v->data(), v->size());
    (*found)[i] = true;
  }
  return Status::ok();
}

Status VectorCache::putBlocks(const std::vector<VectorBlock>& blocks, const std::vector<bool>& store, int dimension,
                              const std::vector<float>& vectors) {
  const size_t rowBytes = static_cast<size_t>(dimension) * sizeof(float);
  auto txn = LmdbTxn::begin(*env_, /*write=*/true);
  if (!txn) return txn.status();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const VectorBlock& b = blocks[i];
    if (!store[i] || b.rows == 0) continue;
    if ((b.firstRow + b.rows) * dimension > vectors.size()) return Status(ErrorCode::InvalidArgument, "a vector block past the matrix");
    NIB_RETURN_IF_ERROR(txn->put(
        dbi_, b.key,
        std::string_view(reinterpret_cast<const char*>(vectors.data() + b.firstRow * dimension), b.rows * rowBytes)));
  }
  return txn->commit();
}

Expected<size_t> VectorCache::retainOnly(const std::vector<VectorBlock>& blocks, const std::vector<std::string>& unitKeys,
                                         double slack) {
  std::unordered_set<std::string_view> used;
  used.reserve(blocks.size() + unitKeys.size());
  for (const VectorBlock& b : blocks) used.insert(b.key);
  for (const std::string& k : unitKeys) used.insert(k);
  auto erased = retainCacheKeys(*env_, "vectors", used, slack);
  if (!erased || *erased == 0) return erased;
  auto compacted = compactIfSparse(*env_, dir_);
  if (!compacted) return compacted.status();
  return erased;
}

}  // namespace nib
