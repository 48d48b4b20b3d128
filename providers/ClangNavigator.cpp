#include "providers/ClangNavigator.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "providers/ClangNavigatorSites.h"
#include "support/Language.h"

namespace nib {

namespace {
// scip-typescript's name of a class's constructor: the class's symbol and this.
constexpr const char* kConstructor = "`<constructor>`().";
}  // namespace

using namespace clangnav;

ClangNavigator::ClangNavigator(std::unique_ptr<ClangView> view, std::function<bool(const std::string&)> changed,
                               std::string source)
    : view_(std::move(view)), source_(std::move(source)), scip_(source_ == "scip") {
  // A file the index holds no blob id of (a generated header) is as its stat signature says: a
  // changed one's sites are left out with the edited files' (nothing else notices it changed).
  changed_ = [changed = std::move(changed), view = view_.get()](const std::string& path) {
    return changed(path) || view->unindexedChanged(path);
  };
}

ClangNavigator::~ClangNavigator() = default;

bool ClangNavigator::covers(const std::string& path) { return !changed_(path) && view_->hasFile(path); }

std::vector<std::string> ClangNavigator::interpolatedFiles() {
  auto files = view_->interpolatedFiles();
  return files ? std::move(*files) : std::vector<std::string>{};
}

std::vector<std::string> ClangNavigator::sharedMainFiles() {
  auto files = view_->sharedMainFiles();
  return files ? std::move(*files) : std::vector<std::string>{};
}

const ClangFileOccurrence* ClangNavigator::occurrenceAt(const std::vector<ClangFileOccurrence>& occurrences,
                                                             uint32_t offset) {
  // The name under the cursor, or the one the cursor just left (editors put it after a name).
  // Several entities can be reported at one name (a constructor's name is also a reference to
  // its class): the declaration there wins, as occurrences at one offset are in role order.
  // What is not written at a place (a macro body's names at its expansion, a constructor named
  // implicitly) is never the name under the cursor: the macro, the qualifier, the alias is.
  // Occurrences at one offset come with the file's own unit's first (`foreign` ones after).
  const ClangFileOccurrence* at = nullptr;
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start > offset) break;
    // An empty occurrence (a module's definition at the start of its file) is no name.
    if (o.expanded || o.start == o.end) continue;
    bool contains = offset < o.end || (offset == o.end && !at);
    if (contains && (!at || o.start > at->start)) at = &o;
  }
  return at;
}

Expected<NavigationResult> ClangNavigator::answer(const std::string& path, uint32_t offset,
                                                                      bool references, bool includeDeclaration,
                                                                      bool declarations) {
  // A definition needs the symbol's definitions and declarations, not its references.
  auto named = namedAt(path, offset, /*allSites=*/references);
  if (!named && scip_ && !references && !declarations && named.status().code() == ErrorCode::NotFound)
    if (std::optional<NavigationResult> recorded = recordedDefinitionsAt(path, offset)) return std::move(*recorded);
  if (!named) return named.status();
  const std::vector<ClangFileOccurrence>* occurrences = &named->occurrences;
  const ClangFileOccurrence* at = &named->occurrences[named->at];
  ClangSymbol* symbol = &named->symbol;
  if (symbol->usr.rfind(kUsingDeclarationUsr, 0) == 0)
    return usingAnswer(path, *occurrences, *at, *symbol, references, includeDeclaration);
  if (symbol->usr.rfind(kDependentNameUsrPrefix, 0) == 0) return dependentNameAnswer(path, *occurrences, *symbol, references);
  if (!references && !declarations && !scip_)
    if (auto primary = specializedTemplateAnswer(*at, *symbol, path)) return std::move(*primary);
  // A call a template cannot resolve yet (`write(out, value)` with a dependent argument) names
  // every overload lookup found: libclang reports a reference to each at the one name, and
  // clangd answers with all of them. Other entities reported at one name (a class and its
  // constructor) differ in kind, and the first answers as above.
  if (at->role == ClangRole::Reference && static_cast<SymbolKind>(symbol->kind) == SymbolKind::Macro &&
      madeUpOnlyAt(*symbol, path, at->start) && !ownParseAt(*at, path))
    if (auto built = builtMacroAt(*occurrences, *at, path, references)) {
      at = built->first;
      named->symbol = std::move(built->second);
    }
  if (scip_ && at->role == ClangRole::Reference)
    if (auto both = contextualShorthand(*occurrences, *at, *symbol, path, references, includeDeclaration))
      return std::move(*both);
  // In the clang view the recorded answer is a rejected declaration's own place, which stands
  // only for a function defined nowhere (indexer/ClangInvalidDeclarations.cpp).
  auto undefined = [&] {
    return std::none_of(symbol->sites.begin(), symbol->sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; });
  };
  if (!references && !declarations && (scip_ || undefined()))
    if (std::optional<NavigationResult> called = calledDefinitions(*occurrences, *at, *symbol, path)) return std::move(*called);
  std::vector<ClangSymbol> overloads;
  if (at->role == ClangRole::Reference)
    for (const ClangFileOccurrence& o : *occurrences) {
      if (o.start != at->start || &o == at || o.role != ClangRole::Reference || o.expanded || o.symbol == at->symbol) continue;
      // What a unit that #includes this file sees here (a macro it defines otherwise) yields to
      // the file's own unit, whose view clangd answers from.
      if (o.foreign && !at->foreign) continue;
      auto other = view_->symbol(o.symbol);
      // Macros have no overloads (see builtMacroAt).
      if (other && other->name == symbol->name && other->kind == symbol->kind &&
          isCallableKind(static_cast<SymbolKind>(other->kind)) && static_cast<SymbolKind>(other->kind) != SymbolKind::Macro)
        overloads.push_back(std::move(*other));
    }
  if (scip_ && overloads.empty())
    if (std::optional<ClangSymbol> twin = importedTwin(*occurrences, *at, *symbol, path, references))
      overloads.push_back(std::move(*twin));
  if (scip_ && overloads.empty() && references)
    if (auto answer = libraryValueOutsideProjects(*at, *symbol, path, includeDeclaration)) return std::move(*answer);
  if (scip_ && overloads.empty() && !references)
    if (std::optional<ClangSymbol> merged = mergedNamespace(*occurrences, *at, *symbol, path))
      overloads.push_back(std::move(*merged));
  if (!overloads.empty()) {
    std::optional<NavigationResult> merged;
    overloads.insert(overloads.begin(), std::move(*symbol));
    for (const ClangSymbol& candidate : overloads) {
      auto one = answerFor(candidate, *at, path, references, includeDeclaration, declarations);
      if (isDeclined(one)) continue;
      if (!one) return one;
      if (!merged) {
        merged = std::move(*one);
        continue;
      }
      for (SymbolLocation& l : one->locations) merged->locations.push_back(std::move(l));
      if (merged->note.empty()) merged->note = one->note;
      if (one->confidence != Confidence::Exact) merged->confidence = one->confidence;
    }
    if (!merged) return declined();
    uniqueSites(merged->locations);
    return std::move(*merged);
  }
  // A shorthand's value may be an alias's use (`{ hello }` of `import { greet as hello }`), with
  // what the alias stands for beside it: the shorthand's own rule comes first.
  if (scip_)
    if (auto bound = shorthandAnswer(*occurrences, *at, *symbol, path, references, includeDeclaration))
      return std::move(*bound);
  if (scip_ && !references)
    if (std::optional<ClangSymbol> target = aliasTarget(*occurrences, *at, *symbol, path)) {
      auto result = answerFor(*target, *at, path, false, false, declarations);
      if (result) addConstructor(*occurrences, *at, *target, *result);  // `new Pth()`: the class and its constructor
      return result;
    }
  auto result = answerFor(*symbol, *at, path, references, includeDeclaration, declarations);
  if (scip_ && !references && result) addConstructor(*occurrences, *at, *symbol, *result);
  return result;
}

