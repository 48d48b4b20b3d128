#include "support/RepoPath.h"

namespace nib {

Expected<RepoPath> RepoPath::parse(std::string_view text) {
  if (text.empty()) return Status(ErrorCode::InvalidArgument, "empty repository path");
  if (text.front() == '/')
    return Status(ErrorCode::InvalidArgument,
                  "repository paths are relative, got absolute '" + std::string(text) + "'");
  if (text.find('\\') != std::string_view::npos || text.find('\0') != std::string_view::npos)
    return Status(ErrorCode::InvalidArgument, "invalid character in path '" + std::string(text) + "'");
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(start, end - start);
    if (part.empty() || part == "." || part == "..")
      return Status(ErrorCode::InvalidArgument,
                    "repository path '" + std::string(text) + "' has an empty, '.' or '..' component");
    start = end + 1;
  }
  return RepoPath(std::string(text));
}

Expected<RepoPath> RepoPath::fromFilesystem(const std::filesystem::path& root,
                                            const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path absRoot = fs::weakly_canonical(fs::absolute(root, ec), ec);
  fs::path absPath = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return Status(ErrorCode::InvalidArgument, "cannot resolve path '" + path.string() + "'");
  fs::path rel = absPath.lexically_relative(absRoot);
  std::string relText = rel.generic_string();
  bool escapes = relText == ".." || relText.rfind("../", 0) == 0;
  if (rel.empty() || relText == "." || escapes)
    return Status(ErrorCode::InvalidArgument, Reason::OutsideWorkspace, "'" + path.string() +
                                                  "' is outside the workspace " + absRoot.string());
  return parse(relText);
}

std::string_view RepoPath::filename() const {
  std::string_view t = text_;
  size_t slash = t.rfind('/');
  return slash == std::string_view::npos ? t : t.substr(slash + 1);
}

std::string_view RepoPath::extension() const {
  std::string_view name = filename();
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  return name.substr(dot);
}

std::string_view RepoPath::directory() const {
  std::string_view t = text_;
  size_t slash = t.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : t.substr(0, slash);
}

}  // namespace nib
