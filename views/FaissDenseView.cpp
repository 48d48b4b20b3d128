#include "views/FaissDenseView.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/clone_index.h>
#include <faiss/index_io.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "support/FileIo.h"
#include "views/DenseModel.h"

namespace nib {
namespace fs = std::filesystem;

Status writeDenseIndex(const fs::path& file, const std::vector<int64_t>& ids, const std::vector<float>& vectors,
                       int dimension, const fs::path& previous, std::string* kind, size_t exactLimit) {
  const size_t n = ids.size();
  if (vectors.size() != n * static_cast<size_t>(dimension))
    return Status(ErrorCode::InvalidArgument, "dense index: ids and vectors disagree");
  // FAISS reports misuse by throwing faiss::FaissException (a std::exception).
  try {
    std::unique_ptr<faiss::Index> index;
    if (n < exactLimit) {
      auto map = std::make_unique<faiss::IndexIDMap2>(new faiss::IndexFlatIP(dimension));
      map->own_fields = true;
      index = std::move(map);
      *kind = "flat";
    } else {
      std::unique_ptr<faiss::IndexIVFFlat> ivf;
      if (!previous.empty() && fs::exists(previous)) {
        std::unique_ptr<faiss::Index> old(faiss::read_index(previous.c_str()));
        auto* oldIvf = dynamic_cast<faiss::IndexIVFFlat*>(old.get());
        if (oldIvf && oldIvf->d == dimension) {
          ivf.reset(static_cast<faiss::IndexIVFFlat*>(faiss::clone_index(oldIvf)));
          ivf->reset();  // keeps the trained centroids, drops the vectors
        }
      }
      if (!ivf) {
        // About 4 sqrt(n) lists, trained on an evenly spaced sample (deterministic).
        size_t lists = static_cast<size_t>(4 * std::sqrt(static_cast<double>(n)));
        auto* quantizer = new faiss::IndexFlatIP(dimension);
        ivf = std::make_unique<faiss::IndexIVFFlat>(quantizer, dimension, lists, faiss::METRIC_INNER_PRODUCT);
        ivf->own_fields = true;
        size_t sample = std::min(n, lists * 64);
        std::vector<float> train(sample * dimension);
        for (size_t i = 0; i < sample; ++i) {
          size_t from = i * n / sample;
          std::copy_n(vectors.data() + from * dimension, dimension, train.data() + i * dimension);
        }
        ivf->train(static_cast<faiss::Index::idx_t>(sample), train.data());
      }
      ivf->nprobe = kProbes;
      *kind = "ivf" + std::to_string(ivf->nlist);
      index = std::move(ivf);
    }
    static_assert(sizeof(faiss::Index::idx_t) == sizeof(int64_t));
    index->add_with_ids(static_cast<faiss::Index::idx_t>(n), vectors.data(),
                        reinterpret_cast<const faiss::Index::idx_t*>(ids.data()));
    faiss::write_index(index.get(), file.c_str());
  } catch (const std::exception& e) {
    return Status(ErrorCode::IoError, std::string("writing the dense index failed: ") + e.what());
  }
  return Status::ok();
}

bool normalizeVector(float* v, int dimension) {
  double norm = 0;
  for (int i = 0; i < dimension; ++i) norm += static_cast<double>(v[i]) * v[i];
  if (norm <= 0) return false;
  float inv = static_cast<float>(1.0 / std::sqrt(norm));
  for (int i = 0; i < dimension; ++i) v[i] *= inv;
  return true;
}

namespace {

class FaissDenseView final : public DenseView {
 public:
  int dimension() const override { return dimension_; }
  Expected<std::vector<float>> embed(std::string_view text) const override;
  std::optional<std::vector<float>> embedUnit(const std::vector<std::pair<std::string, uint32_t>>& terms) const override;
  size_t size() const override { return static_cast<size_t>(index_->ntotal); }
  std::string kind() const override;
  std::vector<std::pair<uint32_t, float>> nearest(const float* query, size_t k) const override;
  std::optional<float> similarity(const float* query, uint32_t unit) const override;