// `const yaml = require("./index")`: TypeScript's server goes through the alias to what it
// stands for (the module, or the value the module exports), at its uses and at its declaration
// alike. ScipImport keeps that target there as an expanded occurrence beside the alias (whose own
// symbol answers references); the only other expanded occurrences in a SCIP view are a class's
// constructor after `new` (addConstructor) and what TypeScript's server answers at a callee
// (calledDefinitions), which are no alias's target.
std::optional<ClangSymbol> ClangNavigator::aliasTarget(const std::vector<ClangFileOccurrence>& occurrences,
                                                         const ClangFileOccurrence& at, const ClangSymbol& named,
                                                         const std::string& path) {
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || !o.expanded || o.symbol == at.symbol) continue;
    auto target = view_->symbolForDefinition(o.symbol, path, at.start);  // a module has many references
    if (!target || target->usr == named.usr + kConstructor || target->usr.rfind(kCalledDefinitionsUsr, 0) == 0) continue;
    // An export the alias passes through (`export default Path;`, scip/TypeScriptExports) has
    // no declaration of its own: the declaration beyond it answers.
    if (std::none_of(target->sites.begin(), target->sites.end(), [](const ClangSite& s) { return s.role != ClangRole::Reference; }))
      continue;
    return std::move(*target);
  }
  return std::nullopt;
}

// `new X()`: TypeScript's server goes to the class and to its constructor. ScipImport keeps the
// constructor there as an expanded occurrence beside the class's.
void ClangNavigator::addConstructor(const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at,
                                    const ClangSymbol& cls, NavigationResult& out) {
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || !o.expanded || o.symbol == at.symbol) continue;
    auto constructor = view_->symbol(o.symbol);
    if (!constructor || constructor->usr != cls.usr + kConstructor) continue;
    // A class without a constructor of its own (ScipImport keeps one defined nowhere there)
    // is built by its nearest base class's, where TypeScript's server goes.
    if (std::none_of(constructor->sites.begin(), constructor->sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; }))
      if (auto inherited = inheritedConstructor(cls)) constructor = std::move(*inherited);
    for (const ClangSite& s : constructor->sites)
      if (s.role == ClangRole::Definition && !changed_(s.path)) out.locations.push_back(siteLocation(*constructor, s));
  }
}

