// A small LSP client for tests: runs `nib serve` as a child process over pipes, frames and
// parses messages, and collects everything the server sends so tests can wait for a response,
// a notification or the exit status.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace nib::test {

class LspClient {
 public:
  explicit LspClient(const std::filesystem::path& cwd, std::vector<std::string> extraArgs = {});
  // Any language server started directly (argv[0] looked up on PATH); its own requests to the
  // client are answered as a plain editor would (null, or nulls for workspace/configuration).
  struct Direct {};
  LspClient(const std::filesystem::path& cwd, std::vector<std::string> argv, Direct);
  ~LspClient();

  void sendRaw(const std::string& bytes);
  void send(const nlohmann::json& message);
  // Sends a request and waits for its response (throws on timeout).
  nlohmann::json request(const std::string& method, const nlohmann::json& params, int timeoutMs = 30000);
  int sendRequest(const std::string& method, const nlohmann::json& params);  // returns the id
  nlohmann::json waitResponse(const nlohmann::json& id, int timeoutMs = 30000);
  void notify(const std::string& method, const nlohmann::json& params);
  // Waits for a server-sent message with this method (notification or request).
  std::optional<nlohmann::json> waitMessage(const std::string& method, int timeoutMs = 30000);
  std::vector<nlohmann::json> messages(const std::string& method);
  // The requests the server sent the client (registrations, progress tokens), in order.
  std::vector<nlohmann::json> serverRequests();
  // Closes the server's input and returns its exit status.
  int finish(int timeoutMs = 30000);
  // The orderly end: shutdown, exit, then the server's exit status (finish).
  int shutDown();
  pid_t pid() const { return pid_; }
  nlohmann::json initialize(const std::filesystem::path& root, const nlohmann::json& capabilities = nlohmann::json::object());

  static std::string uri(const std::filesystem::path& p);

 private:
  void readLoop();
  void spawn(const std::filesystem::path& cwd, std::vector<std::string> args);
  bool answerRequests_ = false;
  std::mutex writeMutex_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  int nextId_ = 1000;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<nlohmann::json> received_;
  bool eof_ = false;
  int exitStatus_ = -1;
};

}  // namespace nib::test
