// The project configuration: `<repository>/.nib.conf`, optional, one `key = value` per line,
// `#` starts a comment line. Keys nib reads are listed in docs/configuration.md; unknown keys
// are errors (a misspelt key must not be silently ignored).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "support/Status.h"

namespace nib {

class ProjectConfig {
 public:
  static constexpr const char* kFileName = ".nib.conf";
  // The repository's configuration; an empty one when the file does not exist.
  static Expected<ProjectConfig> load(const std::filesystem::path& repoRoot);
  static Expected<ProjectConfig> parse(std::string_view text, const std::string& origin);

  std::optional<std::string> get(const std::string& key) const;
  // An integer value within [min, max]; `fallback` when absent; an error when malformed.
  Expected<long long> getInt(const std::string& key, long long fallback, long long min, long long max) const;

 private:
  std::map<std::string, std::string> values_;
  std::string origin_;
};

}  // namespace nib