// The constructor of the nearest base class that has one: breadth first up the base edges
// (scip-typescript relates a class to its base classes and the interfaces it implements, which
// have none).
std::optional<ClangSymbol> ClangNavigator::inheritedConstructor(const ClangSymbol& cls) {
  auto constructors = view_->symbolsNamed("constructor");
  if (!constructors) return std::nullopt;
  std::vector<uint32_t> pending = cls.bases;
  std::set<uint32_t> seen(pending.begin(), pending.end());
  for (size_t i = 0; i < pending.size() && i < 64; ++i) {
    auto base = view_->symbol(pending[i]);
    if (!base) continue;
    for (uint32_t id : *constructors) {
      auto c = view_->symbol(id);
      if (c && c->usr == base->usr + kConstructor &&
          std::any_of(c->sites.begin(), c->sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; }))
        return std::move(*c);
    }
    for (uint32_t next : base->bases)
      if (seen.insert(next).second) pending.push_back(next);
  }
  return std::nullopt;
}

namespace {

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
  std::set<std::pair<std::string, uint32_t>> changed;
  std::function<bool(const std::string&)> shown;  // files open in the editor (may be empty)
  // References of a TypeScript file: the files of its program (ClangNavigator::programOf), which
  // then decide instead of what only a made-up unit saw.
  const std::unordered_set<std::string>* program = nullptr;
  bool programOnly = false;  // `program`'s files only, the asked file and open files not apart
  size_t uncompiled = 0;  // sites left out: only a made-up unit saw them, or outside `program`
  // Definitions clangd's index most likely lacks (clangnav::minorityDefinitions), passed over.
  std::function<bool(const ClangSite&)> passOver;
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

// A virtual method's references, as clangd 14 answers them: every site of each method it
// overrides, up the hierarchy (their declarations count as references there), and, with
// declarations, the canonical declaration of each method overriding it directly.
// References as an SCIP source defines them: its `is_reference` relationships (stored as override
// edges, scip/ScipImport.h) say which symbols' references belong together — a method, the one it
// overrides or implements, and theirs — as TypeScript's find-references follows a member up and
// down its hierarchy. Every site of every symbol connected to `symbol` that way.
void collectReferenceFamily(ClangView& view, const ClangSymbol& symbol, SiteCollector& c) {
  std::vector<uint32_t> pending = symbol.overrides;
  pending.insert(pending.end(), symbol.overriddenBy.begin(), symbol.overriddenBy.end());
  std::set<uint32_t> seen(pending.begin(), pending.end());
  for (size_t i = 0; i < pending.size() && i < 1024; ++i) {
    auto s = view.symbol(pending[i]);
    if (!s) continue;
    if (s->usr == symbol.usr) continue;
    c.collect(*s, [](const ClangSite&) { return true; });
    for (const std::vector<uint32_t>* next : {&s->overrides, &s->overriddenBy})
      for (uint32_t id : *next)
        if (seen.insert(id).second) pending.push_back(id);
  }
}

void collectOverrides(ClangView& clang, const ClangSymbol& symbol, bool includeDeclaration, SiteCollector& c) {
  std::vector<uint32_t> up = symbol.overrides;
  std::set<uint32_t> seen(up.begin(), up.end());
  for (size_t i = 0; i < up.size() && i < 256; ++i) {
    auto u = clang.symbol(up[i]);
    if (!u) continue;
    c.collect(*u, [](const ClangSite&) { return true; });
    for (uint32_t next : u->overrides)
      if (seen.insert(next).second) up.push_back(next);
  }
  // An overrider's canonical declaration is where clangd's index records it: where its name is
  // spelled, which for one a macro declares (the destructor of every TEST_F class) is the
  // macro's body, so the twin left out of references is the one listed here. Its definition too,
  // as clangd's index knows it: where the override lies outside what the asked file's own parse
  // reads, the background index answers, which knows the definition; where that parse sees the
  // override (its preamble's index answers first), only a definition it reads as well (taglib's
  // Tag::setComment, overridden in each format's header and defined in its .cpp, against an
  // overrider declared beside the asked method).
  if (includeDeclaration) {
    std::optional<std::vector<std::string_view>> read;
    if (auto r = clang.filesReadBy(c.path); r && *r) read = std::move(**r);
    auto readByAsked = [&](const std::string& file) {
      return file == c.path || (read && std::find(read->begin(), read->end(), file) != read->end());
    };
    auto add = [&](const ClangSymbol& d, const ClangSite& s) {
      if (c.changedFile(s.path)) c.changed.insert({s.path, s.range.startByte});
      else c.out.locations.push_back(siteLocation(d, s));
    };
    for (uint32_t id : symbol.overriddenBy) {
      auto d = clang.symbol(id);
      if (!d) continue;
      bool seen = false;
      for (const ClangSite& s : d->sites)
        if (s.canonical) add(*d, s), seen = seen || readByAsked(s.path);
      for (const ClangSite& s : d->sites)
        if (s.role == ClangRole::Definition && !s.expanded && !s.interpolated && (!seen || readByAsked(s.path))) add(*d, s);
    }
  }
  uniqueSites(c.out.locations);  // a method reached twice (diamonds) is listed once
}

// Declarations as a definition answer (asked at the definition, or nothing is defined in the
// repository): clangd 14 goes to one, the canonical declaration (checked against it: a function
// declared in a header and again above its definition goes to the header's) — its AST's, the first
// the asked file's own parse meets (`met`), which wins its merge with the index's: socat's
// xio-streams.h, opened alone, answers its own `extern` declaration, not xio-fd.h's.
// A C function no header declares, which each unit declared implicitly at its first call (its
// only declarations are such, unlisted): to clangd each unit's own, so the asked file's answers.
void keepOwnImplicitDeclaration(const ClangSymbol& symbol, const std::string& path, std::vector<SymbolLocation>& locations) {
  if (static_cast<SymbolKind>(symbol.kind) != SymbolKind::Function) return;
  bool declared = false;
  for (const ClangSite& s : symbol.sites) {
    if (s.role == ClangRole::Reference) continue;
    if (s.role != ClangRole::Declaration || !s.unlisted) return;
    declared = true;
  }
  if (declared && std::any_of(locations.begin(), locations.end(), [&](const SymbolLocation& l) { return l.path == path; }))
    std::erase_if(locations, [&](const SymbolLocation& l) { return l.path != path; });
}

void keepCanonicalDeclaration(const ClangSymbol& symbol, const std::function<const ClangSite*()>& met,
                              std::vector<SymbolLocation>& locations) {
  bool onlyDeclarations = std::none_of(locations.begin(), locations.end(),
                                       [](const SymbolLocation& l) { return l.role == OccurrenceRole::Definition; });
  if (!onlyDeclarations || locations.size() <= 1) return;
  auto keep = locations.begin();
  // `met` walks the asked file's #includes: only here, where several declarations are left.
  for (const ClangSite* canonical : {met(), declarationSite(symbol)}) {
    if (!canonical) continue;
    keep = std::find_if(locations.begin(), locations.end(), [&](const SymbolLocation& l) {
      return l.path == canonical->path && l.range.startByte == canonical->range.startByte;
    });
    if (keep != locations.end()) break;
  }
  if (keep == locations.end()) keep = locations.begin();
  SymbolLocation one = std::move(*keep);
  locations.assign(1, std::move(one));
}

// Asked at the declaration of a method nothing in the repository defines (a pure virtual one),
// clangd 14 goes to it and to each method overriding it directly, at its definition (else its
// canonical declaration): the implementations are what such a name leads to.
void addOverridersOfPureMethod(ClangView& view, const ClangSymbol& symbol, const ClangFileOccurrence& at, SiteCollector& c) {
  if (static_cast<SymbolKind>(symbol.kind) != SymbolKind::Method || symbol.overriddenBy.empty() ||
      at.role != ClangRole::Declaration || at.expanded)
    return;
  if (std::any_of(symbol.sites.begin(), symbol.sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; }))
    return;
  for (uint32_t id : symbol.overriddenBy) {
    auto overrider = view.symbol(id);
    if (!overrider) continue;
    auto definition = std::find_if(overrider->sites.begin(), overrider->sites.end(), [](const ClangSite& s) {
      return s.role == ClangRole::Definition && !s.expanded;
    });
    const ClangSite* site = definition != overrider->sites.end() ? &*definition : declarationSite(*overrider);
    // One only a made-up unit saw (a benchmark no command builds) is no part of the build,
    // unless it is in front of the user.
    if (!site || (site->interpolated && site->path != c.path && !(c.shown && c.shown(site->path)))) continue;
    if (c.changedFile(site->path)) c.changed.insert({site->path, site->range.startByte});
    else c.out.locations.push_back(siteLocation(*overrider, *site));
  }
  uniqueSites(c.out.locations);
}

