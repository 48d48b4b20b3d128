#include "scip/TypeScriptCalls.h"

#include <charconv>
#include <filesystem>
#include <memory>
#include <unordered_map>

#include "support/FileIo.h"
#include "support/Text.h"
#include "views/ClangFacts.h"

namespace nib::typescript_calls {

namespace {

constexpr std::string_view kLauncherPrefix = "nib-definitions";

bool number(std::string_view text, uint32_t* out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

std::vector<std::string_view> fields(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    size_t tab = text.find('\t', at);
    out.push_back(text.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
    if (tab == std::string_view::npos) return out;
    at = tab + 1;
  }
}

}  // namespace

bool isLauncherOccurrence(std::string_view symbol) {
  return symbol.substr(0, kLauncherPrefix.size()) == kLauncherPrefix &&
         (symbol.size() == kLauncherPrefix.size() || symbol[kLauncherPrefix.size()] == '\t');
}

std::optional<std::vector<Location>> parse(std::string_view symbol) {
  std::vector<std::string_view> f = fields(symbol);
  if (f.empty() || f[0] != kLauncherPrefix || f.size() < 6 || (f.size() - 1) % 5 != 0) return std::nullopt;
  std::vector<Location> out;
  for (size_t i = 1; i + 4 < f.size(); i += 5) {
    Location l;
    uint32_t endLine = 0;
    l.path = std::string(f[i]);
    if (l.path.empty() || !number(f[i + 1], &l.line) || !number(f[i + 2], &l.start) || !number(f[i + 3], &endLine) ||
        !number(f[i + 4], &l.end) || endLine != l.line || l.end < l.start)
      return std::nullopt;
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<scip_sites::Planned> answerSites(const std::vector<CalledDefinitions>& calls, const std::string& root) {
  struct FileText {
    std::string relative;  // its path in the repository
    std::string text;
    LineTable lines;
    explicit FileText(std::string r, std::string t) : relative(std::move(r)), text(std::move(t)), lines(text) {}
  };
  std::unordered_map<std::string, std::unique_ptr<FileText>> files;  // by the path the answer spells
  auto fileOf = [&](const std::string& path) -> const FileText* {
    auto [it, added] = files.try_emplace(path);
    if (!added) return it->second.get();
    std::error_code ec;
    std::string absolute = std::filesystem::weakly_canonical(path, ec).string();
    if (ec || absolute.compare(0, root.size(), root) != 0) return nullptr;
    auto read = readFile(absolute);
    if (!read) return nullptr;
    it->second = std::make_unique<FileText>(absolute.substr(root.size()), std::move(*read));
    return it->second.get();
  };
  std::vector<scip_sites::Planned> out;
  for (const CalledDefinitions& call : calls) {
    std::vector<CalledLocation> places;
    for (const Location& l : call.definitions) {
      const FileText* file = fileOf(l.path);
      if (!file || l.line >= file->lines.lineCount()) break;
      uint32_t start = file->lines.fromUnits(l.line, l.start, Encoding::Utf16);
      uint32_t end = file->lines.fromUnits(l.line, l.end, Encoding::Utf16), offset = 0;
      if (end <= start || !file->lines.offsetOf({l.line, start}, &offset)) break;
      places.push_back({file->relative, l.line, start, offset, end - start});
    }
    // An answer with a place nib cannot name (outside the repository) is left out whole.
    if (places.empty() || places.size() != call.definitions.size()) continue;
    scip_sites::Site callee = call.callee;
    callee.roles = 0;
    out.push_back({callee, calledDefinitionsUsr(places)});
  }
  return out;
}

}  // namespace nib::typescript_calls
