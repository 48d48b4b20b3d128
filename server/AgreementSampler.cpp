#include "server/AgreementSampler.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>


#include "server/Engine.h"
#include "support/CodeIdentifiers.h"
#include "support/FileIo.h"
#include "support/GitLite.h"

namespace nib {
namespace {

constexpr uint64_t kSaveEvery = 10;  // samples between saves of the counts
constexpr auto kAfterFailure = std::chrono::seconds(10);  // a backend that failed is left alone this long

int64_t ticksNow() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

}  // namespace

struct AgreementSampler::Target {
  std::string path;
  Language language = Language::Unknown;
  std::string blob;
  std::string version;
};

AgreementSampler::AgreementSampler(LiveProvider& live, WithEngine withEngine, std::function<bool()> busy,
                                   SamplerSettings settings, std::function<void(const std::string&)> log)
    : live_(live),
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
  // Lower this thread's priority only (Linux schedules threads apart): the requests it waits
  // for run in the backend, which is asked one question at a time.
  setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  while (waitForQuiet()) {
    sampleOnce();
    recent_.push_back(std::chrono::steady_clock::now());
  }
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
        if (live_.hasBackend(f.language)) files_.push_back(f);
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

void AgreementSampler::sampleOnce() {
  auto target = pickTarget();
  if (!target) return;
  Expected<std::string> text = Status(ErrorCode::NotFound, "");
  withEngine_([&](Engine& engine) { text = readWorktreeFile(engine.root(), target->path); });
  // The index is measured on the files it holds as they are: a changed file is not sampled.
  if (!text || gitlite::blobId(*text) != target->blob) return;
  std::vector<uint32_t> starts = codeIdentifierStarts(*text, target->language);
  if (starts.empty()) return;
  uint32_t offset = starts[std::uniform_int_distribution<size_t>(0, starts.size() - 1)(rng_)];
  Position position = LineTable(*text).positionOf(offset);
  sampleAt(*target, offset, position);
  live_.release(target->path, target->language);
  saveCounts(false);
}

void AgreementSampler::sampleAt(const Target& target, uint32_t offset, Position position) {
  std::string backend = backendName(live_.settings().commands.at(target.language));
  for (NavigationKind kind : {NavigationKind::Definition, NavigationKind::References}) {
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
    if (!asked || !calibration) return;
    auto cancelled = [&] {
      std::lock_guard<std::mutex> g(mutex_);
      return stopping_ || activity_ != before;
    };
    auto live = kind == NavigationKind::References ? live_.references(target.path, target.language, position, true, cancelled)
                                                   : live_.definition(target.path, target.language, position, cancelled);
    if (cancelled()) return;  // a request came: this position is dropped, not counted
    if (!live) {
      // Not a disagreement: the backend could not answer. Said once per distinct failure.
      if (live.status().message() != lastFailure_) log_("agreement sampling: " + live.status().message());
      lastFailure_ = live.status().message();
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, kAfterFailure, [&] { return stopping_; });
      return;
    }
    // A backend still indexing is not yet the answer the index is measured against.
    if (live->indexing) return;
    if (calibration_ != calibration) {
      saveCounts(true);  // the previous version's counts, before counting for the new one
      calibration_ = calibration;
    }
    calibration->record({target.language, kind, answerCategory(index), backend}, answerSites(index) == answerSites(*live));
    ++unsaved_;
  }
}

void AgreementSampler::saveCounts(bool force) {
  if (!calibration_ || unsaved_ == 0 || (!force && unsaved_ < kSaveEvery)) return;
  Status s = calibration_->save();
  if (!s.isOk()) log_("agreement counts not saved: " + s.message());
  unsaved_ = 0;
}

}  // namespace nib