// What an answer left out, said in its note: references outside the program or the build;
// sites in files changed since the build, which also lower its confidence.
void noteLeftOut(const SiteCollector& c, bool scip, NavigationResult& out) {
  if (c.uncompiled > 0)
    out.note = std::to_string(c.uncompiled) +
               (c.program ? " reference(s) outside the TypeScript program this file is read in (its tsconfig.json's files, or "
                            "this file, and what they import) are left out"
                          : std::string(" reference(s) in files no ") + (scip ? "tsconfig.json includes" : "compile command builds") +
                                " are left out");
  if (!c.changed.empty()) {
    // Not the whole answer: the changed files' sites are unknown until they are compiled again.
    out.note = std::to_string(c.changed.size()) + " site(s) in files changed since the index was built are left out";
    out.confidence = Confidence::Name;
  }
}

// A definition answer where the sites the build saw gave none: the definition asked at, when it
// has no separate declaration; else what a made-up unit saw in a file the asked one reads (a
// header only uncompiled programs include): each such unit is a program of its own to clangd, so
// another uncompiled file's definition (a test's own `memcmp`, a fuzzer helper's source) is no
// answer here — clangd answers the declaration its parse sees; else, nothing being defined in
// the indexed code (a library function, a pure declaration), the declarations, where it can be
// seen. A declaration only a made-up unit's AST saw (C's implicit declaration of a library
// function at the first call in a header parsed alone: json-c's vsnprintf in
// vasprintf_compat.h) is that parse's own, no answer in another file, whose units see the system
// header's. Where still nothing answers, the compiler resolved the name to a declaration outside
// the repository (a system header's function, a member of a standard-library template; an SCIP
// indexer's symbol of a library): nothing inside the repository answers, and clangd answers the
// place the build saw outside it (outsideAnswer; an SCIP indexer records none). (The bare word used to answer here, and where
// libclang recorded no name, with a namesake of the repository's: on held-out set 24, answering
// nothing there made 72 of 1,600 requests equal clangd's answer, and none differ.)
Status definitionFallbacks(ClangView& view, bool scip, const ClangSymbol& symbol, ClangRole atRole, const std::string& path,
                           const std::function<bool(ClangRole)>& wanted, SiteCollector& c, NavigationResult& out) {
  auto othersImplicit = [&](const ClangSite& s) {
    return s.interpolated && s.unlisted && s.role == ClangRole::Declaration && s.path != path;
  };
  if (out.locations.empty() && atRole == ClangRole::Definition)
    c.collect(symbol, [](const ClangSite& s) { return s.role == ClangRole::Definition; });
  // A file the compilation database compiles saw, in every file its parse read, a real unit's
  // sites, never interpolated ones: what only a made-up unit saw there lies where that parse did
  // not look (a section its configuration leaves out: libSRTP's integers.h `typedef unsigned int
  // uint32_t;` under `#ifndef HAVE_UINT32_T`, live in a program no command builds that includes
  // it without config.h), and clangd answers from that parse (the C library's typedef, outside
  // the repository).
  bool compiled = !scip && view.compiledMainFile(path);
  if (out.locations.empty()) {
    if (!scip) {
      auto read = view.filesReadBy(path);
      if (!read) return read.status();
      if (*read) c.readByAsked = std::move(**read);
      c.onlyRead = true;
    }
    c.withInterpolated = !compiled;
    c.collect(symbol, [&](const ClangSite& s) { return wanted(s.role) && !othersImplicit(s); });
  }
  if (out.locations.empty())
    c.collect(symbol, [&](const ClangSite& s) { return s.role != ClangRole::Reference && !othersImplicit(s); });
  if (auto implicit = out.locations.empty() && !scip ? implicitTagDeclaration(view, symbol, path) : std::nullopt) {
    out.locations.push_back(siteLocation(symbol, *implicit));
    out.locations.back().role = OccurrenceRole::Declaration;
  }
  if (out.locations.empty() && c.passedOver && c.passOver) {  // what was passed over answers when nothing else does
    c.passOver = nullptr;
    return definitionFallbacks(view, scip, symbol, atRole, path, wanted, c, out);
  }
  if (out.locations.empty() && c.changed.empty()) outsideAnswer(view, symbol, scip ? "defined" : "declared", out);
  return Status::ok();
}

