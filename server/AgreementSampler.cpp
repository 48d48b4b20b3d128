#include "server/AgreementSampler.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

#include "server/Engine.h"
#include "support/CodeIdentifiers.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "support/Log.h"

namespace nib {
namespace {

constexpr uint64_t kSaveEvery = 10;  // samples between saves of the counts
constexpr auto kAfterFailure = std::chrono::seconds(10);  // a backend that failed is left alone this long
// Positions asked of one started backend, all in its one file: a start (clangd loading its index,
// tsserver its project) costs more than a question, and more positions of one file would make
// the samples less independent than the counts' interval assumes.
constexpr size_t kPositionsPerFile = 4;
// Positions drawn per file when looking for undecided categories (the index alone is asked about
// them: a few milliseconds), and how often an attempt asks about uniform positions instead.
constexpr size_t kCandidatesPerFile = 16;
constexpr int kRecheckOneIn = 8;
// After a file with no undecided category (no backend started, nothing counted against the
// hour's cap): the rest before the next attempt, which bounds what such attempts cost.
constexpr auto kAfterNothingUndecided = std::chrono::milliseconds(100);
constexpr int kNiceness = 10;  // added to nib's own, for the sampler's thread and its backends
// A backend whose first index takes longer is stopped; what it wrote of its index (clangd's
// shards under .nib/clangd) is there for the next one.
constexpr auto kReadyTimeout = std::chrono::minutes(2);
constexpr auto kReadyQuiet = std::chrono::milliseconds(300);

int64_t ticksNow() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

std::string siteText(const std::tuple<std::string, uint32_t, uint32_t>& s) {
  return std::get<0>(s) + ":" + std::to_string(std::get<1>(s) + 1) + ":" + std::to_string(std::get<2>(s) + 1);
}

// "agreement: c references at a.c:3:5 (clang exact macro): index only [b.c:1:2 …] (1), clangd
// only [] (0)": what a disagreeing sample looked like, for NIB_LOG=debug.
std::string describeDisagreement(const AgreementKey& key, const std::string& path, Position at, const AnswerSites& mine,
                                 const AnswerSites& theirs) {
  auto only = [](const AnswerSites& a, const AnswerSites& b) {
    std::string out;
    size_t n = 0;
    for (const auto& s : a) {
      if (b.count(s)) continue;
      if (n++ < 3) out += (out.empty() ? "" : " ") + siteText(s);
    }
    return "[" + out + (n > 3 ? " …" : "") + "] (" + std::to_string(n) + ")";
  };
  return "agreement: " + std::string(languageName(key.language)) + " " + navigationKindName(key.kind) + " at " +
         siteText({path, at.line, at.column}) + " (" + key.category + "): index only " + only(mine, theirs) + ", " +
         key.backend + " only " + only(theirs, mine);
}

}  // namespace

struct AgreementSampler::Target {
  std::string path;
  Language language = Language::Unknown;
  std::string blob;
  std::string version;
};

AgreementSampler::AgreementSampler(LiveSettings live, WithEngine withEngine, std::function<bool()> busy,
                                   SamplerSettings settings, std::function<void(const std::string&)> log)
    : live_(std::move(live)),
      withEngine_(std::move(withEngine)),
      busy_(std::move(busy)),
      settings_(settings),
      log_(std::move(log)),
      rng_(settings.seed ? settings.seed : std::random_device{}()) {
  lastActivity_ = ticksNow();
}

AgreementSampler::~AgreementSampler() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  saveCounts(true);
}

void AgreementSampler::start() {
  if (settings_.perHour == 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void AgreementSampler::noteActivity() {
  ++activity_;
  lastActivity_ = ticksNow();
}

void AgreementSampler::run() {
  // Lower this thread's priority only (Linux schedules threads apart), and with it that of the
  // backends it starts: a process inherits the nice value of the thread that spawned it.
  errno = 0;
  int own = getpriority(PRIO_PROCESS, 0);
  if (errno == 0)
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), std::min(19, own + kNiceness));
  while (waitForQuiet()) {
    Attempt attempt = sampleOnce();
    if (!attempt.costly) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, kAfterNothingUndecided, [&] { return stopping_; });
      continue;
    }
    // A sample that counted nothing (a failure, a message) still counts against the hour's cap,
    // so that a backend that cannot start is not started again and again.
    size_t counted = std::max<size_t>(attempt.counted, 1);
    for (size_t i = 0; i < counted; ++i) recent_.push_back(std::chrono::steady_clock::now());
  }
}

