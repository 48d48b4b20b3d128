// The idle sampler of `nib serve`: while no request is in flight, it clicks where a user might —
// an identifier at a random place in a random file (support/CodeIdentifiers: from the text,
// never from the index) — asks the index and the live backend the same definition and
// references questions, and counts per category of the index's answer whether the two agree
// (providers/Agreement). The `auto` policy then answers a category from the index only when
// its measured agreement reaches the threshold.
//
// The backend it asks is its own, started afresh for each sampled file and stopped after it, so
// that every sample meets the backend as a fresh client would: with its index and the one file
// open. A backend kept for thousands of samples remembers the files it opened before (clangd
// keeps their references, files no compile command builds included), and its answers drift
// from any one editor's; the editor's own backend is never asked, so its requests never queue
// behind the sampler's and its state is the user's alone.
//
// Where the samples go: seven times in eight the sampler looks for the categories whose own
// count does not decide them yet — it draws candidate positions the same way, asks the index
// alone which category each falls in, and asks the backend only the requests of undecided
// categories (a file with none costs no backend start) — and one time in eight it asks both
// requests at positions drawn as before, whatever their category, so that a decided category's
// count keeps up with the code. Either way a position of a category is drawn as a user clicks,
// so each category's count stays a sample of its own answers; only how often each category is
// sampled changes (a category decided at 300 samples no longer takes most of the next 300).
//
// Bounded so that an editor never feels it: one thread at low priority (10 nicer than nib), its
// backend as nice, asked one request at a time, at most `perHour` positions an hour
// (kPositionsPerFile from each started backend), only after `idle` of quiet; a message from the
// client stops the sample in flight at once (its live request is cancelled) and is never kept
// waiting longer than one index answer under the engine lock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "providers/Agreement.h"
#include "providers/LiveProvider.h"
#include "views/CommitView.h"

namespace nib {

class Engine;

struct SamplerSettings {
  uint32_t perHour = 240;                // positions an hour at most; 0 turns sampling off
  std::chrono::milliseconds idle{2000};  // quiet before a sample
  uint64_t seed = 0;                     // 0: a random seed
};

class AgreementSampler {
 public:
  // Runs `f` with the server's engine locked and ready; false when there is no engine now.
  using WithEngine = std::function<bool(const std::function<void(Engine&)>& f)>;
  // `live`: the backends' settings (the same commands as the editor's backends).
  AgreementSampler(LiveSettings live, WithEngine withEngine, std::function<bool()> busy, SamplerSettings settings,
                   std::function<void(const std::string&)> log);
  ~AgreementSampler();  // stops the thread and saves the counts

  void start();
  // Every message from the client: the sample in flight stops, and the quiet starts again.
  void noteActivity();

 private:
  struct Target;
  // A position to ask the backend about, and which requests (definition, references).
  struct Pick {
    uint32_t offset = 0;
    bool definition = true, references = true;
  };
  // What one attempt did: positions counted, and whether it cost anything (a file read in vain,
  // a backend started) — an attempt that found no undecided category in its file did not.
  struct Attempt {
    size_t counted = 0;
    bool costly = true;
  };
  void run();
  bool waitForQuiet();  // false when stopping
  // Up to kPositionsPerFile positions in a random file, asked of a backend started for them.
  Attempt sampleOnce();
  // The positions of `target` to ask about: uniform ones with both requests (`recheck`), else
  // candidates kept for their requests whose categories are undecided. Empty when a message
  // arrived, the version changed, or no candidate falls in an undecided category.
  std::vector<Pick> pickPositions(const Target& target, const std::string& text, bool recheck);
  // The requests of `pick`, counted unless a message arrived meanwhile; false when the file's
  // sample should stop (a message, a failure, a new index version).
  bool sampleAt(LiveProvider& live, const Target& target, const Pick& pick, Position position);
  bool cancelledSince(uint64_t activity);
  void pauseAfterFailure(const std::string& message);
  std::optional<Target> pickTarget();
  void saveCounts(bool force);

  LiveSettings live_;
  WithEngine withEngine_;
  std::function<bool()> busy_;
  SamplerSettings settings_;
  std::function<void(const std::string&)> log_;
  std::mt19937_64 rng_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  std::atomic<uint64_t> activity_{0};
  std::atomic<int64_t> lastActivity_{0};  // steady_clock ticks
  std::deque<std::chrono::steady_clock::time_point> recent_;  // samples of the last hour
  std::shared_ptr<Calibration> calibration_;                  // the counts being written
  std::vector<FileRecord> files_;  // the indexed files with a backend, of version filesVersion_
  std::string filesVersion_;
  uint64_t unsaved_ = 0;
  std::string lastFailure_;
};

}  // namespace nib