// What a definitions answer's collector passes over and takes in beyond the real units' sites:
// the definitions clangd's index most likely lacks (minorityDefinitions); and, in a source file no
// command builds, whose own made-up unit's parse is what clangd answers from, what that parse saw
// in the files it read (libmicrohttpd's unbuilt src/lib/ has an internal.h of its own;
// keepVisibleTypeDefinitions then keeps the struct it can see).
Status prepareDefinitions(ClangView& view, const std::string& path, const std::function<bool(const std::string&)>& shown,
                          SiteCollector& c) {
  c.passOver = minorityDefinitions(view, path, shown);
  if (!isCFamilySourceFile(path) || view.compiledMainFile(path)) return Status::ok();
  auto read = view.filesReadBy(path);
  if (!read) return read.status();
  if (*read) c.readByAsked = std::move(**read), c.withInterpolated = c.onlyRead = true;
  return Status::ok();
}

}  // namespace

// What the symbol is, for measuring agreement apart (providers/Agreement): macros and members in
// a hierarchy (the hard cases), symbols whose every site is in one file (locals, statics: the
// easy ones), else the symbol's kind.
std::string ClangNavigator::answerFacet(const ClangSymbol& symbol) {
  SymbolKind kind = static_cast<SymbolKind>(symbol.kind);
  if (kind == SymbolKind::Macro) return "macro";
  if (!symbol.overrides.empty() || !symbol.overriddenBy.empty()) return "override";
  bool oneFile = symbol.oneFile ? *symbol.oneFile
                                : !symbol.sites.empty() && std::all_of(symbol.sites.begin(), symbol.sites.end(), [&](const ClangSite& s) {
                                    return s.path == symbol.sites.front().path;
                                  });
  if (oneFile) return "file-local";
  return kind == SymbolKind::Unknown ? "" : symbolKindName(kind);
}

// The answer at a definition in `path`: in the clang view, the first declaration `path`'s own
// parse meets (the definition itself where none comes first). clangd's index of the open file
// has that declaration for the symbol's, and its symbol wins the merge with the background index,
// having the definition (spdlog's thread_pool.h meets none before `class thread_pool`; JsonCpp's
// reader.h meets forwards.h's `class CharReaderBuilder;`; each example's own `main`).
// In the precise view, which has no #includes: the definition that is the symbol's canonical
// declaration (the unit that defines it never saw another declaration first), nullptr when a
// declaration comes first. A made-up unit's canonical declaration in another file is not this
// file's: to clangd each such file is a program of its own, whose first declaration here is the
// symbol's.
const ClangSite* ClangNavigator::canonicalDefinition(const ClangSymbol& symbol, const std::string& path) {
  if (!scip_)
    if (const ClangSite* met = firstDeclarationMet(*view_, symbol, path, [&](const std::string& p) { return changed_(p) > 0; }))
      return met;
  const ClangSite* canonical = declarationSite(symbol);
  bool madeUpHere = std::any_of(symbol.sites.begin(), symbol.sites.end(), [&](const ClangSite& s) {
    return s.path == path && s.interpolated && s.role != ClangRole::Reference;
  });
  if (canonical && canonical->path != path && (canonical->interpolated || madeUpHere)) {
    if (madeUpHere) {
      const ClangSite* met = firstDeclarationMet(*view_, symbol, path, [&](const std::string& p) { return changed_(p) > 0; });
      if (met && met->path != path) return met;
    }
    const ClangSite* own = nullptr;
    for (const ClangSite& s : symbol.sites)
      if (s.path == path && s.role != ClangRole::Reference && (!own || s.range.startByte < own->range.startByte)) own = &s;
    if (own) return own->role == ClangRole::Definition && !changed_(path) ? own : nullptr;
  }
  if (canonical && canonical->canonical && canonical->role == ClangRole::Definition && !changed_(canonical->path))
    return canonical;
  return nullptr;
}

