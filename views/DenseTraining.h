// The settings that train the dense view's repository model (views/DenseModel, in the dense
// module). Kept apart from the model so that the light binary can tell whether a dense view's
// vectors compare with the queries this build embeds without loading fastText.
#pragma once

#include <string>

namespace nib {

// The training settings. Everything here changes the vectors, so it is all in profile().
struct DenseTraining {
  int dimension = 48;
  int epochs = 4;
  int window = 10;  // wide: a comment's words should reach the code under it (see the training text)
  int negatives = 5;
  int minCount = 2;  // words seen fewer times get subword vectors only
  int minNgram = 4;  // character n-grams of minNgram..maxNgram bytes (0, 0: no subwords); 4-grams
  int maxNgram = 4;  // alone train about a third faster than 3..4 and measured as well
  int buckets = 50000;  // hashed n-gram rows: the model's size is about (words + buckets) * dimension * 4 bytes
  int seed = 1;
  int cbow = 0;  // 1: continuous bag of words instead of skip-gram (about 5x faster to train)
  // The settings and the embedding rule (DenseModel's SIF weighting, the training text, the
  // negative sampler) as recorded in a dense view's profile.
  std::string profile() const {
    return std::string(cbow ? "fasttext-cbow" : "fasttext-skipgram") + ";dim=" + std::to_string(dimension) +
           ";epoch=" + std::to_string(epochs) + ";ws=" + std::to_string(window) + ";neg=" + std::to_string(negatives) +
           ";minCount=" + std::to_string(minCount) + ";ngrams=" + std::to_string(minNgram) + "-" +
           std::to_string(maxNgram) + ";buckets=" + std::to_string(buckets) + ";seed=" + std::to_string(seed) +
           ";sif=0.001;oov=0.3;text=passages;negatives=compact16";
  }
  // Whether a dense view's recorded profile (profile() followed by the model and index) was
  // made with these settings.
  bool madeProfile(const std::string& viewProfile) const { return viewProfile.rfind(profile() + ";", 0) == 0; }
};

}  // namespace nib
