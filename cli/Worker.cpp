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
  std::string var = name == "nib-server" ? "NIB_SERVER" : name == "nib-scip" ? "NIB_SCIP_WORKER" : "NIB_INDEXER";
  if (const char* env = std::getenv(var.c_str()); env && *env) return std::string(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Status(ErrorCode::IoError, "cannot locate the nib executable");
  fs::path worker = self.parent_path() / name;
  if (!fs::exists(worker, ec))
    return Status(ErrorCode::NotFound, "the worker " + worker.string() + " is missing; reinstall nib or set " + var);
  return worker.string();
}

Expected<int> runWorker(const std::vector<std::string>& args, const std::string& name) {
  auto path = workerPath(name);
  if (!path) return path.status();
  auto argv = argvOf(*path, args);
  pid_t pid = ::fork();
  if (pid < 0) return Status(ErrorCode::IoError, std::string("cannot start a process: ") + std::strerror(errno));
  if (pid == 0) {
    ::execv(path->c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Status(ErrorCode::IoError, std::string("cannot wait for ") + *path + ": " + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return Status(ErrorCode::IoError, *path + " was stopped by signal " + std::to_string(WTERMSIG(status)));
}

Status execWorker(const std::vector<std::string>& args, const std::string& name) {
  auto path = workerPath(name);
  if (!path) return path.status();
  auto argv = argvOf(*path, args);
  ::execv(path->c_str(), argv.data());
  return Status(ErrorCode::IoError, "cannot run " + *path + ": " + std::strerror(errno));
}

}  // namespace nib::cli
