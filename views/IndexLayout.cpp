#include "views/IndexLayout.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "support/FileIo.h"
#include "views/CommitView.h"

namespace nib {
namespace fs = std::filesystem;

Status IndexLayout::ensure() const {
  std::error_code ec;
  fs::create_directories(versionsDir(), ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + versionsDir().string() + ": " + ec.message());
  if (!fs::exists(dir_ / ".gitignore"))
    NIB_RETURN_IF_ERROR(writeFileAtomic(dir_ / ".gitignore", "# Written by nib: its index is never part of the repository.\n*\n"));
  return Status::ok();
}

bool IndexLayout::exists() const {
  std::error_code ec;
  return fs::exists(currentFile(), ec);
}

Expected<std::string> IndexLayout::currentVersion() const {
  auto text = readFile(currentFile());
  if (!text) {
    if (text.status().code() == ErrorCode::NotFound)
      return Status(ErrorCode::NotFound, Reason::NoIndex, "no index at " + dir_.string() + "; run `nib index` first");
    return text.status();
  }
  std::string id = *text;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id.empty() || id.find('/') != std::string::npos)
    return Status(ErrorCode::Corrupt, "CURRENT in " + dir_.string() + " is malformed; run `nib index`");
  return id;
}

Expected<Manifest> IndexLayout::currentManifest() const {
  auto id = currentVersion();
  if (!id) return id.status();
  auto manifest = readManifest(versionDir(*id));
  if (!manifest)
    return Status(manifest.status().code(), "current version " + *id + ": " + manifest.status().message() +
                                                "; run `nib rollback` or `nib index`");
  if (!manifest->servable())
    return Status(ErrorCode::Corrupt, "current version " + *id + " has no complete structural view");
  NIB_RETURN_IF_ERROR(checkArtifactSizes(versionDir(*id), *manifest));
  return manifest;
}

std::string IndexLayout::newVersionId() const {
  static std::atomic<int> counter{0};
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%03dZ-%d-%d", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms), static_cast<int>(getpid()),
                counter++);
  return buf;
}

Status IndexLayout::publish(const std::string& id) const {
  return writeFileAtomic(currentFile(), id + "\n");
}

std::vector<std::string> IndexLayout::listVersions() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(versionsDir(), ec))
    if (entry.is_directory() && fs::exists(entry.path() / "manifest")) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

void IndexLayout::prune(size_t keep) const {
  std::string current = currentVersion().hasValue() ? *currentVersion() : "";
  std::string previous;
  if (!current.empty())
    if (auto m = readManifest(versionDir(current))) previous = m->previous;
  std::error_code ec;
  std::vector<std::string> complete;
  for (const auto& entry : fs::directory_iterator(versionsDir(), ec)) {
    std::string id = entry.path().filename().string();
    if (id == current || id == previous) continue;
    // A folder without a manifest is a build that died (or is running: the caller holds the
    // write lock, so it is not).
    if (!fs::exists(entry.path() / "manifest")) fs::remove_all(entry.path(), ec);
    else complete.push_back(id);
  }
  std::sort(complete.begin(), complete.end());
  size_t protectedCount = (current.empty() ? 0 : 1) + (previous.empty() ? 0 : 1);
  size_t allowed = keep > protectedCount ? keep - protectedCount : 0;
  // A delta version reads its base's manifest and state (nib verify, the next delta): the base
  // of every version kept stays too.
  std::set<std::string> kept(complete.end() - std::min(allowed, complete.size()), complete.end());
  std::set<std::string> bases;
  for (const std::string& id : {current, previous})
    if (!id.empty()) kept.insert(id);
  for (const std::string& id : kept)
    if (auto m = readManifest(versionDir(id)); m && !m->base.empty()) bases.insert(m->base);
  // While the current version's dense view waits for its follow-up, the newest version with a
  // complete one stays too: the follow-up keeps its model (training again would make every
  // cached vector useless), and a worktree edited meanwhile would otherwise prune it away.
  auto denseStatus = [&](const std::string& id) {
    auto m = readManifest(versionDir(id));
    const ViewRecord* d = m ? m->view("dense") : nullptr;
    return d ? d->status : ViewStatus::Absent;
  };
  if (!current.empty() && denseStatus(current) == ViewStatus::Pending)
    for (auto it = complete.rbegin(); it != complete.rend(); ++it)
      if (denseStatus(*it) == ViewStatus::Complete) {
        kept.insert(*it);
        break;
      }
  for (const std::string& id : complete)
    if (!kept.count(id) && !bases.count(id)) fs::remove_all(versionDir(id), ec);
  // Agreement counts go with their version; the newest stays for the next version to start from.
  std::string newest = newestAgreementFile().filename().string();
  for (const auto& entry : fs::directory_iterator(agreementDir(), ec)) {
    std::string id = entry.path().filename().string();
    if (id != newest && !fs::exists(versionDir(id) / "manifest")) fs::remove(entry.path(), ec);
  }
}

fs::path IndexLayout::newestAgreementFile() const {
  std::error_code ec;
  fs::path newest;
  // Version ids sort by creation; a temporary file of an atomic write is no version's.
  for (const auto& entry : fs::directory_iterator(agreementDir(), ec)) {
    std::string name = entry.path().filename().string();
    if (name.find(".tmp.") != std::string::npos || !entry.is_regular_file(ec)) continue;
    if (newest.empty() || name > newest.filename().string()) newest = entry.path();
  }
  return newest;
}

std::filesystem::path IndexLayout::callGraphFile(const std::string& id) const {
  return versionDir(id) / CommitView::kDirectory / CommitView::kCallGraphFile;
}

bool IndexLayout::denseFollowUpRunning() const {
  int fd = ::open(denseLockFile().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

Expected<IndexWriteLock> IndexWriteLock::acquire(const IndexLayout& layout, bool wait) {
  NIB_RETURN_IF_ERROR(layout.ensure());
  std::string path = (layout.dir() / "lock").string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status(ErrorCode::IoError, "cannot open " + path);
  // The dense view's follow-up holds the lock only while it publishes (milliseconds): a build
  // that would fail on a held lock waits for it instead.
  if (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 && (wait || !layout.denseFollowUpRunning() || ::flock(fd, LOCK_EX) != 0)) {
    ::close(fd);
    return Status(ErrorCode::Unsupported, "another nib process is building this index (" + path + " is locked)");
  }
  return IndexWriteLock(fd);
}

IndexWriteLock::~IndexWriteLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace nib
