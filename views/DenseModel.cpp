#include "views/DenseModel.h"

#include <stdexcept>
#include <fasttext/args.h>
#include <fasttext/densematrix.h>
#include <fasttext/dictionary.h>
#include <fasttext/fasttext.h>
#include <fasttext/loss.h>
#include <fasttext/model.h>
#include <fasttext/vector.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <random>

#include "support/SearchText.h"

namespace nib {

DenseModel::~DenseModel() = default;

namespace {

// fastText's loader builds the training loss of the saved arguments, and negative sampling's
// is a table of ten million word ids shuffled on every load: 70 ms of a 75 ms load for a model
// that is only ever asked for word vectors afterwards. The saved model therefore names the
// softmax loss instead (its loader keeps a pointer to the output matrix and nothing more): the
// four bytes of `loss` in the arguments block that follows the file's magic and version
// (dim, ws, epoch, minCount, neg, wordNgrams, loss: bytes 32..35 in fastText 0.9.2's format).
// Only a file that is exactly what this version of fastText writes is changed; any other is
// left as it is and loads as before, slowly.
Status markForInference(const std::filesystem::path& modelFile) {
  constexpr int32_t kMagic = 793712314, kVersion = 12;
  constexpr std::streamoff kLossOffset = 8 + 6 * sizeof(int32_t);
  std::fstream f(modelFile, std::ios::in | std::ios::out | std::ios::binary);
  if (!f) return Status(ErrorCode::IoError, "cannot open " + modelFile.string());
  int32_t header[2] = {0, 0}, loss = 0;
  f.read(reinterpret_cast<char*>(header), sizeof(header));
  f.seekg(kLossOffset);
  f.read(reinterpret_cast<char*>(&loss), sizeof(loss));
  if (!f || header[0] != kMagic || header[1] != kVersion || loss != static_cast<int32_t>(fasttext::loss_name::ns))
    return Status::ok();
  loss = static_cast<int32_t>(fasttext::loss_name::softmax);
  f.seekp(kLossOffset);
  f.write(reinterpret_cast<const char*>(&loss), sizeof(loss));
  f.close();
  if (!f) return Status(ErrorCode::IoError, "cannot write " + modelFile.string());
  return Status::ok();
}

// fastText's dense matrix with its four training operations on rows written four lanes wide.
// fastText's own are scalar loops (a dot product cannot be vectorised by the compiler without
// reordering its sum), and they were 55% of the training time once negative sampling stopped
// missing the caches. The order of every sum is fixed here too (eight partial sums, combined
// in a fixed tree), so training stays deterministic. Storage, initialisation and the saved
// format are DenseMatrix's: the model file is fastText's as before.
class TrainingMatrix final : public fasttext::DenseMatrix {
 public:
  using DenseMatrix::DenseMatrix;

  fasttext::real dotRow(const fasttext::Vector& v, int64_t i) const override {
    const float* row = data() + i * n_;
    const float* x = v.data();
    Lanes a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 8 <= n_; j += 8) {
      a += load(row + j) * load(x + j);
      b += load(row + j + 4) * load(x + j + 4);
    }
    for (; j + 4 <= n_; j += 4) a += load(row + j) * load(x + j);
    a += b;
    float d = (a[0] + a[1]) + (a[2] + a[3]);
    for (; j < n_; ++j) d += row[j] * x[j];
    if (std::isnan(d)) throw EncounteredNaNError();
    return d;
  }
  void addVectorToRow(const fasttext::Vector& v, int64_t i, fasttext::real scale) override {
    axpy(v.data(), scale, data() + i * n_);
  }
  void addRowToVector(fasttext::Vector& out, int32_t i) const override { axpy(data() + int64_t{i} * n_, 1.0f, out.data()); }
  void addRowToVector(fasttext::Vector& out, int32_t i, fasttext::real scale) const override {
    axpy(data() + int64_t{i} * n_, scale, out.data());
  }

 private:
  using Lanes = float __attribute__((vector_size(16)));
  static Lanes load(const float* p) {
    Lanes v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // y += scale * x over one row (n_ floats).
  void axpy(const float* x, float scale, float* y) const {
    int64_t j = 0;
    for (; j + 4 <= n_; j += 4) {
      Lanes r = load(y + j) + scale * load(x + j);
      std::memcpy(y + j, &r, sizeof r);
    }
    for (; j < n_; ++j) y[j] += scale * x[j];
  }
};

// Negative sampling as fastText's (each negative drawn with probability proportional to the
// square root of the word's count, `neg` of them per context word), from a table sized to the
// vocabulary instead of fastText's fixed ten million entries. That table is 40 MB, so nearly
// every draw missed the caches: 37% of the training time on jq (perf).
// kTableSlotsPerWord slots per vocabulary word (at most kMaxTableSize) keep the table within
// the second-level cache on the vocabularies a 100,000-token sample yields, and every word keeps
// at least one slot, as in fastText's table.
class CompactNegativeSampling : public fasttext::BinaryLogisticLoss {
 public:
  static constexpr size_t kTableSlotsPerWord = 16;
  static constexpr size_t kMaxTableSize = size_t{1} << 20;

