// The dense view: deterministic training, content-addressed vector reuse (an update equals a
// rebuild with the same model), FAISS IVF recall against exact search on real vectors, and the
// semantic and hybrid routes through the Engine, the CLI and the LSP server.
#include <catch2/catch.hpp>
#include <fasttext/args.h>
#include <fasttext/fasttext.h>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "LspClient.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "protocol/HttpEncoder.h"
#include "providers/SearchProvider.h"
#include "server/Engine.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/SearchText.h"
#include "views/DenseModel.h"
#include "views/VectorCache.h"
#include "views/FaissDenseView.h"
#include "views/IndexLayout.h"

namespace nib::test {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

// Real text to learn from: nib's own sources, one line of tokens per source line.
std::vector<std::string> sourceLines() {
  std::vector<std::string> lines;
  fs::path root = fs::path(NIB_TESTS_DIR).parent_path();
  for (const char* dir : {"support", "views", "providers", "indexer"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / dir))
      if (e.path().extension() == ".cpp" || e.path().extension() == ".h") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::istringstream in(*readFile(f));
      std::string line;
      while (std::getline(in, line)) {
        std::string tokens;
        forEachToken(line, [&](std::string_view t) { tokens += (tokens.empty() ? "" : " ") + std::string(t); });
        if (!tokens.empty()) lines.push_back(tokens);
      }
    }
  }
  return lines;
}

fs::path writeCorpus(const fs::path& dir, const std::vector<std::string>& lines) {
  fs::path p = dir / "corpus.txt";
  std::ofstream out(p);
  for (const std::string& l : lines) out << l << '\n';
  return p;
}

void copySearchFixture(TestRepo& repo) {
  fs::path src = fs::path(NIB_FIXTURE_DIR) / "search" / "repo";
  for (const auto& e : fs::recursive_directory_iterator(src))
    if (e.is_regular_file()) repo.write(fs::relative(e.path(), src).string(), *readFile(e.path()));
  repo.commitAll();
}

Manifest build(TestRepo& repo, bool force = false) {
  IndexOptions options;
  options.threads = 2;
  // These tests are about the dense view's own update (the vector cache): every build writes
  // its views, rather than a delta that shares the previous ones.
  options.deltaBudget = 0;
  options.skipIfCurrent = !force;
  auto r = buildIndex(repo.root(), options);
  INFO(r.status().toString());
  REQUIRE(r.hasValue());
  return r->manifest;
}

std::string artifactDigest(const Manifest& m, const std::string& path) {
  const ViewRecord* v = m.view("dense");
  REQUIRE(v);
  for (const Artifact& a : v->artifacts)
    if (a.path == path) return a.digest;
  FAIL("no artifact " << path);
  return "";
}

