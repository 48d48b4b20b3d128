#include "providers/ClangNavigator.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "providers/ClangNavigatorSites.h"
#include "providers/ClangSiteCollector.h"
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
  else if (!scip_ && view_->designatorAt(path, at.start)) out.facet = kDesignatorFacet;
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
  SiteCollector c{.changedFile = [&](const std::string& p) { return changed_(p) > 0; }, .path = path, .references = references, .out = out};
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
