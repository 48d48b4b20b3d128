#include "support/GitLite.h"

#include <sha1.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "support/FileIo.h"

namespace nib::gitlite {
namespace fs = std::filesystem;
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

bool isOid(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Looks a ref up in packed-refs ("<oid> <refname>" lines; '#' and '^' lines are metadata).
std::string packedRef(const fs::path& commonDir, const std::string& ref) {
  auto text = readFile(commonDir / "packed-refs");
  if (!text) return "";
  size_t pos = 0;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    std::string_view line(text->data() + pos, end - pos);
    pos = end + 1;
    if (line.size() > 41 && line[40] == ' ' && line.substr(41) == ref && isOid(line.substr(0, 40)))
      return std::string(line.substr(0, 40));
  }
  return "";
}

}  // namespace

Expected<Repository> discover(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return Status(ErrorCode::InvalidArgument, "cannot resolve " + start.string());
  dir = dir.lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "/repo/" -> "/repo"
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (fs::path d = dir;; d = d.parent_path()) {
    fs::path dotgit = d / ".git";
    if (fs::is_directory(dotgit, ec)) {
      Repository r{d, dotgit, dotgit};
      return r;
    }
    if (fs::is_regular_file(dotgit, ec)) {
      // A linked worktree or submodule: ".git" is a file "gitdir: <path>".
      auto text = readFile(dotgit);
      if (!text || text->rfind("gitdir: ", 0) != 0)
        return Status(ErrorCode::Corrupt, dotgit.string() + " is neither a folder nor a gitdir file");
      fs::path gitDir = trim(text->substr(8));
      if (gitDir.is_relative()) gitDir = d / gitDir;
      Repository r{d, gitDir.lexically_normal(), gitDir.lexically_normal()};
      if (auto common = readFile(r.gitDir / "commondir")) {
        fs::path c = trim(*common);
        r.commonDir = (c.is_relative() ? r.gitDir / c : c).lexically_normal();
      }
      return r;
    }
    if (d == d.root_path() || d.empty()) break;
  }
  return Status(ErrorCode::NotFound, Reason::NotARepository, "'" + start.string() + "' is not inside a git repository");
}

Expected<std::string> headCommit(const Repository& repo) {
  auto head = readFile(repo.gitDir / "HEAD");
  if (!head) return Status(ErrorCode::Corrupt, "cannot read " + (repo.gitDir / "HEAD").string());
  std::string value = trim(*head);
  for (int depth = 0; depth < 8; ++depth) {
    if (isOid(value)) return value;
    if (value.rfind("ref: ", 0) != 0) return Status(ErrorCode::Corrupt, "unexpected HEAD content: " + value);
    std::string ref = value.substr(5);
    // Only names under refs/ may be followed: anything else could point outside the git dir.
    if (ref.rfind("refs/", 0) != 0 || ref.find("..") != std::string::npos || ref.find("//") != std::string::npos)
      return Status(ErrorCode::Corrupt, "HEAD points to an invalid ref name");
    // Per-worktree refs (HEAD, refs/bisect, ...) live in gitDir; shared ones in commonDir.
    auto loose = readFile(repo.commonDir / ref);
    if (!loose && repo.gitDir != repo.commonDir) loose = readFile(repo.gitDir / ref);
    if (loose) {
      value = trim(*loose);
      continue;
    }
    std::string packed = packedRef(repo.commonDir, ref);
    if (packed.empty()) return std::string();  // unborn branch: the ref does not exist yet
    return packed;
  }
  return Status(ErrorCode::Corrupt, "symbolic ref loop at HEAD");
}


namespace {

bool rawOid(std::string_view hex, std::string* out) {
  if (!isOid(hex)) return false;
  out->resize(20);
  for (size_t i = 0; i < 20; ++i) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    (*out)[i] = static_cast<char>((nibble(hex[2 * i]) << 4) | nibble(hex[2 * i + 1]));
  }
  return true;
}

std::string objectId(std::string_view type, std::string_view body) {
  SHA1_CTX ctx;
  SHA1Init(&ctx);
  std::string header = std::string(type) + " " + std::to_string(body.size());
  SHA1Update(&ctx, reinterpret_cast<const uint8_t*>(header.c_str()), header.size() + 1);
  SHA1Update(&ctx, reinterpret_cast<const uint8_t*>(body.data()), body.size());
  char hex[SHA1_DIGEST_STRING_LENGTH];
  SHA1End(&ctx, hex);
  return hex;
}

}  // namespace

Expected<std::string> treeId(const std::vector<TreeItem>& items) {
  std::vector<std::string_view> paths;
  paths.reserve(items.size());
  for (const TreeItem& item : items) paths.push_back(item.path);
  TreeHasher hasher(paths);
  for (size_t i = 0; i < items.size(); ++i) hasher.set(i, items[i].mode, items[i].oid);
  return hasher.id();
}