  CompactNegativeSampling(std::shared_ptr<fasttext::Matrix>& output, TrainingMatrix* rows, int negatives,
                          const std::vector<int64_t>& counts)
      : BinaryLogisticLoss(output), rows_(rows), negatives_(negatives) {
    double z = 0;
    for (int64_t c : counts) z += std::sqrt(static_cast<double>(c));
    const double size = static_cast<double>(std::min(kMaxTableSize, std::max<size_t>(1, counts.size() * kTableSlotsPerWord)));
    for (size_t i = 0; i < counts.size(); ++i) {
      double share = std::sqrt(static_cast<double>(counts[i])) * size / z;
      for (size_t j = 0; j < share; ++j) table_.push_back(static_cast<int32_t>(i));
    }
    pick_ = std::uniform_int_distribution<size_t>(0, table_.size() - 1);
  }

  // fastText's binary logistic step for the target and each negative, on the TrainingMatrix
  // directly (no virtual calls). The loss value is not computed: fastText only prints it, and
  // nib trains silently.
  fasttext::real forward(const std::vector<int32_t>& targets, int32_t targetIndex, fasttext::Model::State& state,
                         fasttext::real lr, bool backprop) override {
    const int32_t target = targets[targetIndex];
    step(target, true, state, lr, backprop);
    for (int n = 0; n < negatives_; ++n) {
      int32_t negative;
      do negative = table_[pick_(state.rng)];
      while (negative == target && table_.size() > 1);
      step(negative, false, state, lr, backprop);
    }
    return 0;
  }

 private:
  void step(int32_t row, bool positive, fasttext::Model::State& state, fasttext::real lr, bool backprop) {
    const fasttext::real score = sigmoid(rows_->dotRow(state.hidden, row));
    if (!backprop) return;
    const fasttext::real alpha = lr * ((positive ? 1.0f : 0.0f) - score);
    rows_->addRowToVector(state.grad, row, alpha);
    rows_->addVectorToRow(state.hidden, row, alpha);
  }

