#include "indexer/CommandInterpolation.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <map>
#include <tuple>

namespace nib {
namespace fs = std::filesystem;

namespace {

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The language a path's extension names, folded as clang folds headers into their language:
// 1 C (`.c`, `.h`), 2 C++, 0 another.
int languageOfPath(const std::string& path) {
  std::string ext = lowered(fs::path(path).extension().string());
  if (ext == ".c" || ext == ".h") return 1;
  if (ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".c++" || ext == ".hh" || ext == ".hpp" ||
      ext == ".hxx" || ext == ".h++" || ext == ".inl" || ext == ".ipp")
    return 2;
  return 0;
}

size_t commonPrefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The folder names of `path` from the innermost out, at most `count`, each longer than one byte.
std::vector<std::string> lastFolders(const fs::path& path, size_t count) {
  std::vector<std::string> out;
  fs::path folder = path.parent_path();
  for (size_t i = 0; i < count && folder.has_relative_path(); ++i, folder = folder.parent_path())
    if (std::string name = folder.filename().string(); name.size() > 1) out.push_back(name);
  return out;
}

}  // namespace

DonorIndex::DonorIndex(const std::vector<CompileCommand>& units) {
  std::map<std::string, const CompileCommand*> first;  // by path, sorted as clang sorts them
  for (const CompileCommand& c : units) first.emplace(c.file, &c);
  for (const auto& [file, command] : first) {
    Candidate c;
    c.lower = lowered(file);
    c.stem = lowered(fs::path(file).stem().string());
    c.folders = lastFolders(fs::path(c.lower), 4);
    c.language = languageOfPath(file);
    c.command = command;
    candidates_.push_back(std::move(c));
  }
}

const CompileCommand* DonorIndex::donorFor(const std::string& file) const {
  if (candidates_.empty()) return nullptr;
  const std::string lower = lowered(file);
  const fs::path asPath(lower);
  const std::string stem = asPath.stem().string();
  // The file's last two folders (short names skipped), and the path above them.
  std::vector<std::string> folders;
  std::string above;
  fs::path folder = asPath.parent_path();
  for (int i = 0; i < 2 && folder.has_relative_path(); ++i, folder = folder.parent_path()) {
    if (std::string name = folder.filename().string(); name.size() > 1) folders.push_back(name);
    above = folder.parent_path().string() + "/";
  }
  // A `.h` may be C or C++: no language is preferred for it.
  std::string ext = lowered(asPath.extension().string());
  const int preferred = ext == ".h" ? 0 : languageOfPath(lower);
  struct Score {
    bool preferred = false;
    int points = 0;
    size_t prefix = 0;
  };
  const Candidate* best = nullptr;
  Score top;
  for (const Candidate& c : candidates_) {
    Score s;
    s.points += c.stem.rfind(stem, 0) == 0 ? 1 : 0;
    s.points += c.stem == stem ? 1 : 0;
    for (const std::string& f : folders) s.points += static_cast<int>(std::count(c.folders.begin(), c.folders.end(), f));
    if (above != "/" && !above.empty() && c.lower.rfind(above, 0) == 0) ++s.points;
    if (s.points == 0) continue;
    s.preferred = preferred == 0 || c.language == preferred;
    s.prefix = commonPrefix(lower, c.lower);
    // Candidates are in path order: on a full tie the earlier one stays.
    if (!best || std::tie(s.preferred, s.points, s.prefix) > std::tie(top.preferred, top.points, top.prefix))
      best = &c, top = s;
  }
  if (!best) {
    // No point anywhere: the path next to the file's place in sorted order that shares more of
    // it (the one before on a tie), as clang finds the longest match.
    auto at = std::lower_bound(candidates_.begin(), candidates_.end(), lower,
                               [](const Candidate& c, const std::string& key) { return c.lower < key; });
    if (at == candidates_.begin()) return at->command;
    if (at == candidates_.end()) return std::prev(at)->command;
    return commonPrefix(lower, at->lower) > commonPrefix(lower, std::prev(at)->lower) ? at->command
                                                                                     : std::prev(at)->command;
  }
  return best->command;
}

CompileCommand interpolatedCommand(const CompileCommand& donor, const std::string& root, const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  CompileCommand c = donor;
  c.file = file;
  bool isHeader = ext[1] == 'h' || ext == ".inl" || ext == ".ipp";
  bool cDonor = fs::path(donor.file).extension() == ".c";
  bool cxxOnly = ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".hpp" || ext == ".hh" || ext == ".hxx";
  std::string language = cDonor && !cxxOnly ? (isHeader ? "c-header" : "c") : (isHeader ? "c++-header" : "c++");
  std::vector<std::string> args;
  std::string donorRel = donor.file.substr(root.size());
  for (size_t a = 0; a < c.arguments.size(); ++a) {
    const std::string& arg = c.arguments[a];
    bool isSource = arg == donor.file || arg == donorRel || (fs::path(c.directory) / arg).lexically_normal().string() == donor.file;
    if (a > 0 && isSource) {
      args.push_back("-x");
      args.push_back(language);
      args.push_back(c.file);
    } else {
      args.push_back(arg);
    }
  }
  c.arguments = std::move(args);
  return c;
}

}  // namespace nib
