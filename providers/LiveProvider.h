// The live provider: navigation answered by real language servers (clangd, pylsp,
// typescript-language-server) that nib starts and owns, one per command, lazily on the first
// request for one of its languages. It speaks nib's vocabulary (repository paths, byte
// positions) to its callers and LSP (URIs, UTF-16 positions) to the backends, through
// protocol/LspBackend.
//
// Documents: the editor's open buffers are recorded here and sent to a backend (didOpen /
// didChange, full text) right before its next request, so a backend always answers about the
// text the editor shows. A request on a file the editor has not opened opens it from disk (and
// keeps it open, least recently used first out, so later requests are warm).
//
// Faults: a backend that cannot start, dies or does not answer in time yields an error at once
// (Unavailable, TimedOut) and never blocks past the request's timeout; the caller answers from
// the index. A dead backend is started again on a later request (at most kMaxRestarts a minute);
// one that keeps timing out is restarted. Each distinct failure is logged once.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/LspBackend.h"
#include "protocol/PositionEncoder.h"
#include "providers/Navigation.h"
#include "support/Language.h"
#include "support/Status.h"
#include "support/Text.h"

namespace nib {

// Which provider answers a navigation request.
enum class ProviderPolicy {
  Auto,     // static when the file is fresh and the static answer is exact for its language
  Static,   // the index only
  Live,     // the backend (the index when the backend fails, labelled)
  Compare,  // as auto, and both are computed and their difference logged
};
Expected<ProviderPolicy> parseProviderPolicy(std::string_view name);
const char* providerPolicyName(ProviderPolicy policy);

// Whether a static answer can be exact for the language: C++ needs overload and template
// resolution the tree-sitter facts do not have (they stay "exact" only in name scoping).
bool staticCanBeExact(Language language);

struct LiveSettings {
  std::filesystem::path root;
  // argv per language; a language without one has no live backend.
  std::map<Language, std::vector<std::string>> commands;
  std::chrono::milliseconds timeout{5000};       // per request
  std::chrono::milliseconds startTimeout{20000};  // the initialize handshake
  std::filesystem::path stderrPath;               // the backends' stderr ("" = discarded)
  size_t maxOpenFiles = 200;                      // files nib opened itself, per backend
};

// The default commands (DESIGN.md §4, docs/live-backends.md): clangd (here without its
// background index: it would write .cache/clangd next to the compilation database; LiveSetup
// gives it one under .nib when there is a database), /usr/bin/pylsp, and
// typescript-language-server from PATH or the pinned copy under `backendsBin`.
std::map<Language, std::vector<std::string>> defaultLiveCommands(const std::filesystem::path& backendsBin);
// Whether a backend command builds a background index it reports as progress (clangd's
// `--background-index`): its answers are partial until that has finished once.
bool buildsIndex(const std::vector<std::string>& argv);
// "c=clangd --log=error" → (C, argv); the language by nib's name, the command split on spaces.
// "python=pyright" is pyright's language server (`pyright-langserver --stdio`, from PATH or the
// pinned copy under `backendsBin`).
Status parseLiveCommand(std::string_view spec, std::map<Language, std::vector<std::string>>* commands,
                        const std::filesystem::path& backendsBin = {});
// LSP language identifiers (didOpen's languageId).
const char* lspLanguageId(Language language);

// Answers compared as sets of (repository path, 0-based start line): the normalization the
// compare policy and the benchmark share.
using LineKeys = std::set<std::pair<std::string, uint32_t>>;
LineKeys linesOnlyIn(const LineKeys& a, const LineKeys& b);  // a \ b
// "path:line path:line …" with 1-based lines, at most `limit` of them; `empty` when none.
std::string describeLines(const LineKeys& keys, size_t limit, const std::string& empty);

struct LiveLocation {
  std::string path;       // repository path, or the absolute path when outside the workspace
  bool inWorkspace = true;
  ByteRange range;        // byte columns (outside the workspace: the backend's UTF-16 columns)
  lsp::Range wire;        // the range as the backend sent it (UTF-16)
  std::string uri;        // as the backend sent it
};

struct LiveAnswer {
  std::vector<LiveLocation> locations;
  std::string backend;  // the server's name (serverInfo) or command
  bool cold = false;    // the file was not open in the backend before this request
  bool started = false; // the backend was started for this request
  // The backend reported work in progress around this answer (clangd's background index,
  // tsserver loading a project): files it has not read yet may be missing from its references.
  bool indexing = false;
  // References the policy left out of the answer: sites in files the backend does not keep fresh
  // (PolicyRequest::unbuiltFiles).
  size_t leftOut = 0;
  // References the index gave for files the answer listed none of, added while the backend was
  // still indexing (LiveProvider::addIndexReferences).
  size_t fromIndex = 0;
  bool indexMerged = false;  // the index's references were merged in (none may have been missing)
  double milliseconds = 0;
};

class LiveProvider {
 public:
  // `readFile` reads a repository file as it is on disk (for files the editor has not opened);
  // `log` receives each distinct failure once.
  LiveProvider(LiveSettings settings, std::function<Expected<std::string>(const std::string& path)> readFile,
               std::function<void(const std::string&)> log = {});
  ~LiveProvider();

