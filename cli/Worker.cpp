#include "cli/Worker.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace nib::cli {
namespace fs = std::filesystem;
namespace {

std::vector<char*> argvOf(const std::string& path, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return argv;
}

}  // namespace

Expected<std::string> workerPath(const std::string& name) {
  std::string var = name == "nib-server" ? "NIB_SERVER" : "NIB_INDEXER";
  if (const char* env = std::getenv(var.c_str()); env && *env) return std::string(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Status(ErrorCode::IoError, "cannot locate the nib executable");
  fs::path worker = self.parent_path() / name;
  if (!fs::exists(worker, ec))
    return Status(ErrorCode::NotFound, "the indexer worker " + worker.string() +
                                           " is missing; reinstall nib or set " + var);
  return worker.string();
}

Status execWorker(const std::vector<std::string>& args, const std::string& name) {
  auto path = workerPath(name);
  if (!path) return path.status();
  auto argv = argvOf(*path, args);
  ::execv(path->c_str(), argv.data());
  return Status(ErrorCode::IoError, "cannot run " + *path + ": " + std::strerror(errno));
}

Expected<std::string> runWorker(const std::vector<std::string>& args) {
  auto path = workerPath();
  if (!path) return path.status();
  int fds[2];
  if (::pipe(fds) != 0) return Status(ErrorCode::IoError, "pipe failed");
  auto argv = argvOf(*path, args);
  pid_t pid = ::fork();
  if (pid < 0) return Status(ErrorCode::IoError, "fork failed");
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(path->c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status(ErrorCode::IoError, *path + " failed (exit status " +
                                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128) + ")");
  return out;
}

}  // namespace nib::cli