  TrainingMatrix* rows_;  // the output matrix, wo_ as its own type
  int negatives_;
  std::vector<int32_t> table_;
  std::uniform_int_distribution<size_t> pick_;
};

// fastText's training (its dictionary, model, loop and file format) with the loss and matrices
// above in place of the ones FastText::train would create; everything else is fastText's own.
class SkipgramTrainer : public fasttext::FastText {
 public:
  void train(const fasttext::Args& settings) {
    args_ = std::make_shared<fasttext::Args>(settings);
    dict_ = std::make_shared<fasttext::Dictionary>(args_);
    std::ifstream in(args_->input);
    if (!in) throw std::invalid_argument(args_->input + " cannot be opened for training");
    dict_->readFromFile(in);
    in.close();
    // As createRandomMatrix and createTrainOutputMatrix make them: word and n-gram rows drawn
    // uniformly from +-1/dim with the seed, output rows zero.
    auto input = std::make_shared<TrainingMatrix>(dict_->nwords() + args_->bucket, args_->dim);
    input->uniform(1.0 / args_->dim, args_->thread, args_->seed);
    auto output = std::make_shared<TrainingMatrix>(dict_->nwords(), args_->dim);
    output->zero();
    input_ = input;
    output_ = output;
    quant_ = false;
    auto loss = std::make_shared<CompactNegativeSampling>(output_, output.get(), args_->neg, getTargetCounts());
    model_ = std::make_shared<fasttext::Model>(input_, output_, loss, /*normalizeGradient=*/false);
    startThreads();  // with args_->thread == 1, fastText's loop on this thread
  }
};

}  // namespace

Expected<std::unique_ptr<DenseModel>> DenseModel::train(const std::filesystem::path& corpus,
                                                        const std::filesystem::path& modelFile,
                                                        const DenseTraining& training) {
  // fastText opens the corpus by name once for the dictionary and again for training, and its
  // training loop waits for tokens forever when the second open finds nothing (the folder was
  // removed meanwhile: a background follow-up outliving its repository spun for minutes). It
  // reads the file through a descriptor held open here instead, which stays valid whatever
  // happens to the name.
  int fd = ::open(corpus.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(ErrorCode::IoError, "cannot open the training text " + corpus.string());
  struct CloseFd {
    int fd;
    ~CloseFd() { ::close(fd); }
  } closeFd{fd};
  // fastText reports bad input (an empty vocabulary, an unreadable file) by throwing; nothing
  // of that may leave this module.
  try {
    fasttext::Args args;
    args.input = "/proc/self/fd/" + std::to_string(fd);
    args.output = modelFile.string();
    args.model = training.cbow ? fasttext::model_name::cbow : fasttext::model_name::sg;
    args.loss = fasttext::loss_name::ns;
    args.dim = training.dimension;
    args.epoch = training.epochs;
    args.ws = training.window;
    args.neg = training.negatives;
    args.minCount = training.minCount;
    args.minn = training.minNgram;
    args.maxn = training.maxNgram;
    args.bucket = training.buckets;
    args.seed = training.seed;
    args.thread = 1;  // fastText is deterministic with one thread only
    args.verbose = 0;
    SkipgramTrainer trainer;
    trainer.train(args);
    trainer.saveModel(modelFile.string());
    NIB_RETURN_IF_ERROR(markForInference(modelFile));
  } catch (const std::invalid_argument&) {
    // fastText's one invalid_argument during training: no word reached the minimum count.
    return Status(ErrorCode::InvalidArgument, "too little text to learn word vectors from");
  } catch (const std::exception& e) {
    return Status(ErrorCode::IoError, "training the embedding model failed: " + std::string(e.what()));
  }
  // The model as it will be read back (marked for inference), so that the vectors of this build
  // and of every later load agree.
  return load(modelFile);
}

Expected<std::unique_ptr<DenseModel>> DenseModel::load(const std::filesystem::path& modelFile) {
  auto model = std::unique_ptr<DenseModel>(new DenseModel());
  try {
    model->fastText_ = std::make_unique<fasttext::FastText>();
    model->fastText_->loadModel(modelFile.string());
  } catch (const std::exception& e) {
    return Status(ErrorCode::Corrupt, "cannot load the embedding model " + modelFile.string() + ": " + e.what());
  }
  NIB_RETURN_IF_ERROR(model->init());
  return model;
}

Status DenseModel::init() {
  dimension_ = fastText_->getDimension();
  if (dimension_ <= 0) return Status(ErrorCode::Corrupt, "the embedding model has no dimension");
  auto dict = fastText_->getDictionary();
  std::vector<int64_t> counts = dict->getCounts(fasttext::entry_type::word);
  double total = static_cast<double>(dict->ntokens());
  if (total <= 0) total = 1;
  weights_.resize(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) weights_[i] = static_cast<float>(kSifA / (kSifA + counts[i] / total));
  return Status::ok();
}

bool DenseModel::embedTerms(const std::vector<std::pair<std::string, uint32_t>>& terms, float* out) const {
  std::fill(out, out + dimension_, 0.0f);
  fasttext::Vector v(dimension_);
  bool any = false;
  for (const auto& [term, count] : terms) {
    int32_t id = fastText_->getWordId(term);
    // A word the model never saw (too rare, or in a file outside the training sample) is rare
    // by SIF's measure, but its vector is only a guess from its character n-grams: it counts
    // kOovWeight of a rare word (bench/dense_bench.py, semantic MRR: tmux 0.076 -> 0.102, jq
    // 0.055 -> 0.058, libuv 0.035 -> 0.033 against full weight).
    float w = id >= 0 && static_cast<size_t>(id) < weights_.size() ? weights_[id] : kOovWeight;
    fastText_->getWordVector(v, term);
    float scale = w * (1.0f + std::log(static_cast<float>(count)));
    for (int i = 0; i < dimension_; ++i) out[i] += scale * v[i];
  }
  double norm = 0;
  for (int i = 0; i < dimension_; ++i) norm += static_cast<double>(out[i]) * out[i];
  if (norm > 0) {
    any = true;
    float inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (int i = 0; i < dimension_; ++i) out[i] *= inv;
  }
  return any;
}

bool DenseModel::embedText(std::string_view text, float* out) const {
  std::map<std::string, uint32_t> counts;
  forEachToken(text, [&](std::string_view t) { ++counts[std::string(t)]; });
  std::vector<std::pair<std::string, uint32_t>> terms(counts.begin(), counts.end());
  return embedTerms(terms, out);
}

}  // namespace nib
