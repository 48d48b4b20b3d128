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
  return std::unique_ptr<VectorCache>(new VectorCache(std::move(*env), *dbi));
}

std::string VectorCache::key(const std::string& modelDigest, const std::string& unitDigestHex) {
  return modelDigest.substr(0, 16) + unitDigestHex.substr(0, 16);
}

Status VectorCache::getMany(const std::vector<std::string>& keys, int dimension, std::vector<float>* out,
                            std::vector<bool>* found) {
  const size_t bytes = static_cast<size_t>(dimension) * sizeof(float);
  out->assign(keys.size() * dimension, 0.0f);
  found->assign(keys.size(), false);
  auto txn = LmdbTxn::begin(*env_, /*write=*/false);
  if (!txn) return txn.status();
  for (size_t i = 0; i < keys.size(); ++i) {
    auto v = txn->get(dbi_, keys[i]);
    // A value of another size is from a model of another dimension under a colliding key:
    // embedded again, never trusted.
    if (!v || v->size() != bytes) continue;
    std::memcpy(out->data() + i * dimension, v->data(), bytes);
    (*found)[i] = true;
  }
  return Status::ok();
}

Status VectorCache::putMany(const std::vector<std::string>& keys, const std::vector<bool>& store, int dimension,
                            const std::vector<float>& vectors) {
  const size_t bytes = static_cast<size_t>(dimension) * sizeof(float);
  auto txn = LmdbTxn::begin(*env_, /*write=*/true);
  if (!txn) return txn.status();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!store[i]) continue;
    NIB_RETURN_IF_ERROR(txn->put(dbi_, keys[i],
                                 std::string_view(reinterpret_cast<const char*>(vectors.data() + i * dimension), bytes)));
  }
  return txn->commit();
}

}  // namespace nib