  // Set once by openFaissDenseView; read-only afterwards (queries come from several threads).
  std::unique_ptr<DenseModel> model_;
  std::unique_ptr<TextEncoder> encoder_;
  int dimension_ = 0;
  std::unique_ptr<faiss::Index> index_;
};

}  // namespace

Expected<std::unique_ptr<DenseView>> openFaissDenseView(const fs::path& dir) {
  auto view = std::make_unique<FaissDenseView>();
  if (fs::exists(dir / "encoder")) {
    auto text = readFile(dir / "encoder");
    if (!text) return text.status();
    auto settings = EncoderSettings::parse(*text);
    if (!settings) return settings.status();
    auto encoder = makeTextEncoder(*settings);
    if (!encoder) return encoder.status();
    view->encoder_ = std::move(*encoder);
    view->dimension_ = settings->dimension;
  } else {
    auto model = DenseModel::load(dir / "model.bin");
    if (!model) return model.status();
    view->model_ = std::move(*model);
    view->dimension_ = view->model_->dimension();
  }
  try {
    view->index_.reset(faiss::read_index((dir / "vectors.faiss").c_str()));
  } catch (const std::exception& e) {
    return Status(ErrorCode::Corrupt, std::string("cannot read the dense index: ") + e.what());
  }
  if (view->index_->d != view->dimension_)
    return Status(ErrorCode::Corrupt, "the dense index and its model disagree on the dimension");
  try {
    // Reconstructing one unit's vector by id needs a map from ids to where the vectors are.
    if (auto* ivf = dynamic_cast<faiss::IndexIVF*>(view->index_.get())) {
      ivf->nprobe = kProbes;
      ivf->set_direct_map_type(faiss::DirectMap::Hashtable);
    }
  } catch (const std::exception& e) {
    return Status(ErrorCode::Corrupt, std::string("cannot map the dense index's ids: ") + e.what());
  }
  return std::unique_ptr<DenseView>(std::move(view));
}

Expected<std::vector<float>> FaissDenseView::embed(std::string_view text) const {
  std::vector<float> v(dimension_);
  if (model_) {
    if (!model_->embedText(text, v.data())) v.clear();
    return v;
  }
  auto out = encoder_->encode({std::string(text.substr(0, kMaxEncodedBytes))});
  if (!out) return out.status();
  if (out->size() != 1 || (*out)[0].size() != static_cast<size_t>(dimension_))
    return Status(ErrorCode::IoError, "the embedding endpoint answered a vector of another dimension than the index's");
  v = std::move((*out)[0]);
  if (!normalizeVector(v.data(), dimension_)) v.clear();
  return v;
}

std::optional<std::vector<float>> FaissDenseView::embedUnit(const std::vector<std::pair<std::string, uint32_t>>& terms) const {
  if (!model_) return std::nullopt;
  std::vector<float> v(dimension_);
  if (!model_->embedTerms(terms, v.data())) v.clear();
  return v;
}

std::string FaissDenseView::kind() const {
  if (auto* ivf = dynamic_cast<const faiss::IndexIVF*>(index_.get())) return "ivf" + std::to_string(ivf->nlist);
  return "flat";
}

std::vector<std::pair<uint32_t, float>> FaissDenseView::nearest(const float* query, size_t k) const {
  std::vector<std::pair<uint32_t, float>> out;
  k = std::min(k, size());
  if (k == 0) return out;
  std::vector<float> scores(k);
  std::vector<faiss::Index::idx_t> labels(k);
  try {
    index_->search(1, query, static_cast<faiss::Index::idx_t>(k), scores.data(), labels.data());
  } catch (const std::exception&) {
    return out;
  }
  for (size_t i = 0; i < k; ++i)
    if (labels[i] >= 0) out.emplace_back(static_cast<uint32_t>(labels[i]), scores[i]);
  return out;
}

std::optional<float> FaissDenseView::similarity(const float* query, uint32_t unit) const {
  std::vector<float> v(index_->d);
  try {
    index_->reconstruct(static_cast<faiss::Index::idx_t>(unit), v.data());
  } catch (const std::exception&) {
    return std::nullopt;  // no vector under that id
  }
  double dot = 0;
  for (size_t i = 0; i < v.size(); ++i) dot += static_cast<double>(v[i]) * query[i];
  return static_cast<float>(dot);
}

}  // namespace nib
