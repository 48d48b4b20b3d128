#include "LspClient.h"

#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "TestRepo.h"

namespace nib::test {
using json = nlohmann::json;

LspClient::LspClient(const std::filesystem::path& cwd, std::vector<std::string> extraArgs) {
  std::vector<std::string> args{nibBinary(), "serve"};
  for (auto& a : extraArgs) args.push_back(a);
  spawn(cwd, args);
}

LspClient::LspClient(const std::filesystem::path& cwd, std::vector<std::string> argv, Direct)
    : answerRequests_(true) {
  spawn(cwd, argv);
}

void LspClient::spawn(const std::filesystem::path& cwd, std::vector<std::string> args) {
  int toChild[2], fromChild[2];
  if (::pipe(toChild) != 0 || ::pipe(fromChild) != 0) throw std::runtime_error("pipe failed");
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(toChild[0], STDIN_FILENO);
    ::dup2(fromChild[1], STDOUT_FILENO);
    ::close(toChild[1]);
    ::close(fromChild[0]);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    if (answerRequests_) ::setpgid(0, 0);  // stopped with the servers it starts (tsserver)
    int devnull = ::open("/dev/null", O_WRONLY);
    if (answerRequests_ && devnull >= 0) ::dup2(devnull, STDERR_FILENO);  // a backend's chatter
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(toChild[0]);
  ::close(fromChild[1]);
  in_ = toChild[1];
  out_ = fromChild[0];
  ::signal(SIGPIPE, SIG_IGN);
  reader_ = std::thread([this] { readLoop(); });
}

LspClient::~LspClient() {
  if (in_ >= 0) ::close(in_);
  if (pid_ > 0 && exitStatus_ < 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (pid_ > 0 && answerRequests_) ::kill(-pid_, SIGKILL);
  if (reader_.joinable()) reader_.join();
  if (out_ >= 0) ::close(out_);
}

std::string LspClient::uri(const std::filesystem::path& p) { return "file://" + p.string(); }

void LspClient::readLoop() {
  std::string buf;
  char tmp[65536];
  for (;;) {
    ssize_t n = ::read(out_, tmp, sizeof tmp);
    if (n <= 0) break;
    buf.append(tmp, static_cast<size_t>(n));
    for (;;) {
      size_t end = buf.find("\r\n\r\n");
      if (end == std::string::npos) break;
      size_t cl = buf.find("Content-Length: ");
      if (cl == std::string::npos || cl > end) throw std::runtime_error("server sent a frame without Content-Length");
      size_t length = std::stoul(buf.substr(cl + 16, end - cl - 16));
      if (buf.size() < end + 4 + length) break;
      json message = json::parse(buf.substr(end + 4, length));
      buf.erase(0, end + 4 + length);
      if (answerRequests_ && message.contains("method") && message.contains("id")) {
        // A language server's own requests get what a plain editor answers.
        json result = nullptr;
        if (message["method"] == "workspace/configuration")
          result = json::array_t(message["params"].value("items", json::array()).size(), nullptr);
        send({{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", result}});
        continue;
      }
      std::lock_guard<std::mutex> g(mutex_);
      received_.push_back(std::move(message));
      cv_.notify_all();
    }
  }
  std::lock_guard<std::mutex> g(mutex_);
  eof_ = true;
  cv_.notify_all();
}

void LspClient::sendRaw(const std::string& bytes) {
  std::lock_guard<std::mutex> g(writeMutex_);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(in_, bytes.data() + done, bytes.size() - done);
    if (n <= 0) throw std::runtime_error("cannot write to the server");
    done += static_cast<size_t>(n);
  }
}

void LspClient::send(const json& message) {
  std::string body = message.dump();
  sendRaw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

int LspClient::sendRequest(const std::string& method, const json& params) {
  int id = ++nextId_;
  json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = params;
  send(m);
  return id;
}

json LspClient::waitResponse(const json& id, int timeoutMs) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  for (;;) {
    for (auto it = received_.begin(); it != received_.end(); ++it)
      if (it->contains("id") && (*it)["id"] == id && !it->contains("method")) {
        json r = *it;
        received_.erase(it);
        return r;
      }
    if (eof_) throw std::runtime_error("server closed its output before answering " + id.dump());
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout)
      throw std::runtime_error("no response to request " + id.dump());
  }
}

json LspClient::request(const std::string& method, const json& params, int timeoutMs) {
  return waitResponse(sendRequest(method, params), timeoutMs);
}

void LspClient::notify(const std::string& method, const json& params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

std::optional<json> LspClient::waitMessage(const std::string& method, int timeoutMs) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  for (;;) {
    for (auto it = received_.begin(); it != received_.end(); ++it)
      if (it->value("method", "") == method) {
        json r = *it;
        received_.erase(it);
        return r;
      }
    if (eof_ || cv_.wait_until(lock, deadline) == std::cv_status::timeout) return std::nullopt;
  }
}

std::vector<json> LspClient::messages(const std::string& method) {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<json> out;
  for (const json& m : received_)
    if (m.value("method", "") == method) out.push_back(m);
  return out;
}

std::vector<json> LspClient::serverRequests() {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<json> out;
  for (const json& m : received_)
    if (m.contains("method") && m.contains("id")) out.push_back(m);
  return out;
}

int LspClient::shutDown() {
  request("shutdown", nullptr);
  notify("exit", nullptr);
  return finish();
}

int LspClient::finish(int timeoutMs) {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      throw std::runtime_error("the server did not exit");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  exitStatus_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exitStatus_;
}

json LspClient::initialize(const std::filesystem::path& root, const json& capabilities) {
  json r = request("initialize", {{"processId", nullptr}, {"rootUri", uri(root)}, {"capabilities", capabilities}});
  notify("initialized", json::object());
  return r;
}

}  // namespace nib::test
