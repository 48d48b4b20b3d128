#include "scip/TypeScriptCalls.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "scip.pb.h"
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

std::vector<scip_sites::Planned> answerSites(const std::vector<CalledDefinitions>& calls, const std::vector<std::string>& files,
                                             const std::string& root) {
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < files.size(); ++i) index.emplace(files[i], i);
  std::unordered_map<std::string, std::string> texts;
  struct FileText {
    uint32_t file = 0;
    std::string relative;  // its path in the repository
    const std::string* text = nullptr;
  };
  auto fileOf = [&](const std::string& path) -> std::optional<FileText> {
    std::error_code ec;
    std::string absolute = std::filesystem::weakly_canonical(path, ec).string();
    auto it = index.find(absolute);
    if (ec || it == index.end() || absolute.compare(0, root.size(), root) != 0) return std::nullopt;
    auto text = texts.find(absolute);
    if (text == texts.end()) {
      auto read = readFile(absolute);
      if (!read) return std::nullopt;
      text = texts.emplace(absolute, std::move(*read)).first;
    }
    return FileText{it->second, absolute.substr(root.size()), &text->second};
  };
  std::vector<scip_sites::Planned> out;
  std::set<std::string> defined;  // answers whose definition sites are out already
  std::map<std::string, LineTable> tables;  // by path: the lines of the files answers name
  for (const CalledDefinitions& call : calls) {
    std::vector<scip_sites::Site> sites;
    std::vector<std::string> keys;
    for (const Location& l : call.definitions) {
      std::optional<FileText> file = fileOf(l.path);
      if (!file) {
        sites.clear();
        break;
      }
      const LineTable& lines = tables.try_emplace(l.path, *file->text).first->second;
      if (l.line >= lines.lineCount()) {
        sites.clear();
        break;
      }
      uint32_t start = lines.fromUnits(l.line, l.start, Encoding::Utf16), end = lines.fromUnits(l.line, l.end, Encoding::Utf16);
      uint32_t offset = 0;
      if (end <= start || !lines.offsetOf({l.line, start}, &offset)) {
        sites.clear();
        break;
      }
      sites.push_back({file->file, l.line, start, offset, end - start, scip::Definition});
      keys.push_back(file->relative + "@" + std::to_string(offset));
    }
    if (sites.empty()) continue;
    // Named by its locations, in order: the same answer at two callees is one symbol.
    std::string usr(kCalledDefinitionsUsr);
    for (const std::string& k : keys) usr += k + "|";
    usr += ";";
    if (defined.insert(usr).second)
      for (const scip_sites::Site& s : sites) out.push_back({s, usr});
    scip_sites::Site callee = call.callee;
    callee.roles = 0;
    out.push_back({callee, usr});
  }
  return out;
}

}  // namespace nib::typescript_calls
