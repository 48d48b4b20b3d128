#include "support/ProjectConfig.h"

#include <array>
#include <cerrno>
#include <cstdlib>

#include "support/FileIo.h"

namespace nib {
namespace {

// Every key nib reads: a key not listed is refused with the list.
constexpr std::array<const char*, 22> kKnownKeys = {
    "clang.compile-commands-dir", "daemon.auto",          "index.keep-versions",          "index.pack-contents",
    "index.history-commits",      "dense.max-source-mb",
    "dense.encoder.url",          "dense.encoder.model",  "dense.encoder.batch",          "dense.encoder.timeout-ms",
    "provider",                   "live.timeout-ms",      "live.c",                       "live.cpp",
    "live.python",                "live.javascript",      "live.typescript",              "live.trace-log",
    "calibration.threshold",      "calibration.min-samples", "calibration.samples-per-hour", "calibration.idle-ms"};

std::string_view trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return {};
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

}  // namespace

Expected<ProjectConfig> ProjectConfig::load(const std::filesystem::path& repoRoot) {
  std::filesystem::path file = repoRoot / kFileName;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return ProjectConfig();
  auto text = readFile(file);
  if (!text) return text.status();
  return parse(*text, file.string());
}

Expected<ProjectConfig> ProjectConfig::parse(std::string_view text, const std::string& origin) {
  ProjectConfig config;
  config.origin_ = origin;
  size_t lineNo = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineNo;
    if (line.empty() || line[0] == '#') continue;
    std::string where = origin + ":" + std::to_string(lineNo) + ": ";
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return Status(ErrorCode::InvalidArgument, where + "expected `key = value`");
    std::string key(trim(line.substr(0, eq)));
    std::string value(trim(line.substr(eq + 1)));
    bool known = false;
    for (const char* k : kKnownKeys) known = known || key == k;
    if (!known) {
      std::string list;
      for (const char* k : kKnownKeys) list += std::string(list.empty() ? "" : ", ") + k;
      return Status(ErrorCode::InvalidArgument, where + "unknown key '" + key + "' (known: " + list + ")");
    }
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    config.values_[key] = value;
  }
  return config;
}

std::optional<std::string> ProjectConfig::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

Expected<long long> ProjectConfig::getInt(const std::string& key, long long fallback, long long min, long long max) const {
  auto v = get(key);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end || errno || n < min || n > max)
    return Status(ErrorCode::InvalidArgument, origin_ + ": " + key + " must be an integer from " + std::to_string(min) +
                                                  " to " + std::to_string(max) + ", not '" + *v + "'");
  return n;
}

}  // namespace nib
