#include "indexer/BuildSpill.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nib::build {
namespace {

Status ioError(const std::string& what) { return Status(ErrorCode::IoError, what + ": " + std::strerror(errno)); }

}  // namespace

Expected<std::unique_ptr<BuildSpill>> BuildSpill::create(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without unnamed files: a named one, unlinked before anything is written.
    std::string name = (dir / "build-spill.XXXXXX").string();
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0) return ioError("cannot create the build's temporary file in " + dir.string());
  return std::unique_ptr<BuildSpill>(new BuildSpill(fd));
}

BuildSpill::~BuildSpill() { ::close(fd_); }

SpillRef BuildSpill::append(std::string_view bytes) {
  if (bytes.empty()) return {};
  // Each writer reserves its range first, so appends from several threads never interleave.
  uint64_t offset = end_.fetch_add(bytes.size());
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::lock_guard<std::mutex> g(statusMutex_);
      if (status_.isOk()) status_ = ioError("cannot write the build's temporary records");
      return {};
    }
    done += static_cast<size_t>(n);
  }
  return {offset, static_cast<uint32_t>(bytes.size())};
}

Status BuildSpill::read(const SpillRef& ref, std::string& out) const {
  out.resize(ref.size);
  size_t done = 0;
  while (done < ref.size) {
    ssize_t n = ::pread(fd_, out.data() + done, ref.size - done, static_cast<off_t>(ref.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ioError("cannot read the build's temporary records");
    if (n == 0) return Status(ErrorCode::Corrupt, "the build's temporary records end early");
    done += static_cast<size_t>(n);
  }
  return Status::ok();
}

Status BuildSpill::status() const {
  std::lock_guard<std::mutex> g(statusMutex_);
  return status_;
}

}  // namespace nib::build
