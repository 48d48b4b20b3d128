// A clang (or precise) view's contents as sorted text, each symbol named by its USR and name
// instead of its id: two builds whose views say the same thing print the same text, whatever
// order their merges numbered the symbols in (a change to the worker or the merge that should
// not change any answer is checked this way; the view's bytes change with the numbering).
// Prints, one fact per line: every site of every symbol with its flags, each symbol's edges,
// outside site, minority-language headers and opened-outside mark; every file's occurrences and
// its varying and minority ranges, the files each main file read, its #includes and marks; the
// names table; the interpolated and shared files.
// Usage: nib_clang_view_dump VIEW_DIR   (e.g. .nib/versions/<id>/clang)
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "views/ClangView.h"

using namespace nib;

namespace {

std::string flags(std::initializer_list<std::pair<const char*, bool>> named) {
  std::string out;
  for (const auto& [name, on] : named)
    if (on) out += std::string(" ") + name;
  return out;
}

std::string range(uint32_t start, uint32_t end) { return " " + std::to_string(start) + "-" + std::to_string(end); }

// What a symbol's id stands for in the text: its USR and name.
struct Symbols {
  std::vector<ClangSymbol> all;
  std::string operator()(uint32_t id) const { return id < all.size() ? all[id].usr + " " + all[id].name : "?" + std::to_string(id); }
};

void symbolLines(ClangView& view, const Symbols& name, std::vector<std::string>& lines, std::set<std::string>& paths) {
  static const char* kEdges[] = {"overrides", "overridden-by", "base", "derived", "type", "specializes"};
  for (uint32_t id = 0; id < name.all.size(); ++id) {
    const ClangSymbol& s = name.all[id];
    const std::string head = "symbol " + name(id) + " kind " + std::to_string(s.kind);
    lines.push_back(head);
    for (const ClangSite& x : s.sites) {
      paths.insert(x.path);
      lines.push_back(head + " site " + x.path + range(x.range.startByte, x.range.endByte) + " role " +
                      std::to_string(static_cast<int>(x.role)) +
                      flags({{"call", x.call}, {"interpolated", x.interpolated}, {"canonical", x.canonical},
                             {"expanded", x.expanded}, {"macro-body", x.macroBody}, {"unlisted", x.unlisted}}));
    }
    size_t k = 0;
    for (const std::vector<uint32_t>* edges : s.edges()) {
      for (uint32_t other : *edges) lines.push_back(head + " " + kEdges[k] + " " + name(other));
      ++k;
    }
    if (std::optional<ClangOutsideSite> o = view.outsideSite(id))
      lines.push_back(head + " outside " + o->path + range(o->range.startByte, o->range.endByte) + flags({{"definition", o->definition}}));
    for (const std::string& header : view.minorityLanguageOf(id)) lines.push_back(head + " minority-language " + header);
    if (view.openedOutside(id)) lines.push_back(head + " opened-outside");
  }
}

void fileLines(ClangView& view, const Symbols& name, const std::string& p, std::vector<std::string>& lines) {
  if (auto occurrences = view.occurrences(p))
    for (const ClangFileOccurrence& o : *occurrences)
      lines.push_back("file " + p + range(o.start, o.end) + " role " + std::to_string(static_cast<int>(o.role)) + " " + name(o.symbol) +
                      flags({{"expanded", o.expanded}, {"guessed", o.guessed}, {"unlisted", o.unlisted}, {"foreign", o.foreign}}));
  for (const auto& [start, end] : view.varyingIn(p)) lines.push_back("varying " + p + range(start, end));
  for (const auto& [start, end] : view.minorityIn(p)) lines.push_back("minority " + p + range(start, end));
  if (auto read = view.filesReadBy(p); read && *read)
    for (std::string_view f : **read) lines.push_back("reads " + p + " " + std::string(f));
  if (auto inclusions = view.inclusionsIn(p))
    for (const auto& [offset, f] : *inclusions) lines.push_back("includes " + p + " " + std::to_string(offset) + " " + std::string(f));
  lines.push_back("marks " + p + flags({{"enclosed", view.enclosedFile(p)}, {"extern-c", view.externCFile(p)},
                                        {"foreign", view.mayHoldForeign(p)}, {"errors", view.parsedWithErrors(p)},
                                        {"compiled", view.compiledMainFile(p)}}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s VIEW_DIR\n", argv[0]);
    return 2;
  }
  auto opened = ClangView::open(argv[1]);
  if (!opened) {
    std::fprintf(stderr, "nib_clang_view_dump: %s\n", opened.status().message().c_str());
    return 1;
  }
  ClangView& view = **opened;
  Symbols name;
  for (uint32_t id = 0;; ++id) {
    auto s = view.symbol(id);
    if (!s) break;
    name.all.push_back(std::move(*s));
  }
  std::vector<std::string> lines;
  std::set<std::string> paths;
  symbolLines(view, name, lines, paths);
  for (const std::string& p : paths) fileLines(view, name, p, lines);
  std::set<std::string> names;
  for (const ClangSymbol& s : name.all) names.insert(s.name);
  for (const std::string& n : names)
    if (auto ids = view.symbolsNamed(n))
      for (uint32_t id : *ids) lines.push_back("named " + n + " " + name(id));
  if (auto files = view.interpolatedFiles())
    for (const std::string& f : *files) lines.push_back("interpolated " + f);
  if (auto files = view.sharedMainFiles())
    for (const std::string& f : *files) lines.push_back("shared " + f);
  std::sort(lines.begin(), lines.end());
  for (const std::string& line : lines) std::cout << line << '\n';
  return 0;
}