// An answer's labels before its locations: the symbol, the facts, the agreement category.
NavigationResult ClangNavigator::labelled(const ClangSymbol& symbol, const ClangFileOccurrence& at, const std::string& path) {
  NavigationResult out;
  out.symbol = symbol.name;
  out.source = source_;
  out.confidence = Confidence::Exact;
  out.facet = answerFacet(symbol);
  // Asked in code no compile command builds (a made-up unit's facts): its own category, since
  // the live server's answer there rests on a command it guesses too.
  bool uncompiledHere = std::any_of(symbol.sites.begin(), symbol.sites.end(), [&](const ClangSite& s) {
    return s.interpolated && s.path == path && s.range.startByte == at.start;
  });
  if (uncompiledHere) out.facet = kUncompiledFacet;
  // Asked in a file whose own parse had errors: what the compiler's recovery made of it, which
  // the live server's parse, with the same errors, may make otherwise.
  if (!scip_ && view_->parsedWithErrors(path)) out.facet = kParseErrorsFacet;
  // A member name that depends on a template parameter names what lookup in the primary
  // template found, as clangd's go-to-definition guesses it: an instantiation may differ.
  if (at.guessed) {
    out.confidence = Confidence::Name;
    out.note = "'" + symbol.name + "' depends on a template parameter: looked up in the primary template of its object's type";
  }
  return out;
}

// References as the asked file's own parse lists them there: not the sites only a unit
// #including it saw (`foreign`: in a header's section only an includer's #define turns on), as
// clangd's index of an open file replaces what its background index holds there; and, from an
// SCIP source, not a module's definition — its file's start, an empty range: the language's
// servers list the places that name the module, not that.
Status ClangNavigator::keepOwnReferences(const std::string& path, NavigationResult& out) {
  if (!scip_ && view_->mayHoldForeign(path)) {
    auto own = view_->occurrences(path);
    if (!own) return own.status();
    std::erase_if(out.locations, [&](const SymbolLocation& l) { return l.path == path && onlyForeignAt(*own, l.range.startByte); });
  }
  if (scip_) std::erase_if(out.locations, [](const SymbolLocation& l) { return l.range.startByte == l.range.endByte; });
  return Status::ok();
}