TreeHasher::TreeHasher(const std::vector<std::string_view>& paths) {
  nodes_.emplace_back();
  std::unordered_map<std::string_view, int> nodeOf;  // folder path -> node (the views are the paths')
  files_.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string_view p = paths[i];
    int n = 0;
    size_t start = 0, slash;
    while ((slash = p.find('/', start)) != std::string_view::npos) {
      std::string_view part = p.substr(start, slash - start);
      auto [it, added] = nodeOf.emplace(p.substr(0, slash), static_cast<int>(nodes_.size()));
      if (added) {
        Node child;
        child.name = std::string(part);
        child.parent = n;
        nodes_.push_back(std::move(child));
        nodes_[n].children.push_back(it->second);
      }
      n = it->second;
      start = slash + 1;
    }
    files_[i].name = std::string(p.substr(start));
    files_[i].node = n;
    nodes_[n].files.push_back(static_cast<uint32_t>(i));
  }
}

void TreeHasher::set(size_t i, uint32_t mode, std::string_view oid) {
  File& f = files_[i];
  if (f.mode == mode && (mode == 0 || f.oid == oid)) return;
  f.mode = mode;
  f.oid.assign(oid);
  for (int n = f.node; n >= 0 && !nodes_[n].dirty; n = nodes_[n].parent) nodes_[n].dirty = true;
  // A node already dirty has dirty ancestors (they were marked with it).
}

Expected<std::string> TreeHasher::hashNode(int n) {
  Node& node = nodes_[n];
  if (!node.dirty) return node.id;
  struct Entry {
    std::string_view name;
    bool folder;
    uint32_t mode;
    const std::string* oid;
  };
  std::vector<Entry> entries;
  entries.reserve(node.children.size() + node.files.size());
  for (int c : node.children) {
    auto id = hashNode(c);
    if (!id) return id.status();
    if (!nodes_[c].id.empty()) entries.push_back({nodes_[c].name, true, 040000, &nodes_[c].id});
  }
  for (uint32_t i : node.files)
    if (files_[i].mode != 0) entries.push_back({files_[i].name, false, files_[i].mode, &files_[i].oid});
  // Git orders entries by name, comparing a folder's name as if it ended in '/'.
  auto charAt = [](const Entry& e, size_t i) -> int {
    return i < e.name.size() ? static_cast<unsigned char>(e.name[i]) : (e.folder ? '/' : 0);
  };
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    size_t common = std::min(a.name.size(), b.name.size());
    if (int c = a.name.substr(0, common).compare(b.name.substr(0, common)); c != 0) return c < 0;
    return charAt(a, common) < charAt(b, common);
  });
  std::string body, raw;
  for (const Entry& e : entries) {
    char mode[16];
    std::snprintf(mode, sizeof mode, "%o", e.mode);
    body += mode;
    body += ' ';
    body += e.name;
    body.push_back('\0');
    if (!rawOid(*e.oid, &raw)) return Status(ErrorCode::InvalidArgument, "bad object id for " + std::string(e.name));
    body += raw;
  }
  node.id = entries.empty() ? std::string() : objectId("tree", body);
  node.dirty = false;
  return node.id;
}

Expected<std::string> TreeHasher::id() {
  auto id = hashNode(0);
  if (!id) return id.status();
  // An empty worktree still has a tree: the empty one.
  return id->empty() ? objectId("tree", "") : *id;
}

std::string blobId(std::string_view content) { return objectId("blob", content); }

Expected<std::string> blobIdOfFile(const fs::path& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    fs::path target = fs::read_symlink(path, ec);
    if (ec) return Status(ErrorCode::IoError, "cannot read link " + path.string());
    return blobId(target.string());
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status(ErrorCode::IoError, "cannot open " + path.string());
  // The header needs the size up front; a file that changes while being hashed is caught by the
  // byte count and reported, rather than hashed inconsistently.
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (size < 0) {
    std::fclose(f);
    return Status(ErrorCode::IoError, "cannot size " + path.string());
  }
  SHA1_CTX ctx;
  SHA1Init(&ctx);
  std::string header = "blob " + std::to_string(size);
  SHA1Update(&ctx, reinterpret_cast<const uint8_t*>(header.c_str()), header.size() + 1);
  std::vector<char> buf(1 << 16);
  long total = 0;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    SHA1Update(&ctx, reinterpret_cast<const uint8_t*>(buf.data()), n);
    total += static_cast<long>(n);
  }
  std::fclose(f);
  if (total != size) return Status(ErrorCode::IoError, path.string() + " changed while it was hashed");
  char hex[SHA1_DIGEST_STRING_LENGTH];
  SHA1End(&ctx, hex);
  return std::string(hex);
}

}  // namespace nib::gitlite