  bool hasBackend(Language language) const { return settings_.commands.count(language) > 0; }
  const LiveSettings& settings() const { return settings_; }

  // Editor buffers (repository paths). Cheap: recorded, and sent before the next request.
  void openBuffer(const std::string& path, Language language, const std::string& text);
  void updateBuffer(const std::string& path, const std::string& text);
  void closeBuffer(const std::string& path);

  // Definition and references at a byte position of `path`. Errors: Unsupported (no backend
  // for the language), Unavailable, TimedOut, Cancelled, or the backend's own error.
  Expected<LiveAnswer> definition(const std::string& path, Language language, Position position,
                                  const std::function<bool()>& cancelled = {});
  Expected<LiveAnswer> references(const std::string& path, Language language, Position position,
                                  bool includeDeclaration, const std::function<bool()>& cancelled = {});
  // Any navigation request by kind (definition and references as above; typeDefinition and
  // implementation are Unsupported when the backend did not announce them at initialize).
  Expected<LiveAnswer> locate(NavigationKind kind, const std::string& path, Language language, Position position,
                              bool includeDeclaration, const std::function<bool()>& cancelled = {});

  // Starts the language's backend now (the benchmark measures start-up apart from requests).
  Status warmUp(Language language);
  // Waits until the language's backend reports no work in progress (clangd's background index).
  bool waitForQuiet(Language language, std::chrono::milliseconds quiet, std::chrono::milliseconds timeout);
  // Starts the language's backend and waits until it is ready to answer for the whole
  // workspace: an indexing backend's first index has ended (clangd announces its index only after
  // loading the compilation database) and no work has been in progress for `quiet`. Errors:
  // the start's, TimedOut, Cancelled (when `cancelled` says so; checked every 100 ms).
  Status awaitReady(Language language, std::chrono::milliseconds quiet, std::chrono::milliseconds timeout,
                    const std::function<bool()>& cancelled = {});
  uint64_t peakRssKiB() const;  // over every running backend
  // Whether a file is open in its backend (the benchmark's warm/cold split).
  bool isOpen(const std::string& path, Language language);
  // Adds the index's references (`index`) in the files `answer` lists none of, in the backend's
  // terms (UTF-16 wire ranges from the files' text): what a backend still loading its index
  // (LiveAnswer::indexing) cannot list yet, as clangd itself, once loaded, merges its open files'
  // references with its background index's. The number added.
  size_t addIndexReferences(LiveAnswer& answer, const std::vector<SymbolLocation>& index);

  static constexpr int kMaxRestarts = 3;  // per minute and backend
  static constexpr int kTimeoutsBeforeRestart = 2;

 private:
  struct Document {
    std::string text;
    Language language = Language::Unknown;
    int version = 1;        // the version the backend has (or will get)
    bool fromEditor = false;
    bool everOpened = false;  // didOpen was sent to the running process
    bool sent = false;      // the backend has this text
    uint64_t lastUse = 0;
  };
  struct Backend {
    std::string key;  // the command line
    std::vector<std::string> argv;
    std::shared_ptr<std::mutex> startMutex = std::make_shared<std::mutex>();  // one start at a time
    std::shared_ptr<LspBackend> process;
    std::map<std::string, Document> documents;  // by repository path
    std::vector<std::chrono::steady_clock::time_point> starts;
    std::chrono::steady_clock::time_point failedAt{};
    std::string failure;  // why the last start failed
    int timeouts = 0;     // consecutive
  };
  Backend* backendFor(Language language);  // with mutex_ held
  void reconcileEditor(Backend& b);        // with mutex_ held
  Expected<Backend*> lookup(Language language);  // takes mutex_; Unsupported without a backend
  Expected<std::shared_ptr<LspBackend>> ensureStarted(Backend& b, bool* started);  // with mutex_ held
  Expected<LiveAnswer> request(const std::string& method, const std::string& path, Language language, Position position,
                               bool includeDeclaration, const std::function<bool()>& cancelled);
  void logOnce(const std::string& message);
  struct CachedText {
    std::string text;
    std::optional<PositionEncoder> encoder;  // views `text`
  };
  using TextCache = std::map<std::string, std::unique_ptr<CachedText>>;
  Expected<LiveLocation> mapLocation(const BackendLocation& l, TextCache& texts);
  const CachedText& cachedText(const std::string& path, TextCache& texts);

  LiveSettings settings_;
  std::function<Expected<std::string>(const std::string&)> readFile_;
  std::function<void(const std::string&)> log_;
  mutable std::mutex mutex_;  // guards backends_, useClock_ (held across document writes)
  std::mutex editorMutex_;    // guards editor_ only; never held across I/O
  std::map<std::string, Backend> backends_;  // by command line
  std::map<std::string, std::pair<Language, std::string>> editor_;  // open buffers
  std::mutex logMutex_;
  std::vector<std::string> logged_;
  uint64_t useClock_ = 0;
};

}  // namespace nib