Expected<NavigationResult> ClangNavigator::answerFor(const ClangSymbol& found, const ClangFileOccurrence& atRef,
                                                                         const std::string& path, bool references,
                                                                         bool includeDeclaration, bool declarations) {
  const ClangSymbol* symbol = &found;
  const ClangFileOccurrence* at = &atRef;
  NavigationResult out = labelled(*symbol, *at, path);
  if (!references && static_cast<SymbolKind>(symbol->kind) == SymbolKind::Namespace &&
      namespaceDefinition(*symbol, at->symbol, path, out))
    return out;
  const bool enclosed = enclosedDeclaration(*symbol, path);
  if (enclosed) {
    out.facet = kEnclosedFacet;
    if (!references) {
      out.locations.push_back(siteLocation(*symbol, *ownDeclaration(*symbol, path)));
      return out;
    }
  }
  // Asked at the definition itself, "go to definition" goes to the declaration (and back), as
  // clangd answers: the definition is where the cursor already is.
  if (!references && at->role == ClangRole::Definition) {
    if (scip_ && typeScriptDefinitionsAt(*symbol, path, out)) return out;
    declarations = true;
    if (const ClangSite* own = canonicalDefinition(*symbol, path)) {
      out.locations.push_back(siteLocation(*symbol, *own));
      return out;
    }
  }
  auto wanted = [&](ClangRole role) {
    if (references) return role == ClangRole::Reference || includeDeclaration;
    return role == (declarations ? ClangRole::Declaration : ClangRole::Definition);
  };
  SiteCollector c{[&](const std::string& p) { return changed_(p) > 0; }, path, references, out};
  c.shown = shown_;
  if (references) c.program = programOverride_ ? programOverride_ : programOf(path);
  c.programOnly = references && programOverride_ && programOnly_;
  // Sites only a made-up unit saw (files no compile command reaches: another platform's
  // sources, examples, benchmarks not built, headers nothing includes) are not part of the
  // build: as definitions they answer for their own file, and elsewhere only when nothing else
  // does; references list those in the asked file and the files open in the editor only — the
  // compiled program plus the files in front of the user, as clangd merges its background index
  // with its index of open files — and the answer says how many it left out
  // (docs/index-format.md).
  c.withInterpolated = false;
  // clangd's index keeps no references to namespaces (a namespace is named everywhere), nor to
  // what an anonymous namespace declares (each program's own; yaml-cpp's tests include a
  // header of examples inside one): their references are the asked file's own, and nib
  // answers the same — but for a method that overrides or is overridden, whose family's
  // references clangd adds from its index (leveldb's EmptyIterator::SeekToFirst).
  const bool family = !symbol->overrides.empty() || !symbol->overriddenBy.empty();
  c.fileOnly = references && (enclosed || static_cast<SymbolKind>(symbol->kind) == SymbolKind::Namespace ||
                              symbol->usr.rfind(kPredefinedMacroUsr, 0) == 0 ||
                              (inAnonymousNamespace(symbol->usr) && !family));
  if (!references && !scip_)
    if (Status prepared = prepareDefinitions(*view_, path, shown_, c); !prepared.isOk()) return prepared;
  auto collect = [&](auto accept) { c.collect(*symbol, [&](const ClangSite& s) { return accept(s.role); }); };
  collect(wanted);
  if (references && !scip_ && static_cast<SymbolKind>(symbol->kind) == SymbolKind::Macro)
    if (Status undefined = addUndefinitions(*symbol, path, out); !undefined.isOk()) return undefined;
  if (references && (!symbol->overrides.empty() || !symbol->overriddenBy.empty())) {
    if (scip_) {
      collectReferenceFamily(*view_, *symbol, c);
      uniqueSites(out.locations);
    } else {
      collectOverrides(*view_, *symbol, includeDeclaration, c);
    }
  }
  if (references)
    if (Status own = keepOwnReferences(path, out); !own.isOk()) return own;
  if (!references)
    if (Status more = definitionFallbacks(*view_, scip_, *symbol, at->role, path, wanted, c, out); !more.isOk()) return more;
  if (!references) {
    keepOwnImplicitDeclaration(*symbol, path, out.locations);
    keepCanonicalDeclaration(*symbol, [&]() -> const ClangSite* {
      return scip_ ? nullptr : firstDeclarationMet(*view_, *symbol, path, [&](const std::string& p) { return changed_(p) > 0; });
    }, out.locations);
    keepVisibleTypeDefinitions(*symbol, path, out.locations);
    addOverridersOfPureMethod(*view_, *symbol, *at, c);
    if (!scip_) settleSeveralDefinitions(path, out);
  }
  noteLeftOut(c, scip_, out);
  if (references && !scip_) {
    size_t sections = leaveOutMinorityReferences(*view_, path, shown_, out.locations);
    size_t twins = symbol->id ? leaveOutFewerLanguageReferences(*view_, *symbol->id, path, shown_, out.locations) : 0;
    labelIncluderDependent(*view_, path, out, sections, twins);
  }
  if (references && !scip_ && at->unlisted) addOwnFriendSite(*symbol, *at, path, out);
  return out;
}

// Two programs of one build that define a type of one name differently (a test's own `struct
// Comparator` in the library's namespace: one USR) give it several definitions, and so each of
// its fields and enumerators of one name (nettle's generator eccdata.c has its own `struct
// ecc_curve`); a type's definition, with its members', is seen only where it is written or
// #included, so one in another source file that no unit includes, or in a header the asked
// file's units do not read (LibTomMath's tommath.h and its mtest program's mpi.h, each with its
// `typedef struct {...} mp_int;`), is no answer for this file — clangd answers the definition its
// parse of the file sees. Kept when nothing else is left.
void ClangNavigator::keepVisibleTypeDefinitions(const ClangSymbol& symbol, const std::string& path,
                                                std::vector<SymbolLocation>& locations) {
  const auto kind = static_cast<SymbolKind>(symbol.kind);
  const bool member = kind == SymbolKind::Field || kind == SymbolKind::EnumMember;
  if ((!isTypeKind(kind) && !member) || locations.size() < 2) return;
  std::vector<std::string> shared;
  if (auto s = view_->sharedMainFiles()) shared = std::move(*s);
  auto read = view_->filesReadBy(path);  // nullopt inside: no unit's main file, read unknown
  auto unread = [&](const std::string& p) {
    return read && *read && !std::binary_search((*read)->begin(), (*read)->end(), std::string_view(p));
  };
  auto hidden = [&](const SymbolLocation& l) {
    return l.role == OccurrenceRole::Definition && l.path != path &&
           ((isCFamilySourceFile(l.path) && std::find(shared.begin(), shared.end(), l.path) == shared.end()) ||
            unread(l.path));
  };
  // A type is defined once in a unit: where the asked file defines it, that definition is the one.
  if (std::any_of(locations.begin(), locations.end(),
                  [&](const SymbolLocation& l) { return l.role == OccurrenceRole::Definition && l.path == path; })) {
    std::erase_if(locations, [&](const SymbolLocation& l) { return l.role == OccurrenceRole::Definition && l.path != path; });
    return;
  }
  if (std::all_of(locations.begin(), locations.end(), hidden)) return;
  std::erase_if(locations, hidden);
}

