#include "protocol/LspBackend.h"

#include "support/FileIo.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "protocol/MessageFraming.h"
#include "protocol/Uri.h"
#include "support/FileIo.h"

extern char** environ;

namespace nib {
namespace {
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

lsp::Range rangeOf(const json& r) {
  lsp::Range out;
  out.start.line = r.at("start").at("line").get<uint32_t>();
  out.start.character = r.at("start").at("character").get<uint32_t>();
  out.end.line = r.at("end").at("line").get<uint32_t>();
  out.end.character = r.at("end").at("character").get<uint32_t>();
  return out;
}

// A definition result may be a Location, a Location[] or a LocationLink[]; references are a
// Location[]. Anything else is the backend's mistake, reported as such.
Expected<std::vector<BackendLocation>> locationsOf(const std::string& text) {
  std::vector<BackendLocation> out;
  try {
    json v = json::parse(text);
    if (v.is_null()) return out;
    if (v.is_object()) v = json::array({v});
    if (!v.is_array()) return Status(ErrorCode::Corrupt, "the backend answered neither a location nor a list");
    for (const json& l : v) {
      if (l.contains("targetUri"))
        out.push_back({l.at("targetUri").get<std::string>(),
                       rangeOf(l.contains("targetSelectionRange") ? l.at("targetSelectionRange") : l.at("targetRange"))});
      else
        out.push_back({l.at("uri").get<std::string>(), rangeOf(l.at("range"))});
    }
  } catch (const std::exception& e) {
    return Status(ErrorCode::Corrupt, std::string("malformed locations from the backend: ") + e.what());
  }
  return out;
}

// Reads one field of /proc/<pid>/status in KiB.
uint64_t statusKiB(pid_t pid, const char* field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') return std::strtoull(line.c_str() + n + 1, nullptr, 10);
  return 0;
}

}  // namespace

std::string typescriptInitializationOptions(const std::string& tsserverPath) {
  nlohmann::json init = {{"tsserver", {{"useSyntaxServer", "never"}, {"path", tsserverPath}}},
                         {"disableAutomaticTypingAcquisition", true}};
  return init.dump();
}

Expected<std::unique_ptr<LspBackend>> LspBackend::start(const BackendOptions& options) {
  if (options.argv.empty()) return Status(ErrorCode::InvalidArgument, "empty backend command");
  // Looked up here, on the absolute entries of PATH: posix_spawnp would search after the
  // change to the worktree, where a relative entry would find the repository's own program.
  auto program = findExecutable(options.argv[0]);
  if (!program)
    return Status(ErrorCode::Unavailable, "cannot start `" + options.argv[0] + "`: not found on PATH (its absolute entries)");
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Status(ErrorCode::IoError, std::string("pipe: ") + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return Status(ErrorCode::IoError, std::string("pipe: ") + std::strerror(errno));
  }
  // A backend that exits while we write must not kill nib with SIGPIPE: the write fails instead.
  ::signal(SIGPIPE, SIG_IGN);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::string errPath = options.stderrPath.empty() ? "/dev/null" : options.stderrPath.string();
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (!options.root.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.root.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that the servers a backend starts (tsserver under
  // typescript-language-server) are stopped with it; SIGPIPE back to its default.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const std::string& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> envStrings;
  // The backend's own lookups (tsserver's node, a compiler clangd asks) get the same PATH.
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PATH=", 5) != 0) envStrings.emplace_back(*e);
  envStrings.push_back("PATH=" + absoluteSearchPath());
  for (const auto& [k, v] : options.environment) envStrings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, program->c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    return Status(ErrorCode::Unavailable, "cannot start `" + options.argv[0] + "`: " + std::strerror(rc));
  }

  std::unique_ptr<LspBackend> b(new LspBackend());
  b->pid_ = pid;
  b->toBackend_ = in[1];
  b->fromBackend_ = out[0];
  fcntl(b->toBackend_, F_SETFL, fcntl(b->toBackend_, F_GETFL) | O_NONBLOCK);
  b->alive_ = true;
  b->reader_ = std::thread([raw = b.get()] { raw->readLoop(); });

  std::string rootUri = pathToUri(options.root.string());
  json params = {
      {"processId", static_cast<int>(getpid())},
      {"rootUri", rootUri},
      {"rootPath", options.root.string()},
      {"workspaceFolders", json::array({{{"uri", rootUri}, {"name", options.root.filename().string()}}})},
      {"clientInfo", {{"name", "nib"}}},
      {"capabilities",
       {{"general", {{"positionEncodings", json::array({"utf-16"})}}},
        {"window", {{"workDoneProgress", true}}},
        {"workspace", {{"configuration", true}, {"workspaceFolders", true}}},
        {"textDocument",
         {{"synchronization", {{"didSave", false}, {"dynamicRegistration", false}}},
          {"definition", {{"linkSupport", false}}},
          {"typeDefinition", {{"linkSupport", false}}},
          {"implementation", {{"linkSupport", false}}},
          {"references", json::object()}}}}},
  };
  if (!options.initializationOptions.empty()) {
    json init = json::parse(options.initializationOptions, nullptr, false);
    if (init.is_discarded()) return Status(ErrorCode::InvalidArgument, "initializationOptions are not JSON");
    params["initializationOptions"] = init;
  }
  auto result = b->call("initialize", params.dump(), options.startTimeout, {});
  if (!result) {
    std::string why = result.status().message();
    return Status(result.status().code() == ErrorCode::TimedOut ? ErrorCode::TimedOut : ErrorCode::Unavailable,
                  "`" + options.argv[0] + "` did not initialize: " + why);
  }
  try {
    json r = json::parse(*result);
    if (r.contains("serverInfo") && r["serverInfo"].contains("name"))
      b->serverName_ = r["serverInfo"]["name"].get<std::string>();
    // A provider is announced as true or as an options object; absent or false, it is not.
    if (r.contains("capabilities") && r["capabilities"].is_object())
      for (const char* name : {"typeDefinition", "implementation"}) {
        auto it = r["capabilities"].find(std::string(name) + "Provider");
        if (it != r["capabilities"].end() && (it->is_object() || (it->is_boolean() && it->get<bool>())))
          b->providers_.insert(std::string("textDocument/") + name);
      }
  } catch (const std::exception&) {
  }
  if (b->serverName_.empty()) b->serverName_ = std::filesystem::path(options.argv[0]).filename().string();
  Status s = b->notify("initialized", "{}");
  if (!s.isOk()) return s;
  return b;
}

bool LspBackend::answers(const std::string& method) const {
  if (method == "textDocument/definition" || method == "textDocument/references") return true;
  return providers_.count(method) > 0;
}

LspBackend::~LspBackend() {
  if (alive_) {
    // An orderly exit first (it lets clangd flush its state); then the whole group is killed.
    (void)call("shutdown", "null", std::chrono::milliseconds(500), {});
    (void)notify("exit", "null");
  }
  {
    // Under the write lock: the reader thread may still be answering the backend.
    std::lock_guard<std::mutex> g(writeMutex_);
    if (toBackend_ >= 0) close(toBackend_);
    toBackend_ = -1;
  }
  if (pid_ > 0) {
    for (int i = 0; i < 50 && !reaped_; ++i) {
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) reaped_ = true;
      else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The group may outlive its leader (tsserver under typescript-language-server).
    ::kill(-pid_, SIGKILL);
    if (!reaped_) waitpid(pid_, nullptr, 0);
  }
  if (reader_.joinable()) reader_.join();
  if (fromBackend_ >= 0) close(fromBackend_);
}

std::string LspBackend::deathReason() const {
  std::lock_guard<std::mutex> g(mutex_);
  return deathReason_;
}

void LspBackend::markDead(const std::string& why) {
  std::lock_guard<std::mutex> g(mutex_);
  if (deathReason_.empty()) deathReason_ = why;
  alive_ = false;
  for (auto& [id, p] : pending_)
    if (!p.done) {
      p.done = p.failed = true;
      p.error = why;
    }
  changed_.notify_all();
}

void LspBackend::readLoop() {
  MessageReader reader(fromBackend_);
  for (;;) {
    auto body = reader.next();
    if (!body) {
      if (body.status().code() == ErrorCode::NotFound) break;  // the backend closed its output
      continue;                                               // a bad frame: skip it
    }
    handleMessage(*body);
  }
  // Tell how it ended: an exit status when the process is gone already.
  std::string why = "the backend exited";
  int status = 0;
  for (int i = 0; i < 20; ++i) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      if (WIFEXITED(status)) why += " with status " + std::to_string(WEXITSTATUS(status));
      else if (WIFSIGNALED(status)) why = "the backend was killed by signal " + std::to_string(WTERMSIG(status));
      reaped_ = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  markDead(why);
}

void LspBackend::handleMessage(const std::string& body) {
  json m;
  try {
    m = json::parse(body);
  } catch (const std::exception&) {
    return;  // not JSON: nothing to match it with
  }
  if (!m.is_object()) return;
  bool hasMethod = m.contains("method") && m["method"].is_string();
  if (!hasMethod && m.contains("id") && m["id"].is_number_integer()) {
    std::lock_guard<std::mutex> g(mutex_);
    auto it = pending_.find(m["id"].get<int64_t>());
    if (it == pending_.end()) return;  // timed out or cancelled meanwhile
    Pending& p = it->second;
    p.done = true;
    if (m.contains("error")) {
      p.failed = true;
      const json& e = m["error"];
      p.error = e.is_object() && e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>()
                                                                                   : e.dump();
      if (e.is_object() && e.contains("code") && e["code"].is_number_integer())
        p.error += " (code " + std::to_string(e["code"].get<int>()) + ")";
    } else {
      p.result = m.contains("result") ? m["result"].dump() : "null";
    }
    changed_.notify_all();
    return;
  }
  if (!hasMethod) return;
  std::string method = m["method"].get<std::string>();
  if (method == "$/progress" && m.contains("params") && m["params"].is_object()) {
    const json& p = m["params"];
    std::string token = p.contains("token") ? p["token"].dump() : "";
    std::string kind = p.contains("value") && p["value"].is_object() && p["value"].contains("kind") &&
                               p["value"]["kind"].is_string()
                           ? p["value"]["kind"].get<std::string>()
                           : "";
    std::lock_guard<std::mutex> g(mutex_);
    if (kind == "begin") progress_.insert(token);
    if (kind == "end") {
      progress_.erase(token);
      ++progressEnded_;
    }
    lastProgress_ = Clock::now();
    changed_.notify_all();
  }
  if (!m.contains("id")) return;  // other notifications: diagnostics, logs
  // The backend's own requests get the answers a plain editor would give.
  json reply = {{"jsonrpc", "2.0"}, {"id", m["id"]}};
  if (method == "workspace/configuration") {
    size_t n = m.contains("params") && m["params"].contains("items") && m["params"]["items"].is_array()
                   ? m["params"]["items"].size()
                   : 0;
    reply["result"] = json::array();
    for (size_t i = 0; i < n; ++i) reply["result"].push_back(nullptr);
  } else if (method == "window/workDoneProgress/create" || method == "client/registerCapability" ||
             method == "client/unregisterCapability" || method == "window/showMessageRequest") {
    reply["result"] = nullptr;
  } else if (method == "workspace/workspaceFolders") {
    reply["result"] = nullptr;
  } else {
    reply["error"] = {{"code", -32601}, {"message", "nib does not handle " + method}};
  }
  // The reader never waits for the pipe (a request thread may be writing a large document
  // into it while the backend waits for this answer): the reply is queued, and sent now if no
  // one else is writing, else by the writer when it finishes.
  {
    std::lock_guard<std::mutex> g(mutex_);
    replies_.push_back(reply.dump());
  }
  // A writer that already flushed may still hold the lock for a moment: try again briefly
  // (never blocking on the pipe); whatever is left goes with the next frame.
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::unique_lock<std::mutex> w(writeMutex_, std::try_to_lock);
    if (w.owns_lock()) {
      flushRepliesLocked();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void LspBackend::flushRepliesLocked() {
  for (;;) {
    std::string next;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (replies_.empty()) return;
      next = std::move(replies_.front());
      replies_.pop_front();
    }
    if (!writeFrameLocked(next).isOk()) return;
  }
}

Status LspBackend::writeFrame(const std::string& body) {
  std::lock_guard<std::mutex> g(writeMutex_);
  Status s = writeFrameLocked(body);
  flushRepliesLocked();  // answers the reader queued meanwhile
  return s;
}

Status LspBackend::writeFrameLocked(const std::string& body) {
  if (toBackend_ < 0) return Status(ErrorCode::Unavailable, "the backend is stopping");
  std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t done = 0;
  auto deadline = Clock::now() + kWriteTimeout;
  while (done < frame.size()) {
    ssize_t n = ::write(toBackend_, frame.data() + done, frame.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) {
      Status s(ErrorCode::Unavailable, std::string("cannot write to the backend: ") + std::strerror(errno));
      markDead(s.message());
      return s;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{toBackend_, POLLOUT, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) == 0) {
      Status s(ErrorCode::Unavailable, "the backend stopped reading its input");
      markDead(s.message());
      if (pid_ > 0) ::kill(-pid_, SIGKILL);
      return s;
    }
  }
  return Status::ok();
}

Status LspBackend::notify(const std::string& method, const std::string& paramsJson) {
  if (!alive_) return Status(ErrorCode::Unavailable, deathReason());
  std::string body = R"({"jsonrpc":"2.0","method":)" + json(method).dump() + R"(,"params":)" + paramsJson + "}";
  Status s = writeFrame(body);
  if (!s.isOk()) return Status(ErrorCode::Unavailable, "cannot write to the backend: " + s.message());
  return s;
}

Expected<std::string> LspBackend::call(const std::string& method, const std::string& paramsJson,
                                       std::chrono::milliseconds timeout, const std::function<bool()>& cancelled) {
  int64_t id;
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (!alive_) return Status(ErrorCode::Unavailable, deathReason_);
    id = nextId_++;
    pending_[id];
  }
  std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":)" + json(method).dump() +
                     R"(,"params":)" + paramsJson + "}";
  Status written = writeFrame(body);
  auto deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex_);
  if (!written.isOk()) {
    pending_.erase(id);
    return Status(ErrorCode::Unavailable, "cannot write to the backend: " + written.message());
  }
  Status failure;
  for (;;) {
    Pending& p = pending_[id];
    if (p.done) {
      Pending done = std::move(p);
      pending_.erase(id);
      if (done.failed) return Status(alive_ ? ErrorCode::Unsupported : ErrorCode::Unavailable, done.error);
      return std::move(done.result);
    }
    if (cancelled && cancelled()) {
      failure = Status(ErrorCode::Cancelled, method + " was cancelled");
      break;
    }
    if (Clock::now() >= deadline) {
      failure = Status(ErrorCode::TimedOut, method + " took longer than " + std::to_string(timeout.count()) + " ms");
      break;
    }
    // Short slices: cancellation is polled, not signalled.
    changed_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(20)));
  }
  pending_.erase(id);
  lock.unlock();
  (void)notify("$/cancelRequest", R"({"id":)" + std::to_string(id) + "}");
  return failure;
}

