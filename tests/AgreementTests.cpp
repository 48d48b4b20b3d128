// Calibrated answers (issue 26): the agreement counts and their file (providers/Agreement), the
// positions a user might click (support/CodeIdentifiers), the policy following the counts, and
// `nib serve`'s idle sampler end to end with a backend that is right about definitions only.
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "LspClient.h"
#include "TestRepo.h"
#include "providers/Agreement.h"
#include "providers/PolicyNavigator.h"
#include "support/CodeIdentifiers.h"
#include "support/FileIo.h"

namespace nib::test {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

std::vector<std::string> wordsAt(std::string_view text, Language language) {
  std::vector<std::string> out;
  for (uint32_t start : codeIdentifierStarts(text, language)) {
    size_t end = start;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    out.emplace_back(text.substr(start, end - start));
  }
  return out;
}

AgreementKey key(NavigationKind kind, const std::string& category, const std::string& backend = "fake_backend.py") {
  return AgreementKey{Language::Python, kind, category, backend};
}

void recordMany(Calibration& c, const AgreementKey& k, int agreed, int disagreed) {
  for (int i = 0; i < agreed; ++i) c.record(k, true);
  for (int i = 0; i < disagreed; ++i) c.record(k, false);
}

// A file where every name is defined before its first use: the fake backend's definitions
// (the first occurrence of the word) are right there, its references (the position alone) not.
const char* kAlpha =
    "def alpha(x):\n"
    "    return x + 1\n"
    "\n"
    "\n"
    "def beta(y):\n"
    "    return alpha(y) * 2\n"
    "\n"
    "\n"
    "def gamma():\n"
    "    return beta(alpha(3))\n";

std::string firstWordBackend(const fs::path& events) {
  return "python=" + std::string(NIB_TESTS_DIR) + "/live/fake_backend.py firstword " + events.string();
}

// Sampling on for this test's servers (TestRepo turns it off for every other test).
struct SamplingOn {
  SamplingOn() { ::setenv("NIB_CALIBRATION_SAMPLES_PER_HOUR", "100000", 1); }
  ~SamplingOn() { ::setenv("NIB_CALIBRATION_SAMPLES_PER_HOUR", "0", 1); }
};

json locate(LspClient& nib, const TestRepo& repo, const std::string& path, int line, int character,
            const std::string& request) {
  return nib.request("nib/locate",
                     {{"textDocument", {{"uri", LspClient::uri(repo.root() / path)}}},
                      {"position", {{"line", line}, {"character", character}}},
                      {"request", request}},
                     30000);
}

// The sampled count of a category in nib/status (0 when it has none).
uint64_t sampledIn(const json& status, const std::string& request, const std::string& category) {
  for (const json& a : status["result"]["agreement"])
    if (a["request"] == request && a["category"] == category) return a["sampled"].get<uint64_t>();
  return 0;
}

int countLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("identifiers a user might click: code only, no keywords, no comments or strings", "[agreement]") {
  const char* c =
      "#include \"names.h\"\n"
      "#define LIMIT 10 /* limit */\n"
      "static int count(const char *s) { // counts\n"
      "  return s[0] == 'x' ? strlen(\"quoted words\") : 0x1f;\n"
      "}\n";
  CHECK(wordsAt(c, Language::C) == std::vector<std::string>{"LIMIT", "count", "s", "s", "strlen"});
  const char* py =
      "import os  # the os module\n"
      "def run(path, *, flag=False):\n"
      "    '''Runs a path.\n"
      "    more words'''\n"
      "    return f\"{path}\" if flag else os.sep\n";
  CHECK(wordsAt(py, Language::Python) == std::vector<std::string>{"os", "run", "path", "flag", "flag", "os", "sep"});
  const char* ts = "const label = `hello ${name}`;\nexport function size(a: number): number { return a.length; }\n";
  CHECK(wordsAt(ts, Language::TypeScript) == std::vector<std::string>{"label", "size", "a", "a", "length"});
  // A Rust lifetime is code; a character literal is not.
  CHECK(wordsAt("fn get<'a>(v: &'a str) -> char { 'z' }\n", Language::Rust) ==
        std::vector<std::string>{"get", "a", "v", "a", "str", "char"});
  // No index is read: unknown text of any length still yields its identifiers.
  CHECK(codeIdentifierStarts("", Language::Python).empty());
  CHECK(codeIdentifierStarts("x", Language::Python) == std::vector<uint32_t>{0});
}

TEST_CASE("agreement counts: intervals, verdicts, the file, and counts carried for unchanged facts", "[agreement]") {
  TestRepo repo;
  fs::path dir = repo.root() / "agreement";
  std::map<std::string, std::string> profiles{{"tree-sitter", "ts-1"}, {"clang", "clang-1"}};
  CalibrationSettings settings;
  settings.minSamples = 20;
  Calibration c(dir / "v1", profiles, settings);
  AgreementKey defs = key(NavigationKind::Definition, "tree-sitter scope");
  AgreementKey refs = key(NavigationKind::References, "tree-sitter scope");
  AgreementKey macro{Language::C, NavigationKind::References, "clang exact macro", "clangd"};

  recordMany(c, defs, 19, 0);
  CHECK(!c.verdict(defs));  // 19 samples are no measurement yet
  c.record(defs, true);
  auto v = c.verdict(defs);
  REQUIRE(v);
  // 20 of 20 agree, but the interval reaches down to 83.9 %: not yet evidence of 99 %.
  CHECK_FALSE(v->conclusive);
  CHECK_FALSE(v->fromIndex);
  CHECK(v->agreement == "python definitions from tree-sitter scope (fake_backend.py): 100.0 % ± 16.1 of 20 sampled");
  CHECK(v->reason.find("not yet conclusive against 99.0 %") != std::string::npos);
  // 400 of 400: the interval's lower end passes 99 %.
  recordMany(c, defs, 380, 0);
  v = c.verdict(defs);
  REQUIRE(v);
  CHECK(v->conclusive);
  CHECK(v->fromIndex);
  // One disagreement in 400 leaves it inconclusive again (the lower end is 98.6 %).
  recordMany(c, defs, 0, 1);
  CHECK_FALSE(c.verdict(defs)->conclusive);
  recordMany(c, refs, 15, 15);
  REQUIRE(c.verdict(refs));
  CHECK(c.verdict(refs)->conclusive);  // clearly below
  CHECK(!c.verdict(refs)->fromIndex);
  CHECK(c.verdict(refs)->reason.find("50.0 %") != std::string::npos);
  CHECK(c.verdict(refs)->reason.find("below 99.0 %") != std::string::npos);
  recordMany(c, macro, 30, 0);
  auto [low, high] = c.count(refs)->interval();
  CHECK(low == Approx(0.331).margin(0.002));
  CHECK(high == Approx(0.669).margin(0.002));

  REQUIRE(c.save().isOk());
  auto decoded = Calibration::decode(readText(dir / "v1"));
  REQUIRE(decoded.hasValue());
  CHECK(decoded->size() == 3);
  CHECK(decoded->at(refs).agreed == 15);

  // A later version with new tree-sitter facts keeps the clang count only.
  std::map<std::string, std::string> changed{{"tree-sitter", "ts-2"}, {"clang", "clang-1"}};
  auto next = Calibration::load(dir / "v2", dir / "v1", changed, settings);
  CHECK(!next->count(defs));
  REQUIRE(next->count(macro));
  CHECK(next->count(macro)->sampled == 30);
  // Its own file once saved, which wins over the predecessor's from then on.
  next->record(defs, false);
  REQUIRE(next->save().isOk());
  auto again = Calibration::load(dir / "v2", dir / "v1", changed, settings);
  CHECK(again->count(defs)->sampled == 1);

  // A file that is not an agreement file is no measurement, and says so.
  repo.write("agreement/v3", "nib-agreement 1\npython\tdefinition\tx\ty\t5\t9\tp\n");
  std::string problem;
  auto broken = Calibration::load(dir / "v3", {}, profiles, settings, &problem);
  CHECK(broken->entries().empty());
  CHECK(problem.find("malformed") != std::string::npos);
  CHECK(!Calibration::decode("nib-agreement 1\npython\tdefinition\tcat\tb\t1\t1\tp").hasValue());  // cut short
  CHECK(!Calibration::decode("").hasValue());
}

TEST_CASE("a category sampled a few times takes the verdict of its undecided siblings", "[agreement]") {
  TestRepo repo;
  CalibrationSettings settings;
  settings.minSamples = 20;
  Calibration c(repo.root() / "agreement" / "v1", {{"scip", "scip-1"}, {"tree-sitter", "ts-1"}}, settings);
  auto refs = [](const std::string& category) { return key(NavigationKind::References, category); };
  // Decided alone: 400 of 400 (index) and 10 of 30 (backend); neither joins the pool.
  recordMany(c, refs("scip exact file-local"), 400, 0);
  recordMany(c, refs("scip exact module"), 10, 20);
  // Undecided alone, 5 of 22 together: conclusively below.
  recordMany(c, refs("scip exact function"), 0, 6);
  recordMany(c, refs("scip exact variable"), 1, 7);
  recordMany(c, refs("scip exact class"), 4, 4);
  for (const char* category : {"scip exact function", "scip exact class", "scip exact parameter"}) {
    INFO(category);
    auto v = c.verdict(refs(category));
    REQUIRE(v);
    CHECK(v->conclusive);
    CHECK_FALSE(v->fromIndex);
    CHECK(v->reason.find("python references from the scip categories not decided alone (fake_backend.py): 22.7 % ") !=
          std::string::npos);
  }
  CHECK(c.verdict(refs("scip exact file-local"))->fromIndex);
  CHECK(c.verdict(refs("scip exact module"))->reason.find("from scip exact module") != std::string::npos);
  // Other facts, another request: nothing measured there.
  CHECK(!c.verdict(refs("tree-sitter scope")));
  CHECK(!c.verdict(key(NavigationKind::Definition, "scip exact function")));
  // Undecided siblings that agree well enough to decide nothing leave the rules to decide.
  Calibration good(repo.root() / "agreement" / "v2", {{"scip", "scip-1"}}, settings);
  recordMany(good, refs("scip exact function"), 15, 0);
  recordMany(good, refs("scip exact class"), 15, 0);
  CHECK(!good.verdict(refs("scip exact function")));
  CHECK_FALSE(good.verdict(refs("scip exact parameter")));
  // A category sampled enough to measure on its own keeps its own verdict, undecided as it is,
  // whatever its siblings' pool says; one sampled a few times takes the pool's.
  Calibration mixed(repo.root() / "agreement" / "v3", {{"scip", "scip-1"}}, settings);
  recordMany(mixed, refs("scip exact function"), 300, 0);
  recordMany(mixed, refs("scip exact class"), 2, 8);
  recordMany(mixed, refs("scip exact variable"), 1, 9);
  auto function = mixed.verdict(refs("scip exact function"));
  REQUIRE(function);
  CHECK_FALSE(function->conclusive);
  CHECK(function->reason.find("from scip exact function") != std::string::npos);
  auto small = mixed.verdict(refs("scip exact class"));
  REQUIRE(small);
  CHECK(small->conclusive);
  CHECK_FALSE(small->fromIndex);
}

TEST_CASE("the policy follows the measurements: a disagreeing category goes live, the rest stays static", "[agreement][policy]") {
  TestRepo repo;
  LiveSettings settings;
  settings.root = repo.root();
  settings.commands[Language::Python] = {"python3", std::string(NIB_TESTS_DIR) + "/live/fake_backend.py", "steer",
                                         (repo.root() / ".git" / "events").string()};
  LiveProvider live(settings, [](const std::string&) -> Expected<std::string> { return std::string(); });
  PolicyNavigator navigator(&live);
  Calibration c(repo.root() / "agreement", {{"tree-sitter", "p"}}, CalibrationSettings{});
  recordMany(c, key(NavigationKind::Definition, "tree-sitter scope"), 400, 0);
  recordMany(c, key(NavigationKind::References, "tree-sitter scope"), 150, 50);

  NavigationResult answer;
  answer.source = "tree-sitter";
  answer.confidence = Confidence::Scope;
  answer.locations.push_back(SymbolLocation{.path = "a.py", .name = "alpha"});
  PolicyRequest request;
  request.path = "a.py";
  request.language = Language::Python;
  request.policy = ProviderPolicy::Auto;

  request.kind = NavigationKind::Definition;
  PolicyOutcome d = navigator.decide(request, answer, &c);
  CHECK(!d.wantLive);
  CHECK(d.category == "tree-sitter scope");
  CHECK(d.reason.find("at or above 99.0 %") != std::string::npos);
  CHECK(d.agreement.find("100.0 %") != std::string::npos);

  request.kind = NavigationKind::References;
  PolicyOutcome r = navigator.decide(request, answer, &c);
  CHECK(r.wantLive);
  CHECK(r.askLive);
  CHECK(r.reason.find("75.0 %") != std::string::npos);
  CHECK(r.describe(request).find("category=\"tree-sitter scope\"") != std::string::npos);

  // A measurement not yet conclusive leaves the rules to decide, and is shown with them:
  // tree-sitter's references (30 of 30 in another category) go to the backend.
  answer.facet = "function";
  recordMany(c, key(NavigationKind::References, "tree-sitter scope function"), 30, 0);
  PolicyOutcome early = navigator.decide(request, answer, &c);
  CHECK(early.wantLive);
  CHECK(early.reason.find("not measured to agree yet (measured so far: ") != std::string::npos);
  CHECK(early.agreement.find("100.0 %") != std::string::npos);
  answer.facet.clear();

  // A category nothing measured follows the rules: a compiler's answer from the index.
  answer.source = "scip";
  answer.confidence = Confidence::Exact;
  PolicyOutcome unmeasured = navigator.decide(request, answer, &c);
  CHECK(!unmeasured.wantLive);
  CHECK(unmeasured.reason == "fresh and exact");
  // Unless it is code no compile command builds: the command was guessed, as the backend's is.
  answer.facet = "uncompiled";
  PolicyOutcome guessed = navigator.decide(request, answer, &c);
  CHECK(guessed.wantLive);
  CHECK(guessed.category == "scip exact uncompiled");
  CHECK(guessed.reason == "no compile command builds this code: the index's command was guessed");
  // Or a file whose own parse reported errors: the compiler's recovery decided the answer.
  answer.facet = "parse-errors";
  PolicyOutcome recovered = navigator.decide(request, answer, &c);
  CHECK(recovered.wantLive);
  CHECK(recovered.category == "scip exact parse-errors");
  // Or definitions several source files hold: the backend's index keeps one of them. Their
  // references are all the entity's, as the backend's.
  answer.facet = kSeveralDefinitionsFacet;
  CHECK(!navigator.decide(request, answer, &c).wantLive);
  request.kind = NavigationKind::Definition;
  PolicyOutcome several = navigator.decide(request, answer, &c);
  CHECK(several.wantLive);
  CHECK(several.category == "scip exact several-definitions");
  request.kind = NavigationKind::References;
  // Or references in code the build's units see differently: the backend's index keeps one
  // unit's view of each header.
  answer.facet = kIncluderDependentFacet;
  PolicyOutcome varying = navigator.decide(request, answer, &c);
  CHECK(varying.wantLive);
  CHECK(varying.category == "scip exact includer-dependent");
  answer.facet.clear();
  // A file the index may not match goes live whatever was measured.
  request.partial = true;
  CHECK(navigator.decide(request, answer, &c).wantLive);
}

// kAlpha indexed, sampled at once, six samples a measurement; the fake backend's event file.
static fs::path sampledAlpha(TestRepo& repo) {
  repo.writeAll({{"alpha.py", kAlpha},
                 {".nib.conf", "calibration.idle-ms = 0\ncalibration.min-samples = 6\n"}});
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  return repo.root() / ".git" / "fake-events";
}

TEST_CASE("nib serve measures agreement while idle and its auto policy follows it", "[agreement][live]") {
  SamplingOn sampling;
  TestRepo repo;
  auto events = sampledAlpha(repo);
  int nice = getpriority(PRIO_PROCESS, 0);  // nib serve's, inherited from this process
  std::string ownNice = " nice " + std::to_string(nice) + "\n";
  std::string samplerNice = " nice " + std::to_string(std::min(19, nice + 10)) + "\n";
  {
    LspClient nib(repo.root(), {"--live-timeout-ms", "60000", "--live", firstWordBackend(events)});
    nib.initialize(repo.root());
    // Sampling runs between requests; each request stops the sample in flight.
    json status;
    for (int i = 0; i < 600; ++i) {
      status = nib.request("nib/status", json::object());
      if (sampledIn(status, "definition", "tree-sitter scope") >= 8 &&
          sampledIn(status, "references", "tree-sitter scope") >= 8)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(status.dump(2));
    REQUIRE(sampledIn(status, "definition", "tree-sitter scope") >= 8);
    REQUIRE(sampledIn(status, "references", "tree-sitter scope") >= 8);
    // Each sampled file met a backend of its own, 10 nicer than nib (four positions a start at
    // most); the editor's backend has not been started: the client has asked nothing of it yet.
    std::string started = readText(events);
    INFO(started);
    CHECK(countLines(started, "start") >= 2);
    CHECK(countLines(started, "start") == countLines(started, samplerNice));
    for (const json& a : status["result"]["agreement"]) {
      CHECK(a["backend"] == "fake_backend.py");
      if (a["request"] == "definition") CHECK(a["agreed"] == a["sampled"]);
      if (a["request"] == "references") CHECK(a["agreed"] < a["sampled"]);
    }
    // `alpha` in `beta`'s body: its definition from the index, its references from the backend.
    json d = locate(nib, repo, "alpha.py", 5, 11, "definition");
    INFO(d.dump(2));
    CHECK(d["result"]["provider"] == "static");
    CHECK(d["result"]["category"] == "tree-sitter scope");
    CHECK(d["result"]["agreement"].get<std::string>().find("python definitions from tree-sitter scope (fake_backend.py): 100.0 %") == 0);
    json r = locate(nib, repo, "alpha.py", 5, 11, "references");
    INFO(r.dump(2));
    CHECK(r["result"]["provider"] == "live");
    CHECK(r["result"]["reason"].get<std::string>().find("below 99.0 %") != std::string::npos);
    CHECK(r["result"]["locations"].size() == 1);  // the backend's (wrong) answer, as measured
    // That answer came from the editor's backend, started at nib's own priority.
    CHECK(countLines(readText(events), ownNice) == 1);
    CHECK(nib.shutDown() == 0);
  }
  // The counts outlive the server: in .nib/agreement and in `nib status`.
  NibRun status = runNibIn(repo, "", "status --no-daemon");
  INFO(status.out);
  CHECK(status.out.find("agreement   python definitions from tree-sitter scope (fake_backend.py): 100.0 %") !=
        std::string::npos);
  CHECK(status.out.find("agreement   python references from tree-sitter scope (fake_backend.py): ") !=
        std::string::npos);
  int files = 0;
  for (const auto& entry : fs::directory_iterator(repo.root() / ".nib" / "agreement")) files += entry.is_regular_file();
  CHECK(files == 1);
}

// Every sampled request of `request`, all categories together.
uint64_t sampledAll(const json& status, const std::string& request) {
  uint64_t n = 0;
  for (const json& a : status["result"]["agreement"])
    if (a["request"] == request) n += a["sampled"].get<uint64_t>();
  return n;
}

TEST_CASE("once a category's own count decides it, the sampler asks mostly about the undecided ones", "[agreement][live]") {
  SamplingOn sampling;
  TestRepo repo;
  // The backend's references are wrong but for names used once: six samples decide a references
  // category (below the threshold); its definitions are all right, which no count here brings
  // to a decision (99 % takes hundreds of samples).
  auto events = sampledAlpha(repo);
  LspClient nib(repo.root(), {"--live-timeout-ms", "60000", "--live", firstWordBackend(events)});
  nib.initialize(repo.root());
  auto referencesDecided = [](const json& status) {
    bool any = false;
    for (const json& a : status["result"]["agreement"])
      if (a["request"] == "references") {
        if (a["sampled"].get<uint64_t>() < 6 || a["high"].get<double>() >= 0.99) return false;
        any = true;
      }
    return any;
  };
  auto waitFor = [&](const std::function<bool(const json&)>& done) {
    json status = nib.request("nib/status", json::object());
    for (int i = 0; i < 1200 && !done(status); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      status = nib.request("nib/status", json::object());
    }
    INFO(status.dump(2));
    REQUIRE(done(status));
    return std::make_pair(sampledAll(status, "definition"), sampledAll(status, "references"));
  };
  auto [definitions, references] = waitFor(referencesDecided);
  auto [definitionsAfter, referencesAfter] =
      waitFor([&](const json& status) { return sampledAll(status, "definition") >= definitions + 120; });
  // Asked both requests at every position, as before, both counts would have grown alike (but
  // for a position a poll cut short); now the references are asked one attempt in eight, and
  // at the positions of a references category that appeared since.
  CHECK((referencesAfter - references) * 3 < definitionsAfter - definitions);
  CHECK(nib.shutDown() == 0);
}

TEST_CASE("a request stops the sample in flight: its backend request is cancelled, nothing counted", "[agreement][live]") {
  SamplingOn sampling;
  TestRepo repo;
  repo.writeAll({{"alpha.py", kAlpha}, {".nib.conf", "calibration.idle-ms = 0\n"}});
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  auto events = repo.root() / ".git" / "fake-events";
  {
    std::ofstream(events.string() + ".steer") << "hang\n";
  }
  LspClient nib(repo.root(), {"--live-timeout-ms", "600000", "--live", firstWordBackend(events)});
  nib.initialize(repo.root());
  // After the client's last message, the sampler's question hangs in the backend ...
  nib.request("nib/status", json::object());
  auto hung = [&] {
    std::string e = readText(events);
    return countLines(e, "request") > countLines(e, "cancel");
  };
  for (int i = 0; i < 400 && !hung(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  REQUIRE(hung());
  int cancels = countLines(readText(events), "cancel");
  // ... until the client asks something: the sample stops and its request is cancelled.
  json status = nib.request("nib/status", json::object());
  for (int i = 0; i < 400 && countLines(readText(events), "cancel") == cancels; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  CHECK(countLines(readText(events), "cancel") == cancels + 1);
  CHECK(status["result"]["agreement"].empty());
  CHECK(nib.shutDown() == 0);
}

}  // namespace nib::test
