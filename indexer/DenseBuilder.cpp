#include "indexer/DenseBuilder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <thread>

#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "support/SearchText.h"
#include "views/DenseModel.h"
#include "views/FaissDenseView.h"
#include "views/VectorCache.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The training text: one passage per line, a passage being a run of non-blank source lines
// (a comment and the code under it, a function's paragraph), so that a window of context words
// reaches across lines: trained line by line, a comment's words never met the code they
// describe, and prose queries found little (bench/dense_bench.py, semantic Recall@10: 0.09 on
// tmux and 0.17 on jq line by line with a window of 5; 0.26 and 0.21 by passage with a window
// of 10 on half the tokens, for about the same training time).
// A pseudo-random sample of the passages (kept when a hash of the blob id and passage number
// falls under budget / total tokens) spreads over every file, so the model meets most of the
// vocabulary rather than all of a few files. Deterministic: the same text gives the same sample.
// Contents read between hand-backs of the fact store's mapped pages.
constexpr size_t kReleaseEvery = 1024;

Expected<uint64_t> writeTrainingText(const DenseBuildInput& in, const fs::path& file) {
  uint64_t total = 0;  // the file units' lengths: every token of every file
  for (const SearchFacts* f : *in.facts)
    if (!f->units.empty()) total += f->units.front().length;
  const uint64_t budget = in.trainTokens;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) return Status(ErrorCode::IoError, "cannot write " + file.string());
  auto blank = [](std::string_view l) { return l.find_first_not_of(" \t\r\f\v") == std::string_view::npos; };
  uint64_t tokens = 0;
  std::string passage, key;
  size_t read = 0;
  for (const SearchDoc& d : *in.docs) {
    // Every stored content is read once: mapped, they would stay in this process's resident
    // memory (half a gigabyte for qemu) although the page cache holds them anyway.
    if (++read % kReleaseEvery == 0) in.contents->releaseMappedPages();
    auto content = in.contents->content(d.blobOid);
    if (!content) continue;
    std::string_view text = *content;
    size_t start = 0;
    for (uint64_t passageNo = 0; start < text.size(); ++passageNo) {
      // The passage: from `start` to the first blank line (or the end of the text).
      size_t end = start;
      do {
        size_t eol = text.find('\n', end);
        std::string_view line = text.substr(end, (eol == std::string_view::npos ? text.size() : eol) - end);
        end = eol == std::string_view::npos ? text.size() : eol + 1;
        if (blank(line)) break;
      } while (end < text.size());
      key = d.blobOid + ":" + std::to_string(passageNo);
      if (total <= budget || digest64(key) % total < budget) {
        passage.clear();
        forEachToken(text.substr(start, end - start), [&](std::string_view t) {
          if (!passage.empty()) passage += ' ';
          passage += t;
          ++tokens;
        });
        if (!passage.empty()) out << passage << '\n';
      }
      start = end;
    }
  }
  out.close();
  if (!out) return Status(ErrorCode::IoError, "cannot write " + file.string());
  return tokens;
}

// The digest of a unit's bag of terms: the second key of its vector (see embedAndIndex).
std::string unitDigest(const UnitTerms& u) {
  std::string buffer;
  for (const auto& [term, count] : u.terms) {
    buffer.append(term);
    buffer.push_back('\0');
    buffer.append(std::to_string(count));
    buffer.push_back('\n');
  }
  return digestHex(buffer);
}