Status LspBackend::didOpen(const std::string& uri, const std::string& languageId, int version, const std::string& text) {
  json p = {{"textDocument", {{"uri", uri}, {"languageId", languageId}, {"version", version}, {"text", text}}}};
  return notify("textDocument/didOpen", p.dump(-1, ' ', false, json::error_handler_t::replace));
}

Status LspBackend::didChange(const std::string& uri, int version, const std::string& text) {
  json p = {{"textDocument", {{"uri", uri}, {"version", version}}}, {"contentChanges", json::array({{{"text", text}}})}};
  return notify("textDocument/didChange", p.dump(-1, ' ', false, json::error_handler_t::replace));
}

Status LspBackend::didClose(const std::string& uri) {
  json p = {{"textDocument", {{"uri", uri}}}};
  return notify("textDocument/didClose", p.dump());
}

Expected<std::vector<BackendLocation>> LspBackend::locations(const std::string& method, const std::string& uri,
                                                             lsp::Position position, bool includeDeclaration,
                                                             std::chrono::milliseconds timeout,
                                                             const std::function<bool()>& cancelled) {
  json p = {{"textDocument", {{"uri", uri}}}, {"position", {{"line", position.line}, {"character", position.character}}}};
  if (method == "textDocument/references") p["context"] = {{"includeDeclaration", includeDeclaration}};
  auto result = call(method, p.dump(), timeout, cancelled);
  if (!result) return result.status();
  return locationsOf(*result);
}

size_t LspBackend::activeProgress() const {
  std::lock_guard<std::mutex> g(mutex_);
  return progress_.size();
}

size_t LspBackend::endedProgress() const {
  std::lock_guard<std::mutex> g(mutex_);
  return progressEnded_;
}

bool LspBackend::waitForQuiet(std::chrono::milliseconds quiet, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    auto now = Clock::now();
    if (!alive_) return false;
    if (progress_.empty() && now - lastProgress_ >= quiet) return true;
    if (now >= deadline) return false;
    changed_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(50)));
  }
}

uint64_t LspBackend::peakRssKiB() const {
  if (pid_ <= 0) return 0;
  // Every process of the backend's group: it was started as the group's leader.
  uint64_t total = 0;
  DIR* d = opendir("/proc");
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    char* end;
    long p = std::strtol(e->d_name, &end, 10);
    if (*end || p <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    long ppid, pgrp;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pid_) total += statusKiB(static_cast<pid_t>(p), "VmHWM");
  }
  closedir(d);
  return total;
}

}  // namespace nib