// tests/encoder/fake_embeddings.py, run for the test's length: a real HTTP server that answers
// OpenAI-style embeddings requests (hashed word bags) and counts what it served.
class FakeEncoder {
 public:
  explicit FakeEncoder(const fs::path& dir) : dir_(dir), portFile_(dir / "encoder.port") {
    fs::create_directories(dir);
    std::string script = std::string(NIB_TESTS_DIR) + "/encoder/fake_embeddings.py";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execlp("python3", "python3", script.c_str(), portFile_.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !fs::exists(portFile_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE(fs::exists(portFile_));
    port_ = *readFile(portFile_);
  }
  ~FakeEncoder() {
    stop();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  std::string url() const { return "http://127.0.0.1:" + port_ + "/v1/embeddings"; }
  json stats() const {
    std::string out;
    REQUIRE(runCommand("python3 -c \"import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:" +
                           port_ + "/stats').read().decode())\"",
                       &out) == 0);
    return json::parse(out);
  }

 private:
  fs::path dir_, portFile_;
  pid_t pid_ = -1;
  std::string port_;
};

}  // namespace

TEST_CASE("training the embedding model is deterministic", "[dense]") {
  TestRepo scratch;
  fs::path corpus = writeCorpus(scratch.root(), sourceLines());
  DenseTraining t;
  t.minCount = 1;
  t.buckets = 5000;
  auto a = DenseModel::train(corpus, scratch.root() / "a.bin", t);
  auto b = DenseModel::train(corpus, scratch.root() / "b.bin", t);
  INFO((a ? "" : a.status().toString()));
  REQUIRE(a.hasValue());
  REQUIRE(b.hasValue());
  CHECK(*digestFile(scratch.root() / "a.bin") == *digestFile(scratch.root() / "b.bin"));
  // Loading the saved model again embeds as the first load did, out-of-vocabulary words included.
  auto loaded = DenseModel::load(scratch.root() / "a.bin");
  REQUIRE(loaded.hasValue());
  const int d = (*a)->dimension();
  REQUIRE(d == t.dimension);
  std::vector<float> x(d), y(d);
  REQUIRE((*a)->embedText("open the facts store and read a blob's content", x.data()));
  REQUIRE((*loaded)->embedText("open the facts store and read a blob's content", y.data()));
  CHECK(x == y);
  // The file names the softmax loss, whose loader builds no negative-sampling table (70 ms).
  fasttext::FastText raw;
  raw.loadModel((scratch.root() / "a.bin").string());
  CHECK(raw.getArgs().loss == fasttext::loss_name::softmax);
  CHECK(raw.getArgs().model == fasttext::model_name::sg);
  REQUIRE((*loaded)->embedText("zqxjunseenword", y.data()));  // subword vectors only
  double norm = 0;
  for (float v : y) norm += v * v;
  CHECK(norm == Approx(1.0).epsilon(1e-4));
  // Too little text is a clear error, not a crash.
  fs::path tiny = writeCorpus(scratch.root(), {});
  auto none = DenseModel::train(tiny, scratch.root() / "c.bin", t);
  REQUIRE_FALSE(none.hasValue());
  CHECK(none.status().message().find("too little text") != std::string::npos);
  auto garbage = DenseModel::load(corpus);
  CHECK_FALSE(garbage.hasValue());
}

TEST_CASE("training learns which words keep company (nib's negative sampling in fastText's loop)", "[dense]") {
  // Two families of 300 words that never share a line (no subwords, so that spelling cannot
  // relate them): after training, words are close to their own family and far from the other.
  // With the vectors left as initialised (a loss that learns nothing) both means are near zero.
  TestRepo scratch;
  constexpr int kFamily = 300;
  std::vector<std::string> lines;
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const char* family = i % 2 ? "a" : "b";
    std::string line;
    for (int w = 0; w < 10; ++w) line += family + std::to_string(rng() % kFamily) + " ";
    lines.push_back(line);
  }
  DenseTraining t;
  t.minCount = 1;
  t.minNgram = t.maxNgram = 0;
  t.buckets = 0;
  t.epochs = 20;  // fastText's subsampling keeps about a tenth of these frequent words
  auto model = DenseModel::train(writeCorpus(scratch.root(), lines), scratch.root() / "m.bin", t);
  INFO((model ? "" : model.status().toString()));
  REQUIRE(model.hasValue());
  const int d = (*model)->dimension();
  auto cosine = [&](const std::string& a, const std::string& b) {
    std::vector<float> x(d), y(d);
    REQUIRE((*model)->embedText(a, x.data()));
    REQUIRE((*model)->embedText(b, y.data()));
    double c = 0;
    for (int i = 0; i < d; ++i) c += static_cast<double>(x[i]) * y[i];
    return c;
  };
  double within = 0, across = 0;
  for (int i = 0; i < 50; ++i) {
    std::string a = "a" + std::to_string(i), a2 = "a" + std::to_string(i + 100), b = "b" + std::to_string(i + 50);
    within += cosine(a, a2) / 50;
    across += cosine(a, b) / 50;
  }
  INFO("mean cosine within a family " << within << ", across " << across);
  // Negatives push the other family away: without them (positives only) the mean across was 0.51.
  CHECK(within > 0.8);
  CHECK(across < 0.35);
}

TEST_CASE("the vector cache keeps blocks of vectors and refuses a block of another length", "[dense]") {
  TestRepo scratch;
  auto cache = VectorCache::open(scratch.root() / "vectors");
  REQUIRE(cache.hasValue());
  const int dim = 4;
  std::vector<float> matrix(5 * dim);
  for (size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<float>(i) + 0.5f;
  const std::string a = "doc-a", b = "doc-b", empty = "doc-empty";
  std::vector<VectorBlock> blocks = {{a, 0, 3}, {b, 3, 2}, {empty, 5, 0}};
  REQUIRE((*cache)->putBlocks(blocks, {true, true, true}, dim, matrix).isOk());

  std::vector<float> out(5 * dim, 0.0f);
  std::vector<bool> found;
  // Read back in another order: each block lands on its own rows.
  std::vector<VectorBlock> swapped = {{b, 0, 2}, {a, 2, 3}, {empty, 5, 0}};
  REQUIRE((*cache)->getBlocks(swapped, dim, &out, &found).isOk());
  CHECK(found == std::vector<bool>{true, true, true});
  CHECK(std::vector<float>(out.begin(), out.begin() + 2 * dim) == std::vector<float>(matrix.begin() + 3 * dim, matrix.end()));
  CHECK(std::vector<float>(out.begin() + 2 * dim, out.end()) == std::vector<float>(matrix.begin(), matrix.begin() + 3 * dim));
  // A block whose stored length differs (a document with another number of units under a
  // colliding key) is not found, and a block past the matrix is an error, not a write past it.
  std::vector<VectorBlock> shorter = {{a, 0, 2}, {"never-stored", 2, 1}};
  REQUIRE((*cache)->getBlocks(shorter, dim, &out, &found).isOk());
  CHECK(found == std::vector<bool>{false, false});
  std::vector<VectorBlock> past = {{a, 3, 3}};
  CHECK_FALSE((*cache)->getBlocks(past, dim, &out, &found).isOk());
  CHECK_FALSE((*cache)->putBlocks(past, {true}, dim, matrix).isOk());
}

TEST_CASE("an update embeds only changed units and equals a rebuild with the same model", "[dense]") {
  TestRepo repo;
  copySearchFixture(repo);
  Manifest first = build(repo);
  REQUIRE(first.view("dense")->status == ViewStatus::Complete);
  CHECK(first.stats.at("dense.trained") == "yes");
  const uint64_t units = std::stoull(first.stats.at("dense.units"));
  REQUIRE(units > 10);
  CHECK(first.stats.at("dense.embedded") == std::to_string(units));

  // One function body changes: its unit and its file's unit are embedded again, nothing else.
  std::string hash = *readFile(repo.root() / "lib/hash.c");
  size_t at = hash.find("return");
  REQUIRE(at != std::string::npos);
  hash.insert(at, "reportProgress(blocks); ");
  repo.write("lib/hash.c", hash);
  Manifest update = build(repo);
  CHECK(update.stats.at("dense.trained") == "no");
  CHECK(artifactDigest(update, "dense/model.bin") == artifactDigest(first, "dense/model.bin"));
  // The file's other function (unchanged text in a changed file) keeps its vector.
  uint64_t embedded = std::stoull(update.stats.at("dense.embedded"));
  CHECK(embedded == 2);
  CHECK(std::stoull(update.stats.at("dense.reused")) == std::stoull(update.stats.at("dense.units")) - embedded);

  // The same version's vectors from an empty cache with the same model: byte-identical.
  fs::remove_all(repo.root() / ".nib" / "vectors");
  Manifest rebuild = build(repo, /*force=*/true);
  CHECK(rebuild.stats.at("dense.trained") == "no");
  CHECK(rebuild.stats.at("dense.embedded") == rebuild.stats.at("dense.units"));
  CHECK(artifactDigest(rebuild, "dense/vectors.faiss") == artifactDigest(update, "dense/vectors.faiss"));
  // A retrained model (same text, same settings) is the same model: training is deterministic.
  IndexOptions retrain;
  retrain.retrainModel = true;
  auto r = buildIndex(repo.root(), retrain);
  REQUIRE(r.hasValue());
  CHECK(r->manifest.stats.at("dense.trained") == "yes");
}

TEST_CASE("a delta version's semantic and hybrid answers equal a rebuild's with the same model", "[dense][delta]") {
  TestRepo repo;
  copySearchFixture(repo);
  Manifest first = build(repo);
  std::string hash = *readFile(repo.root() / "lib/hash.c");
  hash.insert(hash.find("return"), "reportProgress(blocks); ");
  repo.write("lib/hash.c", hash);
  IndexOptions delta;
  delta.threads = 2;
  auto update = buildIndex(repo.root(), delta);
  REQUIRE(update.hasValue());
  REQUIRE(update->deltaBase == first.versionId);
  // The golden: every vector embedded again with the same model, in its own index folder.
  IndexOptions golden;
  golden.threads = 2;
  golden.indexDir = repo.root() / ".nib" / "golden";
  golden.denseModel = IndexLayout(repo.root() / ".nib").versionDir(first.versionId) / "dense" / "model.bin";
  auto rebuilt = buildIndex(repo.root(), golden);
  REQUIRE(rebuilt.hasValue());
  auto ours = Engine::open(repo.root());
  auto theirs = Engine::open(repo.root(), golden.indexDir);
  REQUIRE(ours.hasValue());
  REQUIRE(theirs.hasValue());
  for (auto [query, route] : {std::pair{"hash short strings", SearchRoute::Semantic},
                               std::pair{"report progress of blocks", SearchRoute::Semantic},
                               std::pair{"parse configuration", SearchRoute::Semantic},
                               std::pair{"hash short strings", SearchRoute::Hybrid},
                               std::pair{"report progress of blocks", SearchRoute::Hybrid}}) {
    INFO(query << (route == SearchRoute::Hybrid ? " (hybrid)" : " (semantic)"));
    SearchRequest r;
    r.query = query;
    r.route = route;
    r.k = 15;
    auto a = (*ours)->search(r), b = (*theirs)->search(r);
    REQUIRE(a.hasValue());
    REQUIRE(b.hasValue());
    REQUIRE(!b->hits.empty());
    REQUIRE(a->hits.size() == b->hits.size());
    // Hybrid scores hold BM25, whose collection statistics are the delta's base's (a rebuild
    // counts the edit's new words too): the same units and the same best one; the order of
    // units that only share a common word ("of") with the query, and all scores, may differ.
    // The semantic route must agree exactly.
    std::set<std::tuple<std::string, std::string, uint32_t>> mine, golden;
    for (size_t i = 0; i < a->hits.size(); ++i) {
      const SearchHit &x = a->hits[i], &y = b->hits[i];
      mine.insert({x.path, x.name, x.range.startByte});
      golden.insert({y.path, y.name, y.range.startByte});
      if (route == SearchRoute::Hybrid && i >= 1) continue;
      CHECK(x.path == y.path);
      CHECK(x.name == y.name);
      CHECK(x.range.startByte == y.range.startByte);
      if (route == SearchRoute::Semantic) CHECK(x.score == Approx(y.score).epsilon(1e-4));
    }
    CHECK(mine == golden);
  }
}

TEST_CASE("the IVF index finds what exact search finds on real vectors", "[dense]") {
  TestRepo scratch;
  std::vector<std::string> lines = sourceLines();
  REQUIRE(lines.size() > 3000);
  DenseTraining t;
  t.minCount = 1;
  t.buckets = 5000;
  auto model = DenseModel::train(writeCorpus(scratch.root(), lines), scratch.root() / "m.bin", t);
  REQUIRE(model.hasValue());
  const int d = (*model)->dimension();
  std::vector<int64_t> ids;
  std::vector<float> vectors;
  std::vector<float> v(d);
  for (size_t i = 0; i < lines.size(); ++i)
    if ((*model)->embedText(lines[i], v.data())) {
      ids.push_back(static_cast<int64_t>(i) * 7 + 3);  // ids need not be dense
      vectors.insert(vectors.end(), v.begin(), v.end());
    }
  fs::create_directories(scratch.root() / "flat");
  fs::create_directories(scratch.root() / "ivf");
  std::string kind;
  REQUIRE(writeDenseIndex(scratch.root() / "flat" / "vectors.faiss", ids, vectors, d, {}, &kind).isOk());
  CHECK(kind == "flat");
  REQUIRE(writeDenseIndex(scratch.root() / "ivf" / "vectors.faiss", ids, vectors, d, {}, &kind, /*exactLimit=*/1000).isOk());
  CHECK(kind.rfind("ivf", 0) == 0);
  for (const char* dir : {"flat", "ivf"}) fs::copy_file(scratch.root() / "m.bin", scratch.root() / dir / "model.bin");
  auto flat = DenseView::open(scratch.root() / "flat");
  auto ivf = DenseView::open(scratch.root() / "ivf");
  REQUIRE(flat.hasValue());
  REQUIRE(ivf.hasValue());
  CHECK((*ivf)->kind() == kind);
  CHECK((*ivf)->size() == ids.size());
  // Queries: 100 lines spread over the corpus, as queries (their own vectors).
  size_t found = 0, wanted = 0;
  for (size_t q = 0; q < 100; ++q) {
    const float* query = vectors.data() + (q * (ids.size() / 100)) * d;
    auto exact = (*flat)->nearest(query, 10);
    auto approx = (*ivf)->nearest(query, 10);
    REQUIRE(exact.size() == 10);
    std::set<uint32_t> got;
    for (const auto& [id, _] : approx) got.insert(id);
    for (const auto& [id, _] : exact) found += got.count(id), ++wanted;
    // The stored vector of a unit is what similarity() scores.
    CHECK(*(*flat)->similarity(query, exact.front().first) == Approx(exact.front().second).epsilon(1e-4));
  }
  double recall = static_cast<double>(found) / wanted;
  INFO("IVF recall@10 against exact search: " << recall);
  CHECK(recall >= 0.9);
  CHECK_FALSE((*flat)->similarity(vectors.data(), 1).has_value());  // no unit 1
}

TEST_CASE("hybrid fusion: a tie-breaker with the repository's vectors, a say with an encoder's", "[dense][search]") {
  // The repository model's rule: lexical's first three stay ahead of any later hit, in their order.
  CHECK(hybridScore(kHybridModelFusion, 2, 0.1, 0.0) > hybridScore(kHybridModelFusion, 3, 1.0, 1.0));
  CHECK(hybridScore(kHybridModelFusion, 0, 1.0, -1.0) > hybridScore(kHybridModelFusion, 1, 0.9, 1.0));
  // Past them the cosine breaks near-ties only: a full cosine does not make up a tenth of the top BM25.
  CHECK(hybridScore(kHybridModelFusion, 4, 0.9, 1.0) < hybridScore(kHybridModelFusion, 3, 1.0, 0.0));
  CHECK(hybridScore(kHybridModelFusion, 4, 0.98, 0.9) > hybridScore(kHybridModelFusion, 3, 1.0, 0.0));
  // An encoder's cosine can move a unit past lexical's first, where the model's rule keeps it.
  CHECK(hybridScore(kHybridEncoderFusion, 1, 0.9, 0.8) > hybridScore(kHybridEncoderFusion, 0, 1.0, 0.2));
  CHECK(hybridScore(kHybridModelFusion, 1, 0.9, 0.8) < hybridScore(kHybridModelFusion, 0, 1.0, 0.2));
  // A unit without a vector keeps its BM25.
  CHECK(hybridScore(kHybridEncoderFusion, 5, 0.7, std::nullopt) == Approx(0.7));
}

TEST_CASE("semantic and hybrid routes", "[dense][search]") {
  TestRepo repo;
  copySearchFixture(repo);
  auto engine = indexAndOpen(repo);
  // A unit's own words, as a query, find that unit first.
  SearchRequest r;
  r.route = SearchRoute::Semantic;
  r.k = 5;
  r.query = "FNV-1a: a fast, simple hash for short strings. uint32_t fnv1a_hash(const char *s) { uint32_t h = "
            "2166136261u; while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; } return h; }";
  auto semantic = engine->search(r);
  INFO(semantic.status().toString());
  REQUIRE(semantic.hasValue());
  REQUIRE(!semantic->hits.empty());
  CHECK(semantic->route == SearchRoute::Semantic);
  CHECK(semantic->hits.front().path == "lib/hash.c");
  CHECK(semantic->hits.front().name == "fnv1a_hash");
  for (size_t i = 1; i < semantic->hits.size(); ++i) CHECK(semantic->hits[i - 1].score >= semantic->hits[i].score);
  for (const SearchHit& h : semantic->hits) {
    CHECK(h.score <= 1.0001);
    CHECK(!h.snippet.empty());
  }
  // Filters hold.
  r.languages = {Language::Python};
  auto python = engine->search(r);
  REQUIRE(python.hasValue());
  REQUIRE(!python->hits.empty());
  for (const SearchHit& h : python->hits) CHECK(h.path.substr(h.path.size() - 3) == ".py");

  // Hybrid keeps the lexical golden rankings (the file the lexical test reads).
  int cases = 0;
  for (const RankingCase& c : readRankingCases()) {
    SearchRequest h;
    h.query = c.query;
    h.route = SearchRoute::Hybrid;
    h.k = 10;
    const std::string& target = c.target;
    auto result = engine->search(h);
    REQUIRE(result.hasValue());
    CHECK(result->route == SearchRoute::Hybrid);
    int rank = 0;
    for (size_t i = 0; i < result->hits.size() && !rank; ++i) {
      const SearchHit& hit = result->hits[i];
      if ((hit.name.empty() ? hit.path : hit.path + "#" + hit.name) == target) rank = static_cast<int>(i) + 1;
    }
    INFO(h.query << " -> " << target);
    CHECK(rank >= 1);
    CHECK(rank <= c.maxRank);
    // Lexical's first three hits keep their places (scored above 2: the model's rule, not the
    // encoder's); the cosine only reorders what follows.
    CHECK(result->hits.front().score >= 2.0);
    SearchRequest l = h;
    l.route = SearchRoute::Lexical;
    l.k = kHybridDepth;
    auto lexical = engine->search(l);
    REQUIRE(lexical.hasValue());
    for (size_t i = 0; i < std::min<size_t>({kHybridModelFusion.kept, lexical->hits.size(), result->hits.size()}); ++i) {
      CHECK(result->hits[i].path == lexical->hits[i].path);
      CHECK(result->hits[i].range.startByte == lexical->hits[i].range.startByte);
    }
    ++cases;
  }
  CHECK(cases >= 8);
  // Auto: prose goes to lexical with the repository-trained vectors, code to the exact route.
  SearchRequest prose;
  prose.query = "retry failed request";
  auto autoProse = engine->search(prose);
  REQUIRE(autoProse.hasValue());
  CHECK(autoProse->route == SearchRoute::Lexical);
  prose.query = "send_request(";
  auto autoCode = engine->search(prose);
  REQUIRE(autoCode.hasValue());
  CHECK(autoCode->route == SearchRoute::Trigram);
}

namespace {

// Without a usable dense view: semantic is an error naming the cause, hybrid answers lexically
// and says so.
void checkSemanticRefused(Engine& engine, const std::string& cause) {
  SearchRequest r;
  r.query = "retry failed request";
  r.route = SearchRoute::Semantic;
  auto semantic = engine.search(r);
  REQUIRE_FALSE(semantic.hasValue());
  CHECK(semantic.status().message().find(cause) != std::string::npos);
  r.route = SearchRoute::Hybrid;
  auto hybrid = engine.search(r);
  REQUIRE(hybrid.hasValue());
  REQUIRE(!hybrid->hits.empty());
  REQUIRE(!hybrid->notes.empty());
  CHECK(hybrid->notes.back().find("lexical ranking only") != std::string::npos);
}

}  // namespace

TEST_CASE("without a dense view, semantic is a clear error and hybrid says it is lexical", "[dense][search]") {
  TestRepo repo;
  copySearchFixture(repo);
  IndexOptions options;
  options.dense = false;
  REQUIRE(buildIndex(repo.root(), options).hasValue());
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  checkSemanticRefused(**engine, "dense view");
  SearchRequest r;
  r.query = "retry failed request";
  r.route = SearchRoute::Auto;
  auto autoProse = (*engine)->search(r);
  REQUIRE(autoProse.hasValue());
  CHECK(autoProse->route == SearchRoute::Lexical);
}

TEST_CASE("a dense view trained with other settings is refused and rebuilt, never mixed", "[dense][search]") {
  TestRepo repo;
  copySearchFixture(repo);
  Manifest first = build(repo);
  REQUIRE(first.view("dense")->status == ViewStatus::Complete);
  // As an earlier nib (same version number) would have left it: another training window.
  IndexLayout layout(repo.root() / ".nib");
  fs::path versionDir = layout.versionDir(first.versionId);
  Manifest old = first;
  for (ViewRecord& v : old.views)
    if (v.name == "dense") {
      REQUIRE(DenseTraining().madeProfile(v.profile));
      v.profile = "fasttext-skipgram;dim=48;epoch=4;ws=5" + v.profile.substr(v.profile.find(";neg="));
    }
  REQUIRE(writeManifest(versionDir, old).isOk());

  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  checkSemanticRefused(**engine, "other embedding settings");

  // `nib index` does not call that version current: it builds one with a model of its own.
  Manifest rebuilt = build(repo);
  CHECK(rebuilt.versionId != first.versionId);
  CHECK(rebuilt.stats.at("dense.trained") == "yes");
  CHECK(DenseTraining().madeProfile(rebuilt.view("dense")->profile));
  auto again = Engine::open(repo.root());
  REQUIRE(again.hasValue());
  SearchRequest r;
  r.query = "retry failed request";
  r.route = SearchRoute::Semantic;
  auto fresh = (*again)->search(r);
  INFO((fresh ? "" : fresh.status().toString()));
  REQUIRE(fresh.hasValue());
  CHECK(!fresh->hits.empty());
}

TEST_CASE("semantic search from the CLI and the LSP server", "[dense][cli][lsp]") {
  TestRepo repo;
  copySearchFixture(repo);
  indexAndOpen(repo);
  std::string out;
  int rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + nibBinary() +
                          " search --no-daemon -r semantic -k 3 --json 'hash of a short string'",
                      &out);
  REQUIRE(rc == 0);
  json j = json::parse(out);
  CHECK(j["route"] == "semantic");
  REQUIRE(j["hits"].size() == 3);

  LspClient client(repo.root());
  client.initialize(repo.root());
  json res = client.request("nib/search", {{"query", "evict the oldest cache entry"}, {"route", "hybrid"}, {"k", 3}});
  REQUIRE(res.contains("result"));
  CHECK(res["result"]["route"] == "hybrid");
  REQUIRE(!res["result"]["hits"].empty());
  json bad = client.request("nib/search", {{"query", "x"}, {"route", "neural"}});
  REQUIRE(bad.contains("error"));
  CHECK(bad["error"]["message"].get<std::string>().find("semantic") != std::string::npos);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("an external embedding endpoint: batches, reuse, and clear errors", "[dense][encoder]") {
  installHttpEncoder();
  TestRepo repo;
  copySearchFixture(repo);
  FakeEncoder encoder(repo.root().parent_path() / (repo.root().filename().string() + "-enc"));
  repo.write(".nib.conf", "# the test's encoder\ndense.encoder.url = " + encoder.url() +
                              "\ndense.encoder.model = fake-bag-of-words\ndense.encoder.batch = 8\n");
  Manifest m = build(repo);
  const ViewRecord* dense = m.view("dense");
  REQUIRE(dense);
  INFO(dense->error);
  REQUIRE(dense->status == ViewStatus::Complete);
  CHECK(dense->profile.find("http;url=" + encoder.url() + ";model=fake-bag-of-words;dim=16;index=flat") == 0);
  const uint64_t units = std::stoull(m.stats.at("dense.units"));
  json served = encoder.stats();
  CHECK(served["texts"].get<uint64_t>() == units + 1);  // and one text to learn the dimension
  CHECK(served["requests"].get<uint64_t>() == (units + 7) / 8 + 1);

  // Queries go through the same endpoint: a unit's own text finds it.
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  SearchRequest r;
  r.route = SearchRoute::Semantic;
  r.k = 3;
  r.query = "uint32_t fnv1a_hash(const char *s) { uint32_t h = 2166136261u; while (*s) { h ^= (unsigned char)*s++; "
            "h *= 16777619u; } return h; }";
  auto hits = (*engine)->search(r);
  INFO(hits.status().toString());
  REQUIRE(hits.hasValue());
  REQUIRE(!hits->hits.empty());
  CHECK(hits->hits.front().name == "fnv1a_hash");
  // With an external encoder, auto sends prose to hybrid.
  SearchRequest prose;
  prose.query = "hash short strings";
  auto autoProse = (*engine)->search(prose);
  REQUIRE(autoProse.hasValue());
  CHECK(autoProse->route == SearchRoute::Hybrid);
  // And hybrid fuses with the encoder's rule: no hit is kept in place, so no score reaches the
  // kept hits' (above 1 + the weight); a hit scores its BM25 share plus 0.3 of its cosine.
  REQUIRE(!autoProse->hits.empty());
  for (const SearchHit& h : autoProse->hits) CHECK(h.score <= 1 + kHybridEncoderFusion.semanticWeight + 1e-9);

  // An update sends only the changed units (the two queries above were one text each).
  CHECK(encoder.stats()["texts"].get<uint64_t>() == units + 3);
  std::string hash = *readFile(repo.root() / "lib/hash.c");
  hash.insert(hash.find("return"), "reportProgress(blocks); ");
  repo.write("lib/hash.c", hash);
  Manifest update = build(repo);
  REQUIRE(update.view("dense")->status == ViewStatus::Complete);
  // The file's other function (unchanged text in a changed file) keeps its vector.
  uint64_t embedded = std::stoull(update.stats.at("dense.embedded"));
  CHECK(embedded == 2);
  CHECK(encoder.stats()["texts"].get<uint64_t>() == units + 3 + embedded);

  // The endpoint goes away: the semantic route says so, hybrid answers lexically and says so,
  // and a build records the dense view as failed and still publishes the version.
  encoder.stop();
  auto engine2 = Engine::open(repo.root());
  REQUIRE(engine2.hasValue());
  auto gone = (*engine2)->search(r);
  REQUIRE_FALSE(gone.hasValue());
  CHECK(gone.status().message().find("unreachable") != std::string::npos);
  r.route = SearchRoute::Hybrid;
  r.query = "hash short strings";
  auto lexicalOnly = (*engine2)->search(r);
  REQUIRE(lexicalOnly.hasValue());
  REQUIRE(!lexicalOnly->hits.empty());
  REQUIRE(!lexicalOnly->notes.empty());
  CHECK(lexicalOnly->notes.back().find("unreachable") != std::string::npos);
  repo.write("lib/hash.c", hash + "\n/* one more change */\n");
  Manifest failed = build(repo);
  REQUIRE(failed.view("dense"));
  CHECK(failed.view("dense")->status == ViewStatus::Failed);
  CHECK(failed.view("dense")->error.find("unreachable") != std::string::npos);

  // A configuration nib cannot read is refused with the place and the reason.
  repo.write(".nib.conf", "dense.encoder.ulr = http://127.0.0.1:1/v1/embeddings\n");
  IndexOptions options;
  auto bad = buildIndex(repo.root(), options);
  REQUIRE_FALSE(bad.hasValue());
  CHECK(bad.status().message().find(".nib.conf:1: unknown key 'dense.encoder.ulr'") != std::string::npos);
  repo.write(".nib.conf", "dense.encoder.url = ftp://example/\n");
  bad = buildIndex(repo.root(), options);
  REQUIRE_FALSE(bad.hasValue());
  CHECK(bad.status().message().find("http://") != std::string::npos);
}

}  // namespace nib::test
