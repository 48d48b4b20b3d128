// Repository-relative paths. Every store and every result speaks RepoPath; absolute paths exist
// only at the edges (URIs and command-line arguments in, files read).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

class RepoPath {
 public:
  RepoPath() = default;

  // Accepts a '/'-separated relative path with no empty, "." or ".." components.
  static Expected<RepoPath> parse(std::string_view text);
  // Maps an absolute or cwd-relative filesystem path inside `root` to a RepoPath; paths that
  // resolve outside the workspace are rejected with InvalidArgument.
  static Expected<RepoPath> fromFilesystem(const std::filesystem::path& root,
                                           const std::filesystem::path& path);

  const std::string& str() const { return text_; }
  bool empty() const { return text_.empty(); }
  std::string_view filename() const;
  std::string_view extension() const;  // ".py", or "" when none
  std::string_view directory() const;  // "a/b" for "a/b/c.py", "" at the root
  std::filesystem::path under(const std::filesystem::path& root) const { return root / text_; }

  friend bool operator==(const RepoPath&, const RepoPath&) = default;
  friend auto operator<=>(const RepoPath&, const RepoPath&) = default;

 private:
  explicit RepoPath(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

}  // namespace nib