// Calls work(i) for every i in [0, n) on `threads` threads (the caller's among them).
void parallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) work(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

// The step both sources of vectors share: cached vectors by block (a block is one key's run of
// consecutive units), then, for the units of blocks not found, by `textKey` when given (one unit
// each); `embed` for the rest (written into their rows of `vectors`); the cache updated under
// both kinds of key; the FAISS index written.
Status embedAndIndex(const DenseBuildInput& in, size_t units, const std::vector<VectorBlock>& blocks,
                     const std::function<std::string(size_t)>& textKey, int dim,
                     const std::function<Status(const std::vector<size_t>&, std::vector<float>*)>& embed,
                     const fs::path& previousIndex, DenseBuildReport* report) {
  auto started = std::chrono::steady_clock::now();
  report->units = units;
  report->dimension = dim;
  auto cache = VectorCache::open(in.vectorsDir);
  if (!cache) return cache.status();
  std::vector<float> vectors(units * dim, 0.0f);
  std::vector<bool> found;
  NIB_RETURN_IF_ERROR((*cache)->getBlocks(blocks, dim, &vectors, &found));
  std::vector<size_t> missing;
  std::vector<bool> store(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (found[b]) continue;
    store[b] = true;
    for (size_t i = blocks[b].firstRow; i < blocks[b].firstRow + blocks[b].rows; ++i) missing.push_back(i);
  }
  // The units not found by their block are looked up by their text's key, so a changed file's
  // unchanged units keep their vectors; only units with new text are embedded.
  std::vector<std::string> textKeys;
  std::vector<float> textVectors;
  std::vector<bool> textFound;
  const std::vector<size_t> notInBlocks = missing;
  if (textKey && !missing.empty()) {
    for (size_t i : missing) textKeys.push_back(textKey(i));
    NIB_RETURN_IF_ERROR((*cache)->getMany(textKeys, dim, &textVectors, &textFound));
    std::vector<size_t> unseen;
    for (size_t n = 0; n < missing.size(); ++n) {
      if (textFound[n]) std::copy_n(textVectors.data() + n * dim, dim, vectors.data() + missing[n] * dim);
      else unseen.push_back(missing[n]);
    }
    missing = std::move(unseen);
  }
  if (!missing.empty()) NIB_RETURN_IF_ERROR(embed(missing, &vectors));
  NIB_RETURN_IF_ERROR((*cache)->putBlocks(blocks, store, dim, vectors));
  if (!textKeys.empty()) {
    std::vector<bool> textStore(textKeys.size());
    for (size_t n = 0; n < notInBlocks.size(); ++n) {
      std::copy_n(vectors.data() + notInBlocks[n] * dim, dim, textVectors.data() + n * dim);
      textStore[n] = !textFound[n];
    }
    NIB_RETURN_IF_ERROR((*cache)->putMany(textKeys, textStore, dim, textVectors));
  }
  // The cache keeps what this build used: without it, every edit and every retrained model
  // would add vectors no later build looks up (a failed sweep costs disk, never an answer).
  if (auto swept = (*cache)->retainOnly(blocks, textKeys); !swept) logWarn("the vector cache was not collected: " + swept.status().message());
  else report->cacheCollected = *swept;
  report->embedded = missing.size();
  report->reused = units - missing.size();
  report->embedSeconds = secondsSince(started);

  // A unit with no known token has a zero vector: nothing to find it by.
  started = std::chrono::steady_clock::now();
  std::vector<int64_t> ids;
  std::vector<float> kept;
  kept.reserve(vectors.size());
  for (size_t i = 0; i < units; ++i) {
    const float* v = vectors.data() + i * dim;
    if (std::all_of(v, v + dim, [](float x) { return x == 0.0f; })) continue;
    ids.push_back(static_cast<int64_t>(i));
    kept.insert(kept.end(), v, v + dim);
  }
  report->vectors = ids.size();
  NIB_RETURN_IF_ERROR(writeDenseIndex(in.dir / "vectors.faiss", ids, kept, dim, previousIndex, &report->indexKind));
  report->indexSeconds = secondsSince(started);
  return Status::ok();
}

// The dense view with the repository's own fastText model (trained now or kept).
Status buildWithModel(const DenseBuildInput& in, DenseBuildReport* report) {
  const fs::path modelFile = in.dir / "model.bin";
  std::unique_ptr<DenseModel> model;
  auto started = std::chrono::steady_clock::now();
  // Keep the previous version's model when it was trained with the same settings: vectors of
  // unchanged units are then reused as they are.
  const ViewRecord* prev = in.previousView;
  if (!in.model.empty()) {
    std::error_code ec;
    fs::copy_file(in.model, modelFile, ec);
    if (ec) return Status(ErrorCode::IoError, "cannot copy the model " + in.model.string() + ": " + ec.message());
    auto loaded = DenseModel::load(modelFile);
    if (!loaded) return loaded.status();
    model = std::move(*loaded);
    prev = nullptr;
  } else if (!in.retrain && prev && prev->status == ViewStatus::Complete && in.training.madeProfile(prev->profile) &&
      fs::exists(in.previousDir / "dense" / "model.bin")) {
    std::error_code ec;
    fs::create_hard_link(in.previousDir / "dense" / "model.bin", modelFile, ec);
    if (ec) fs::copy_file(in.previousDir / "dense" / "model.bin", modelFile, ec);
    if (!ec) {
      auto loaded = DenseModel::load(modelFile);
      if (loaded) model = std::move(*loaded);
    }
  }
  if (!model) {
    // The path may hold a link to the previous version's model that did not load: training
    // must write a new file, never through that link into the version it came from.
    std::error_code ec;
    fs::remove(modelFile, ec);
    fs::path corpus = in.dir / "training.txt";
    auto tokens = writeTrainingText(in, corpus);
    if (!tokens) return tokens.status();
    report->trainingTokens = *tokens;
    DenseTraining t = in.training;
    // A small repository has few repeated words: keep them all rather than learn nothing, and
    // fewer n-gram rows (their random initialisation and saving cost more than the training).
    // Both follow from the text alone, so training stays deterministic.
    if (*tokens < 50000) t.minCount = 1;
    t.buckets = static_cast<int>(std::clamp<uint64_t>(*tokens / 8, 2000, static_cast<uint64_t>(t.buckets)));
    auto trained = DenseModel::train(corpus, modelFile, t);
    fs::remove(corpus, ec);
    if (!trained) return trained.status();
    model = std::move(*trained);
    report->trained = true;
  }
  report->trainSeconds = secondsSince(started);
  // A kept model's digest is the previous manifest's (verified when that version was built).
  Expected<std::string> digest = Status(ErrorCode::NotFound, "");
  if (!report->trained && prev)
    for (const Artifact& a : prev->artifacts)
      if (a.path == "dense/model.bin" && a.size == fs::file_size(modelFile)) digest = a.digest;
  if (!digest) digest = digestFile(modelFile);
  if (!digest) return digest.status();
  report->modelDigest = *digest;

  const int dim = model->dimension();
  // A document's units' terms are a function of the search profile (tokenizer and extractor),
  // its path (the file unit holds the path's words; the language follows from it) and its
  // bytes: those name the block of its vectors in the cache. One lookup per document and no
  // hashing of terms: keying every unit by its terms' digest cost 50 of a 57 ms update on git.
  std::vector<const UnitTerms*> units;  // in the lexical view's id order
  std::vector<std::string> blockKeys(in.facts->size());
  std::vector<VectorBlock> blocks(in.facts->size());
  for (size_t d = 0; d < in.facts->size(); ++d) {
    const SearchDoc& doc = (*in.docs)[d];
    blockKeys[d] = VectorCache::key(*digest, digestHex(in.searchProfile + '\0' + doc.path + '\0' + doc.blobOid));
    blocks[d] = {blockKeys[d], units.size(), (*in.facts)[d]->units.size()};
    for (const UnitTerms& u : (*in.facts)[d]->units) units.push_back(&u);
  }
  // Each worker embeds its share of the missing units with the (thread-safe) model.
  auto embed = [&](const std::vector<size_t>& missing, std::vector<float>* vectors) -> Status {
    parallelFor(missing.size(), in.threads,
                [&](size_t n) { model->embedTerms(units[missing[n]]->terms, vectors->data() + missing[n] * dim); });
    return Status::ok();
  };
  fs::path previousIndex = prev && !report->trained ? in.previousDir / "dense" / "vectors.faiss" : fs::path();
  auto textKey = [&](size_t i) { return VectorCache::key(*digest, unitDigest(*units[i])); };
  return embedAndIndex(in, units.size(), blocks, textKey, dim, embed, previousIndex, report);
}

// The dense view with an external encoder: each unit's text (its first kMaxEncodedBytes bytes)
// is sent to the endpoint, in batches; vectors are cached by (endpoint and model, text).
Status buildWithEncoder(const DenseBuildInput& in, DenseBuildReport* report) {
  EncoderSettings settings = *in.encoder;
  auto encoder = makeTextEncoder(settings);
  if (!encoder) return encoder.status();
  std::vector<std::string> texts;
  for (size_t d = 0; d < in.docs->size(); ++d) {
    if ((d + 1) % kReleaseEvery == 0) in.contents->releaseMappedPages();
    auto content = in.contents->content((*in.docs)[d].blobOid);
    if (!content) return content.status();
    for (const UnitTerms& u : (*in.facts)[d]->units) {
      size_t from = std::min<size_t>(u.range.startByte, content->size());
      size_t to = std::min<size_t>({u.range.endByte, content->size(), from + kMaxEncodedBytes});
      texts.emplace_back(content->substr(from, to - from));
    }
  }
  const std::string identity = digestHex(settings.identity());
  report->modelDigest = identity;
  // The dimension: the previous version's when it used the same encoder, else one text's.
  int dim = 0;
  const ViewRecord* prev = in.previousView;
  bool samePrevious = prev && prev->status == ViewStatus::Complete && prev->profile.rfind(settings.identity() + ";", 0) == 0;
  if (samePrevious)
    if (auto text = readFile(in.previousDir / "dense" / "encoder"))
      if (auto old = EncoderSettings::parse(*text)) dim = old->dimension;
  if (dim <= 0) {
    auto probe = (*encoder)->encode({texts.empty() ? std::string("nib") : texts.front()});
    if (!probe) return probe.status();
    dim = static_cast<int>(probe->front().size());
  }
  settings.dimension = dim;
  std::vector<std::string> keys(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) keys[i] = VectorCache::key(identity, digestHex(texts[i]));
  auto embed = [&](const std::vector<size_t>& missing, std::vector<float>* vectors) -> Status {
    std::vector<std::string> batch;
    for (size_t i : missing) batch.push_back(texts[i]);
    auto encoded = (*encoder)->encode(batch);
    if (!encoded) return encoded.status();
    for (size_t n = 0; n < missing.size(); ++n) {
      const std::vector<float>& v = (*encoded)[n];
      if (v.size() != static_cast<size_t>(dim))
        return Status(ErrorCode::IoError, "the embedding endpoint changed its vectors' dimension from " +
                                              std::to_string(dim) + " to " + std::to_string(v.size()));
      float* out = vectors->data() + missing[n] * dim;
      std::copy(v.begin(), v.end(), out);
      if (!normalizeVector(out, dim)) std::fill(out, out + dim, 0.0f);
    }
    return Status::ok();
  };
  fs::path previousIndex = samePrevious ? in.previousDir / "dense" / "vectors.faiss" : fs::path();
  NIB_RETURN_IF_ERROR(embedAndIndex(in, keys.size(), VectorCache::rowBlocks(keys), nullptr, dim, embed, previousIndex, report));
  return writeFileAtomic(in.dir / "encoder", settings.serialize());
}

}  // namespace

