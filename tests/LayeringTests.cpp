// The dependency direction of ARCHITECTURE.md, checked on the sources: a test fails when a file
// includes a layer it must not see, so that the layering cannot be broken by accident.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace nib::test {
namespace fs = std::filesystem;
namespace {

// The layers each folder may include besides itself.
const std::map<std::string, std::set<std::string>> kAllowed = {
    {"support", {}},
    {"views", {"support"}},
    {"indexer", {"views", "support"}},
    // SCIP read as unit facts (libprotobuf): only the nib-scip worker and the tests link it.
    {"scip", {"views", "support"}},
    {"protocol", {"support"}},
    // LiveProvider is the LSP client of the live backends: protocol/'s LspBackend.
    {"providers", {"views", "protocol", "support"}},
    // The server library stays free of the indexer (libgit2, tree-sitter): binaries inject it.
    {"server", {"providers", "views", "protocol", "support"}},
    {"cli", {"server", "providers", "protocol", "indexer", "scip", "views", "support"}},
};

// cli/ reaches views/ only through the index layout (a facade over `.nib`), except in the
// sources of the workers and modules that build views.
bool cliMayInclude(const std::string& file, const std::string& header) {
  if (header == "views/IndexLayout.h") return true;
  static const std::map<std::string, std::set<std::string>> workers = {
      {"IndexCommand.cpp",
       {"views/CommitView.h", "views/VersionComparison.h", "views/VersionDelta.h", "views/WorktreeSnapshot.h"}},
      {"dense_module.cpp", {"views/DenseView.h", "views/FaissDenseView.h"}},
  };
  auto it = workers.find(file);
  return it != workers.end() && it->second.count(header);
}

struct Include {
  std::string file, header;
};

std::vector<Include> includesOf(const fs::path& dir) {
  std::vector<Include> out;
  static const std::regex include(R"(^\s*#\s*include\s*[<"]([^">]+)[">])");
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp") continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, include)) out.push_back({entry.path().filename().string(), m[1]});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every layer includes only the layers below it", "[layering]") {
  const fs::path root = fs::path(NIB_TESTS_DIR).parent_path();
  size_t checked = 0;
  for (const auto& [layer, allowed] : kAllowed) {
    for (const Include& inc : includesOf(root / layer)) {
      ++checked;
      const std::string where = layer + "/" + inc.file + " includes " + inc.header;
      INFO(where);
      // Only protocol/ knows JSON.
      if (inc.header.rfind("nlohmann/", 0) == 0) CHECK(layer == "protocol");
      size_t slash = inc.header.find('/');
      if (slash == std::string::npos) continue;
      std::string target = inc.header.substr(0, slash);
      if (!kAllowed.count(target) || target == layer) continue;  // a system header, or the same layer
      CHECK(allowed.count(target) == 1);
      if (layer == "cli" && target == "views") CHECK(cliMayInclude(inc.file, inc.header));
    }
  }
  CHECK(checked > 300);  // the sources were found
}

}  // namespace nib::test
