#include "views/Manifest.h"

#include <sstream>

#include "support/FileIo.h"
#include "support/Hash.h"

namespace nib {
namespace {
constexpr std::string_view kHeader = "nib-manifest 1\n";
constexpr std::string_view kDigestKey = "manifest-digest: ";

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Values are single-line; anything else would break the format, so newlines are replaced.
std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

const char* viewStatusName(ViewStatus s) {
  switch (s) {
    case ViewStatus::Complete: return "complete";
    case ViewStatus::Failed: return "failed";
    case ViewStatus::Absent: return "absent";
    case ViewStatus::Pending: return "pending";
  }
  return "absent";
}

bool ViewRecord::has(const char* capability) const {
  for (const std::string& c : capabilities)
    if (c == capability) return true;
  return false;
}

bool ViewRecord::coversDelta() const { return has(kCoversDelta); }

const ViewRecord* Manifest::view(const std::string& name) const {
  for (const auto& v : views)
    if (v.name == name) return &v;
  return nullptr;
}

bool Manifest::servable() const {
  const ViewRecord* s = view("structural");
  return s && s->status == ViewStatus::Complete;
}

std::string Manifest::serialize() const {
  std::ostringstream o;
  o << kHeader;
  o << "version: " << versionId << "\n";
  o << "created: " << created << "\n";
  o << "source-commit: " << sourceCommit << "\n";
  o << "source-tree: " << sourceTree << "\n";
  o << "dirty: " << (dirty ? "true" : "false") << "\n";
  o << "nib-version: " << nibVersion << "\n";
  o << "extractor-profile: " << extractorProfile << "\n";
  o << "grammars: " << oneLine(grammars) << "\n";
  o << "config-digest: " << configDigest << "\n";
  o << "previous: " << previous << "\n";
  if (!base.empty()) o << "base: " << base << "\n";
  for (const auto& v : views) {
    std::string p = "view." + v.name + ".";
    o << p << "status: " << viewStatusName(v.status) << "\n";
    o << p << "profile: " << oneLine(v.profile) << "\n";
    o << p << "capabilities: " << join(v.capabilities) << "\n";
    for (const auto& a : v.artifacts) o << p << "artifact: " << a.path << " " << a.size << " " << a.digest << "\n";
    if (!v.error.empty()) o << p << "error: " << oneLine(v.error) << "\n";
  }
  for (const auto& [k, val] : stats) o << "stat." << k << ": " << oneLine(val) << "\n";
  std::string body = o.str();
  return body + std::string(kDigestKey) + digestHex(body) + "\n";
}

Expected<Manifest> Manifest::parse(std::string_view text) {
  if (text.substr(0, kHeader.size()) != kHeader)
    return Status(ErrorCode::Corrupt, "not a nib manifest (or written by an incompatible nib)");
  size_t digestAt = text.rfind(kDigestKey);
  if (digestAt == std::string_view::npos)
    return Status(ErrorCode::Corrupt, "manifest has no digest line (torn write?)");
  std::string_view body = text.substr(0, digestAt);
  std::string_view recorded = text.substr(digestAt + kDigestKey.size());
  while (!recorded.empty() && (recorded.back() == '\n' || recorded.back() == ' ')) recorded.remove_suffix(1);
  if (recorded != digestHex(body)) return Status(ErrorCode::Corrupt, "manifest digest mismatch");

  Manifest m;
  auto viewNamed = [&](const std::string& name) -> ViewRecord& {
    for (auto& v : m.views)
      if (v.name == name) return v;
    m.views.push_back(ViewRecord{});
    m.views.back().name = name;
    return m.views.back();
  };
  std::istringstream in{std::string(body.substr(kHeader.size()))};
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(": ");
    std::string key = colon == std::string::npos ? line.substr(0, line.size() - (line.ends_with(":") ? 1 : 0)) : line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
    if (key == "version") m.versionId = value;
    else if (key == "created") m.created = value;
    else if (key == "source-commit") m.sourceCommit = value;
    else if (key == "source-tree") m.sourceTree = value;
    else if (key == "dirty") m.dirty = value == "true";
    else if (key == "nib-version") m.nibVersion = value;
    else if (key == "extractor-profile") m.extractorProfile = value;
    else if (key == "grammars") m.grammars = value;
    else if (key == "config-digest") m.configDigest = value;
    else if (key == "previous") m.previous = value;
    else if (key == "base") m.base = value;
    else if (key.rfind("stat.", 0) == 0) m.stats[key.substr(5)] = value;
    else if (key.rfind("view.", 0) == 0) {
      size_t dot = key.find('.', 5);
      if (dot == std::string::npos) return Status(ErrorCode::Corrupt, "bad manifest key " + key);
      ViewRecord& v = viewNamed(key.substr(5, dot - 5));
      std::string field = key.substr(dot + 1);
      if (field == "status") {
        v.status = value == "complete" ? ViewStatus::Complete
                   : value == "failed"  ? ViewStatus::Failed
                   : value == "pending" ? ViewStatus::Pending
                                        : ViewStatus::Absent;
      } else if (field == "profile") v.profile = value;
      else if (field == "capabilities") v.capabilities = split(value);
      else if (field == "error") v.error = value;
      else if (field == "artifact") {
        std::istringstream a(value);
        Artifact art;
        if (!(a >> art.path >> art.size >> art.digest)) return Status(ErrorCode::Corrupt, "bad artifact line");
        v.artifacts.push_back(art);
      }
    }
  }
  return m;
}

Expected<Manifest> readManifest(const std::filesystem::path& versionDir) {
  auto text = readFile(versionDir / "manifest");
  if (!text) return text.status();
  return Manifest::parse(*text);
}

Status writeManifest(const std::filesystem::path& versionDir, const Manifest& manifest) {
  return writeFileAtomic(versionDir / "manifest", manifest.serialize());
}

Status writePendingManifest(const std::filesystem::path& versionDir, const Manifest& manifest) {
  return writeFileAtomic(versionDir / "manifest.pending", manifest.serialize());
}

Expected<Manifest> readPendingManifest(const std::filesystem::path& versionDir) {
  auto text = readFile(versionDir / "manifest.pending");
  if (!text) return text.status();
  return Manifest::parse(*text);
}

Status commitManifest(const std::filesystem::path& versionDir) {
  std::error_code ec;
  std::filesystem::rename(versionDir / "manifest.pending", versionDir / "manifest", ec);
  if (ec) return Status(ErrorCode::IoError, "cannot complete the manifest in " + versionDir.string() + ": " + ec.message());
  return syncDirectory(versionDir);
}

Status verifyArtifacts(const std::filesystem::path& versionDir, const Manifest& manifest) {
  for (const auto& v : manifest.views) {
    if (v.status != ViewStatus::Complete) continue;
    for (const auto& a : v.artifacts) {
      auto d = digestFile(versionDir / a.path);
      if (!d) return d.status();
      if (*d != a.digest)
        return Status(ErrorCode::Corrupt, "artifact " + a.path + " of view " + v.name + " does not match its digest");
    }
  }
  return Status::ok();
}

Status checkArtifactSizes(const std::filesystem::path& versionDir, const Manifest& manifest) {
  for (const auto& v : manifest.views) {
    if (v.status != ViewStatus::Complete) continue;
    for (const auto& a : v.artifacts) {
      std::error_code ec;
      auto size = std::filesystem::file_size(versionDir / a.path, ec);
      if (ec || size != a.size)
        return Status(ErrorCode::Corrupt, "artifact " + a.path + " of view " + v.name + " is missing or has the wrong size");
    }
  }
  return Status::ok();
}

}  // namespace nib
