#include "support/FileIo.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace nib {

Expected<std::string> readWorktreeFile(const std::filesystem::path& root, const std::string& path) {
  std::filesystem::path full = root / path;
  struct stat st;
  if (::lstat(full.c_str(), &st) != 0) return Status(ErrorCode::NotFound, "no such file: " + path);
  if (S_ISLNK(st.st_mode)) return Status(ErrorCode::NotFound, path + " is a symbolic link now (not followed)");
  if (!S_ISREG(st.st_mode)) return Status(ErrorCode::NotFound, path + " is not a regular file");
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(full, ec);
  std::filesystem::path realRoot = std::filesystem::canonical(root, ec);
  std::string r = real.string(), base = realRoot.string() + "/";
  if (ec || r.compare(0, base.size(), base) != 0)
    return Status(ErrorCode::InvalidArgument, path + " resolves outside the repository (not read)");
  return readFile(full);
}

Expected<std::string> readFile(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::IoError,
                            "cannot open " + path.string() + ": " + std::strerror(errno));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status(ErrorCode::IoError, "cannot read " + path.string() + ": " + std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status writeFileAtomic(const std::filesystem::path& path, std::string_view content) {
  std::string tmp = path.string() + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status(ErrorCode::IoError, "cannot create " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status(ErrorCode::IoError, "cannot write " + tmp + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  bool closed = ::close(fd) == 0;
  if (!synced || !closed) {
    ::unlink(tmp.c_str());
    return Status(ErrorCode::IoError, "cannot flush " + tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status(ErrorCode::IoError, "cannot rename " + tmp + " to " + path.string() + ": " + std::strerror(err));
  }
  // Make the rename itself durable.
  return syncDirectory(path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path());
}

Status syncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status(ErrorCode::IoError, "cannot open " + dir.string() + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Status(ErrorCode::IoError, "cannot sync " + dir.string() + ": " + std::strerror(errno));
  return Status::ok();
}

std::string absoluteSearchPath() {
  const char* path = std::getenv("PATH");
  std::string out;
  std::string_view rest = path ? path : "";
  while (true) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    if (!dir.empty() && dir.front() == '/') {
      if (!out.empty()) out.push_back(':');
      out.append(dir);
    }
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return out;
}

std::optional<std::filesystem::path> findExecutable(const std::string& name) {
  namespace fs = std::filesystem;
  auto runnable = [](const fs::path& p) {
    std::error_code ec;
    return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p, ec);
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    fs::path p = fs::absolute(name, ec);
    if (ec || !runnable(p)) return std::nullopt;
    return p;
  }
  std::string dirs = absoluteSearchPath();
  std::string_view rest = dirs;
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / name;
    if (runnable(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

bool writeAllTo(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace nib