bool AgreementSampler::cancelledSince(uint64_t activity) {
  std::lock_guard<std::mutex> g(mutex_);
  return stopping_ || activity_ != activity;
}

bool AgreementSampler::waitForQuiet() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    auto now = std::chrono::steady_clock::now();
    while (!recent_.empty() && now - recent_.front() > std::chrono::hours(1)) recent_.pop_front();
    auto wait = std::chrono::milliseconds(200);
    if (recent_.size() >= settings_.perHour) {
      wait = std::chrono::duration_cast<std::chrono::milliseconds>(recent_.front() + std::chrono::hours(1) - now);
    } else {
      auto quiet = now - std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(lastActivity_.load()));
      if (quiet >= settings_.idle && !busy_()) return true;
      if (quiet < settings_.idle)
        wait = std::max(std::chrono::milliseconds(1),
                        std::chrono::duration_cast<std::chrono::milliseconds>(settings_.idle - quiet));
    }
    wake_.wait_for(lock, std::max(wait, std::chrono::milliseconds(1)));
  }
  return false;
}

std::optional<AgreementSampler::Target> AgreementSampler::pickTarget() {
  std::optional<Target> target;
  withEngine_([&](Engine& engine) {
    // The files with a backend, listed once per index version.
    if (filesVersion_ != engine.manifest().versionId) {
      files_.clear();
      engine.forEachFile([&](const FileRecord& f) {
        if (live_.commands.count(f.language)) files_.push_back(f);
        return true;
      });
      filesVersion_ = engine.manifest().versionId;
    }
    if (files_.empty()) return;
    const FileRecord& f = files_[std::uniform_int_distribution<size_t>(0, files_.size() - 1)(rng_)];
    // A file open in the editor shows the editor's text, which the index never saw.
    if (engine.isOpen(f.path)) return;
    target = Target{f.path, f.language, f.blobOid, engine.manifest().versionId};
  });
  return target;
}

AgreementSampler::Attempt AgreementSampler::sampleOnce() {
  auto target = pickTarget();
  if (!target) return {};
  Expected<std::string> text = Status(ErrorCode::NotFound, "");
  withEngine_([&](Engine& engine) { text = readWorktreeFile(engine.root(), target->path); });
  // The index is measured on the files it holds as they are: a changed file is not sampled.
  if (!text || gitlite::blobId(*text) != target->blob) return {};
  const bool recheck = std::uniform_int_distribution<int>(0, kRecheckOneIn - 1)(rng_) == 0;
  std::vector<Pick> picks = pickPositions(*target, *text, recheck);
  if (picks.empty()) return {0, recheck};
  LineTable lines(*text);

  // Started from this thread, the backend inherits its nice value.
  std::filesystem::path root = live_.root;
  LiveProvider live(live_, [root](const std::string& path) { return readWorktreeFile(root, path); },
                    log_);
  // The first question opens the file, which makes clangd load its compilation database and
  // start its index; the answers count once the backend is ready.
  uint64_t before = activity_;
  auto cancelled = [&] { return cancelledSince(before); };
  (void)live.definition(target->path, target->language, lines.positionOf(picks.front().offset), cancelled);
  Status ready = live.awaitReady(target->language, kReadyQuiet, kReadyTimeout, cancelled);
  if (!ready.isOk()) {
    if (ready.code() != ErrorCode::Cancelled) pauseAfterFailure(ready.message());
    return {};
  }
  Attempt attempt;
  for (const Pick& pick : picks) {
    if (!sampleAt(live, *target, pick, lines.positionOf(pick.offset))) break;
    ++attempt.counted;
  }
  saveCounts(false);
  return attempt;
}