// Definitions in two source files or more: one entity defined by several programs of the build
// (tools' and tests' own `die`). Where the asked file defines it, its unit sees that definition,
// which clangd answers from its parse; elsewhere clangd's index keeps one of them, so the answer
// lists them all in the category `several-definitions`.
void ClangNavigator::settleSeveralDefinitions(const std::string& path, NavigationResult& out) {
  auto inSource = [](const SymbolLocation& l) { return l.role == OccurrenceRole::Definition && isCFamilySourceFile(l.path); };
  std::set<std::string> files;
  for (const SymbolLocation& l : out.locations)
    if (inSource(l)) files.insert(l.path);
  if (files.size() < 2) return;
  if (files.count(path)) std::erase_if(out.locations, [&](const SymbolLocation& l) { return inSource(l) && l.path != path; });
  else out.facet = kSeveralDefinitionsFacet;
}

Expected<ClangNavigator::NamedAt> ClangNavigator::namedAt(const std::string& path, uint32_t offset, bool allSites) {
  // A file changed since the index was built is answered from its re-extracted tree-sitter
  // facts: the clang view describes the indexed text only.
  if (!covers(path)) return declined();
  auto occurrences = view_->occurrences(path);
  if (!occurrences) return occurrences.status();
  const ClangFileOccurrence* at = occurrenceAt(*occurrences, offset);
  // Where scip-typescript resolved no symbol in a file it read, TypeScript's own server has none
  // either (an unresolved name, a global of a missing library): no answer, rather than
  // tree-sitter's guesses by name. scip-python leaves out names pyright does resolve (builtins
  // such as `isinstance`): there tree-sitter answers, labelled.
  if (!at && scip_ && detectLanguage(path, "") != Language::Python)
    return Status(ErrorCode::NotFound, Reason::NoSymbol, "the indexer resolved no symbol here");
  if (!at) return declined();
  // What a unit #including the file whole saw, in its own configuration, is no name here: clangd
  // answers from the file's own parse (expat's xmltok_impl.c is all #ifdef'd out alone; a file
  // that needs its includer's declarations resolves nothing there).
  if (at->foreign) return declined();
  auto symbol = allSites ? view_->symbol(at->symbol) : view_->symbolForDefinition(at->symbol, path, at->start);
  if (!symbol) return symbol.status();
  // Where a macro's text spells a declaration its expansions write, the text is no code: the
  // word answers (preprocessorDefinition, preprocessorReferences), as clangd's.
  if (!scip_ && spelledInMacroText(*symbol, path, at->start)) return declined();
  // A header's macro as its own parse has it, where that is another than the units' occurrence
  // names: answered at that occurrence's place (a site of the macro's there, if no unit saw it).
  if (uint32_t own = scip_ ? at->symbol : ownParseMacro(*symbol, *at, path); own != at->symbol) {
    std::optional<ClangSite> ownUse;
    for (const ClangSite& s : symbol->sites)
      if (s.path == path && s.range.startByte == at->start && s.role == ClangRole::Reference) ownUse = s;
    for (const ClangFileOccurrence& o : *occurrences)
      if (o.start == at->start && o.symbol == own && o.role == ClangRole::Reference) at = &o, ownUse.reset();
    symbol = allSites ? view_->symbol(own) : view_->symbolForDefinition(own, path, at->start);
    if (!symbol) return symbol.status();
    if (ownUse) {
      auto place = std::find_if(symbol->sites.begin(), symbol->sites.end(), [&](const ClangSite& s) {
        return std::tie(s.path, s.range.startByte) > std::tie(ownUse->path, ownUse->range.startByte);
      });
      symbol->sites.insert(place, *ownUse);
    }
  }
  // A macro only the file's includer defines (before its #include) is no name in the file's own
  // parse either.
  if (!scip_ && static_cast<SymbolKind>(symbol->kind) == SymbolKind::Macro) {
    auto visible = visibleFrom(path, *symbol);
    if (!visible) return visible.status();
    if (!*visible) return declined();
  }
  size_t index = static_cast<size_t>(at - occurrences->data());
  return NamedAt{std::move(*occurrences), index, std::move(*symbol)};
}

Expected<NavigationResult> ClangNavigator::implementations(const std::string& path, uint32_t offset) {
  auto named = namedAt(path, offset);
  if (!named) return named.status();
  const ClangFileOccurrence* at = &named->occurrences[named->at];
  const ClangSymbol* symbol = &named->symbol;
  const bool method = !symbol->overrides.empty() || !symbol->overriddenBy.empty() ||
                      static_cast<SymbolKind>(symbol->kind) == SymbolKind::Method;
  // scip-python records the classes a class derives from, not the methods a method overrides:
  // its methods' implementations are not known.
  if (method && scip_ && detectLanguage(path, "") == Language::Python) return declined();
  NavigationResult out;
  out.symbol = symbol->name;
  out.source = source_;
  out.confidence = Confidence::Exact;
  std::vector<uint32_t> pending = method ? symbol->overriddenBy : symbol->derived;
  std::set<uint32_t> seen{at->symbol};
  size_t stale = 0;
  while (!pending.empty()) {
    uint32_t id = pending.back();
    pending.pop_back();
    if (!seen.insert(id).second) continue;
    auto s = view_->symbol(id);
    if (!s) continue;
    if (const ClangSite* where = shownSite(*s, &stale)) out.locations.push_back(siteLocation(*s, *where));
    for (uint32_t next : method ? s->overriddenBy : s->derived) pending.push_back(next);
  }
  uniqueSites(out.locations);
  if (stale) {
    out.confidence = Confidence::Name;
    out.note = std::to_string(stale) + " implementation(s) in files changed since the index was built left out";
  }
  return out;
}

}  // namespace nib
