// The sites of a symbol collected as a clang-view answer's locations, and the passes over them
// that ClangNavigator::answerFor runs (what each one does is said where it is defined, in
// ClangSiteCollector.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "providers/ClangNavigatorSites.h"
#include "providers/Navigation.h"
#include "support/Status.h"
#include "views/ClangView.h"

namespace nib::clangnav {

// Collects a symbol's sites as an answer's locations: those the query lists, less the sites in
// files changed since the build (counted in `changed`: they may have moved).
struct SiteCollector {
  std::function<bool(const std::string&)> changedFile;
  const std::string& path;  // the file asked about
  bool references = false;
  NavigationResult& out;
  bool fileOnly = false;          // the asked file's sites only
  // Sites only a made-up unit saw, in other files too: with `onlyRead`, those in the files the
  // asked file's own parse read (`readByAsked`, sorted; none when it has no unit of its own).
  bool withInterpolated = false;
  bool onlyRead = false;
  std::vector<std::string_view> readByAsked{};
  std::set<std::pair<std::string, uint32_t>> changed{};
  std::function<bool(const std::string&)> shown{};  // files open in the editor (may be empty)
  // References of a TypeScript file: the files of its program (ClangNavigator::programOf), which
  // then decide instead of what only a made-up unit saw.
  const std::unordered_set<std::string>* program = nullptr;
  bool programOnly = false;  // `program`'s files only, the asked file and open files not apart
  size_t uncompiled = 0;  // sites left out: only a made-up unit saw them, or outside `program`
  // Definitions clangd's index most likely lacks (clangnav::minorityDefinitions), passed over.
  std::function<bool(const ClangSite&)> passOver{};
  bool passedOver = false;

  template <typename Accept>
  void collect(const ClangSymbol& of, Accept accept) {
    bool bodyTwins = std::any_of(of.sites.begin(), of.sites.end(), [](const ClangSite& s) { return s.macroBody; });
    for (const ClangSite& s : of.sites) {
      if (!accept(s) || (fileOnly && s.path != path) || (references && s.unlisted)) continue;
      if (passOver && passOver(s)) {
        passedOver = true;
        continue;
      }
      if (program && references) {
        const bool in = program->count(s.path) > 0;
        if (programOnly ? !in : s.path != path && !in && !(shown && shown(s.path))) {
          ++uncompiled;
          continue;
        }
      } else if (s.interpolated && s.path != path && !(shown && shown(s.path)) &&
                 !(withInterpolated && (!onlyRead || std::binary_search(readByAsked.begin(), readByAsked.end(), s.path)))) {
        if (references) ++uncompiled;
        continue;
      }
      // A declaration a macro writes has two sites, as clangd answers: where the macro's text
      // spells it (definitions) and where the macro is expanded (references); one it pastes
      // together has only the second, for both.
      if (references ? s.macroBody : s.expanded && s.role != ClangRole::Reference && bodyTwins) continue;
      if (changedFile(s.path)) {
        changed.insert({s.path, s.range.startByte});
        continue;
      }
      out.locations.push_back(siteLocation(of, s));
    }
  }
};

void collectReferenceFamily(ClangView& view, const ClangSymbol& symbol, SiteCollector& c);
void collectOverrides(ClangView& clang, const ClangSymbol& symbol, bool includeDeclaration, SiteCollector& c);
void keepOwnImplicitDeclaration(const ClangSymbol& symbol, const std::string& path, std::vector<SymbolLocation>& locations);
void keepCanonicalDeclaration(const ClangSymbol& symbol, const std::function<const ClangSite*()>& met,
                              std::vector<SymbolLocation>& locations);
void addOverridersOfPureMethod(ClangView& view, const ClangSymbol& symbol, const ClangFileOccurrence& at, SiteCollector& c);
void noteLeftOut(const SiteCollector& c, bool scip, NavigationResult& out);
Status definitionFallbacks(ClangView& view, bool scip, const ClangSymbol& symbol, ClangRole atRole, const std::string& path,
                           const std::function<bool(ClangRole)>& wanted, SiteCollector& c, NavigationResult& out);
Status prepareDefinitions(ClangView& view, const std::string& path, const std::function<bool(const std::string&)>& shown,
                          SiteCollector& c);

}  // namespace nib::clangnav
