#include "support/CompilationDatabase.h"

#include <algorithm>
#include <vector>

namespace nib {
namespace fs = std::filesystem;

fs::path findCompilationDatabase(const fs::path& root, const fs::path& given, const ProjectConfig* config,
                                 const std::function<void(const std::string&)>& warn) {
  fs::path configured = given;
  if (configured.empty() && config)
    if (auto v = config->get("clang.compile-commands-dir")) {
      fs::path named = fs::path(*v).lexically_normal();
      if (named.is_absolute() || named.empty() || *named.begin() == "..") {
        if (warn)
          warn(".nib.conf's clang.compile-commands-dir (" + *v + ") is outside the repository and is ignored: "
               "give it with `nib index --compile-commands-dir`");
      } else {
        configured = named;
      }
    }
  std::error_code ec;
  if (!configured.empty()) return configured.is_absolute() ? configured : root / configured;
  if (fs::exists(root / "compile_commands.json", ec)) return root;
  std::vector<fs::path> builds;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind("build", 0) == 0 &&
        fs::exists(e.path() / "compile_commands.json", ec))
      builds.push_back(e.path());
  std::sort(builds.begin(), builds.end());
  return builds.empty() ? fs::path() : builds.front();
}

}  // namespace nib