DenseBuildReport buildDenseViewInProcess(const DenseBuildInput& input) {
  DenseBuildReport report;
  ViewRecord& v = report.view;
  v.name = "dense";
  v.capabilities = {"semantic", "hybrid"};
  Status s = input.encoder ? buildWithEncoder(input, &report) : buildWithModel(input, &report);
  if (s.isOk()) {
    for (const char* name : {input.encoder ? "encoder" : "model.bin", "vectors.faiss"}) {
      auto digest = name == std::string("model.bin") ? Expected<std::string>(report.modelDigest)
                                                     : digestFile(input.dir / name);
      if (!digest) {
        s = digest.status();
        break;
      }
      v.artifacts.push_back({std::string("dense/") + name, *digest, fs::file_size(input.dir / name)});
    }
  }
  if (!s.isOk()) {
    v.status = ViewStatus::Failed;
    v.error = s.message();
    v.artifacts.clear();
    std::error_code ec;
    fs::remove_all(input.dir, ec);
    return report;
  }
  v.status = ViewStatus::Complete;
  v.profile = input.encoder
                  ? input.encoder->identity() + ";dim=" + std::to_string(report.dimension) + ";index=" + report.indexKind
                  : input.training.profile() + ";model=" + report.modelDigest.substr(0, 16) + ";index=" + report.indexKind;
  return report;
}

}  // namespace nib