std::vector<AgreementSampler::Pick> AgreementSampler::pickPositions(const Target& target, const std::string& text,
                                                                    bool recheck) {
  std::vector<uint32_t> starts = codeIdentifierStarts(text, target.language);
  std::vector<uint32_t> offsets;
  std::sample(starts.begin(), starts.end(), std::back_inserter(offsets), recheck ? kPositionsPerFile : kCandidatesPerFile,
              rng_);
  std::shuffle(offsets.begin(), offsets.end(), rng_);
  std::vector<Pick> picks;
  if (recheck) {
    for (uint32_t offset : offsets) picks.push_back({offset, true, true});
    return picks;
  }
  LineTable lines(text);
  const std::string backend = backendName(live_.commands.at(target.language));
  const uint64_t before = activity_;
  for (uint32_t offset : offsets) {
    if (picks.size() == kPositionsPerFile) break;
    Pick pick{offset, false, false};
    for (NavigationKind kind : {NavigationKind::Definition, NavigationKind::References}) {
      // One index answer per hold of the engine, as sampleAt's.
      bool undecided = false;
      bool asked = withEngine_([&](Engine& engine) {
        if (engine.manifest().versionId != target.version) return;
        auto calibration = engine.calibration();
        auto request = engine.navigationRequest(kind, target.path, offset, lines.positionOf(offset).line, true,
                                                ProviderPolicy::Static);
        if (!calibration || !request) return;
        AgreementKey key{target.language, kind, answerCategory(engine.indexAnswer(*request)), backend};
        undecided = !calibration->decidedAlone(key);
      });
      if (!asked || cancelledSince(before)) return {};
      (kind == NavigationKind::Definition ? pick.definition : pick.references) = undecided;
    }
    if (pick.definition || pick.references) picks.push_back(pick);
  }
  return picks;
}

void AgreementSampler::pauseAfterFailure(const std::string& message) {
  // Not a disagreement: the backend could not answer. Said once per distinct failure.
  if (message != lastFailure_) log_("agreement sampling: " + message);
  lastFailure_ = message;
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait_for(lock, kAfterFailure, [&] { return stopping_; });
}

bool AgreementSampler::sampleAt(LiveProvider& live, const Target& target, const Pick& pick, Position position) {
  std::string backend = backendName(live_.commands.at(target.language));
  const uint32_t offset = pick.offset;
  for (NavigationKind kind : {NavigationKind::Definition, NavigationKind::References}) {
    if (!(kind == NavigationKind::Definition ? pick.definition : pick.references)) continue;
    uint64_t before = activity_;
    Expected<NavigationResult> index = Status(ErrorCode::Internal, "not asked");
    std::shared_ptr<Calibration> calibration;
    bool asked = withEngine_([&](Engine& engine) {
      if (engine.manifest().versionId != target.version) return;
      auto request = engine.navigationRequest(kind, target.path, offset, position.line, true, ProviderPolicy::Static);
      if (!request) return;
      index = engine.indexAnswer(*request);
      calibration = engine.calibration();
    });
    if (!asked || !calibration) return false;
    auto cancelled = [&] { return cancelledSince(before); };
    auto answer = kind == NavigationKind::References ? live.references(target.path, target.language, position, true, cancelled)
                                                     : live.definition(target.path, target.language, position, cancelled);
    if (cancelled()) return false;  // a request came: this position is dropped, not counted
    if (!answer) {
      pauseAfterFailure(answer.status().message());
      return false;
    }
    // A backend still indexing is not yet the answer the index is measured against.
    if (answer->indexing) return false;
    if (calibration_ != calibration) {
      saveCounts(true);  // the previous version's counts, before counting for the new one
      calibration_ = calibration;
    }
    const bool outside = kind != NavigationKind::References;
    AnswerSites mine = answerSites(index, outside), theirs = answerSites(*answer, outside);
    AgreementKey key{target.language, kind, answerCategory(index), backend};
    calibration->record(key, mine == theirs);
    if (mine != theirs && logLevel() >= LogLevel::Debug) logDebug(describeDisagreement(key, target.path, position, mine, theirs));
    ++unsaved_;
  }
  return true;
}

void AgreementSampler::saveCounts(bool force) {
  if (!calibration_ || unsaved_ == 0 || (!force && unsaved_ < kSaveEvery)) return;
  Status s = calibration_->save();
  if (!s.isOk()) log_("agreement counts not saved: " + s.message());
  unsaved_ = 0;
}

}  // namespace nib
