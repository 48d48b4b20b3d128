// ClangNavigator's answers from the precise view where TypeScript's server answers by rules of
// its own that SCIP's symbols do not carry: at a declaration, and at a name a destructuring
// pattern binds. (The rules SCIP's text decides are ScipImport's; a call's overload is
// StaticProvider's, providers/TypeScriptOverloads.)
#include <algorithm>
#include <cstdlib>

#include "providers/ClangNavigator.h"
#include "providers/ClangNavigatorSites.h"
#include "support/Language.h"

namespace nib {

using namespace clangnav;

namespace {

bool typeScriptFamily(const std::string& path) {
  const Language l = detectLanguage(path, "");
  return l == Language::TypeScript || l == Language::Tsx || l == Language::JavaScript;
}

}  // namespace

// Asked at a declaration, TypeScript's server answers the symbol's declarations: every one (a
// class and the interface merged with it, a namespace's blocks) — but for a function or method
// declared by several signatures (overloads), where scip-typescript writes each signature and
// the implementation as a definition of one symbol, the implementation only: the declarations
// with a body, else the last one (the implementation always follows its signatures). False
// when the symbol has no definition site to answer with here.
bool ClangNavigator::typeScriptDefinitionsAt(const ClangSymbol& symbol, const std::string& path, NavigationResult& out) {
  if (!typeScriptFamily(path) || changed_(path)) return false;
  std::vector<const ClangSite*> sites;
  for (const ClangSite& s : symbol.sites)
    if (s.role == ClangRole::Definition && !s.expanded && !changed_(s.path)) sites.push_back(&s);
  if (sites.empty()) return false;
  if (isCallableKind(static_cast<SymbolKind>(symbol.kind))) {
    const ClangSite* last = nullptr;
    for (const ClangSite* s : sites)
      if (s->path == path && (!last || s->range.startByte > last->range.startByte)) last = s;
    if (last) sites.assign(1, last);
  }
  for (const ClangSite* s : sites) out.locations.push_back(siteLocation(symbol, *s));
  return true;
}

std::optional<NavigationResult> ClangNavigator::calledDefinitions(const std::vector<ClangFileOccurrence>& occurrences,
                                                                  const ClangFileOccurrence& at, const ClangSymbol& named,
                                                                  const std::string& path) {
  // The clang view's are a rejected declaration's own place (indexer/ClangInvalidDeclarations).
  if ((scip_ && !typeScriptFamily(path)) || changed_(path)) return std::nullopt;
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || !o.expanded || o.role != ClangRole::Reference) continue;
    auto answer = view_->symbolForDefinition(o.symbol, path, o.start);
    std::optional<std::vector<CalledLocation>> places = answer ? calledDefinitionsOf(answer->usr) : std::nullopt;
    if (!places) continue;
    NavigationResult out;
    out.symbol = named.name;
    out.source = source_;
    out.confidence = Confidence::Exact;
    out.facet = answerFacet(named);
    for (const CalledLocation& l : *places) {
      // A place in an edited file may have moved: nib's own answer, which knows, stands.
      if (changed_(l.path)) return std::nullopt;
      SymbolLocation loc;
      loc.path = l.path;
      loc.range.startByte = l.offset;
      loc.range.endByte = l.offset + l.length;
      loc.range.start = {l.line, l.column};
      loc.range.end = {l.line, l.column + l.length};
      loc.fullRange = loc.range;
      loc.name = named.name;
      loc.kind = static_cast<SymbolKind>(named.kind);
      loc.role = OccurrenceRole::Definition;
      loc.ascii = false;
      out.locations.push_back(std::move(loc));
    }
    return out;
  }
  return std::nullopt;
}

std::optional<NavigationResult> ClangNavigator::recordedDefinitionsAt(const std::string& path, uint32_t offset) {
  if (!typeScriptFamily(path) || changed_(path)) return std::nullopt;
  auto occurrences = view_->occurrences(path);
  if (!occurrences) return std::nullopt;
  for (const ClangFileOccurrence& o : *occurrences) {
    if (o.start > offset) break;
    if (!o.expanded || o.role != ClangRole::Reference || offset > o.end) continue;
    ClangSymbol unnamed;  // the name has no symbol: the answer carries none
    if (auto answer = calledDefinitions(*occurrences, o, unnamed, path)) return answer;
  }
  return std::nullopt;
}

// A shorthand name declares one symbol and names another, and scip-typescript writes both there:
// in a destructuring pattern (`function f({ location }: Token)`) a local and the type's member (or
// the object literal's property, `const { S_IFSOCK } = constants`), in
// an object literal (`{ greet }`) the object's property (a meta descriptor, `api.greet0:`) and
// the value. TypeScript's server goes to the other one's declaration — the member; the value's,
// which for an imported name is its import (shorthandImport) — and lists the references of both.
// nullopt elsewhere.
std::optional<Expected<NavigationResult>> ClangNavigator::shorthandAnswer(
    const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at, const ClangSymbol& declared,
    const std::string& path, bool references, bool includeDeclaration) {
  if (at.role != ClangRole::Definition || declared.usr.empty() || !typeScriptFamily(path)) return std::nullopt;
  const bool pattern = declared.usr.rfind("local:", 0) == 0, literal = declared.usr.back() == ':';
  if (!pattern && !literal) return std::nullopt;
  if (literal && !references)
    if (std::optional<NavigationResult> import = shorthandImport(occurrences, at, path)) return std::move(*import);
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || o.role != ClangRole::Reference || o.expanded || o.symbol == at.symbol) continue;
    auto named = references ? view_->symbol(o.symbol) : view_->symbolForDefinition(o.symbol, path, o.start);
    // A type's member (`Token#location.`) or an object literal's property (`S_IFSOCK0:`); an
    // object literal's value of the shorthand's own name (not the type of an annotated import,
    // which scip-typescript can write there).
    if (!named || (pattern && named->usr.find('#') == std::string::npos && named->usr.back() != ':') ||
        (literal && named->name != declared.name))
      continue;
    auto answer = answerFor(*named, o, path, references, includeDeclaration, false);
    if (!answer || !references) return answer;
    auto own = answerFor(declared, at, path, true, includeDeclaration, false);
    if (!own) return own;
    for (SymbolLocation& l : own->locations) answer->locations.push_back(std::move(l));
    uniqueSites(answer->locations);
    return answer;
  }
  return std::nullopt;
}

// `{ depth }` where the object has a contextual type: ScipImport wrote the type's property and the
// value there, both as references; TypeScript's server goes to both and lists the references of
// both. nullopt elsewhere.
std::optional<Expected<NavigationResult>> ClangNavigator::contextualShorthand(const std::vector<ClangFileOccurrence>& occurrences,
                                                                              const ClangFileOccurrence& at, const ClangSymbol& named,
                                                                              const std::string& path, bool references,
                                                                              bool includeDeclaration) {
  if (!typeScriptFamily(path)) return std::nullopt;
  auto member = [](const std::string& usr) {  // `Parsed#variadic.`, not a type nor a local (`local:PATH#N`)
    size_t hash = usr.rfind('#');
    return usr.rfind("local:", 0) != 0 && hash != std::string::npos && hash + 1 < usr.size();
  };
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || o.role != ClangRole::Reference || o.expanded || o.symbol == at.symbol) continue;
    auto other = references ? view_->symbol(o.symbol) : view_->symbolForDefinition(o.symbol, path, o.start);
    if (!other || other->name != named.name || member(other->usr) == member(named.usr)) continue;
    auto answer = answerFor(named, at, path, references, includeDeclaration, false);
    if (!answer) return answer;
    auto second = answerFor(*other, o, path, references, includeDeclaration, false);
    if (!second) return second;
    for (SymbolLocation& l : second->locations) answer->locations.push_back(std::move(l));
    uniqueSites(answer->locations);
    return answer;
  }
  return std::nullopt;
}

// `{ greet }` of an imported `greet`: TypeScript's server goes to the import, not through it.
// ScipImport put the import's local symbol beside the shorthand, named by the import's offset
// (`local:PATH#import@OFFSET`); its site there answers.
std::optional<NavigationResult> ClangNavigator::shorthandImport(const std::vector<ClangFileOccurrence>& occurrences,
                                                                const ClangFileOccurrence& at, const std::string& path) {
  static const std::string kImportMark = "#import@";
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || o.symbol == at.symbol) continue;
    auto alias = view_->symbol(o.symbol);
    if (!alias || alias->usr.rfind("local:", 0) != 0) continue;
    size_t mark = alias->usr.rfind(kImportMark);
    if (mark == std::string::npos) continue;
    uint32_t offset = static_cast<uint32_t>(std::strtoul(alias->usr.c_str() + mark + kImportMark.size(), nullptr, 10));
    for (const ClangSite& s : alias->sites) {
      if (s.path != path || s.range.startByte != offset || changed_(s.path)) continue;
      NavigationResult out;
      out.symbol = alias->name;
      out.source = source_;
      out.confidence = Confidence::Exact;
      out.facet = answerFacet(*alias);
      out.locations.push_back(siteLocation(*alias, s));
      return out;
    }
  }
  return std::nullopt;
}

// A class, enum or interface merged with a namespace of its name, or a namespace merged with a
// function, is one symbol to TypeScript, declared by both, and its server goes to both from any
// use and from either declaration; scip-typescript names them apart (`Visitor#`, `Visitor/`,
// `server().`). Not from `new X()` where the class has a constructor (the class and the
// constructor answer there), nor from a function's name (scip-typescript writes the function's
// symbol at `server(1)` and `server.x` alike, and a call goes to the function alone). The
// namespace or the declaration merged with it, if any.
std::optional<ClangSymbol> ClangNavigator::mergedNamespace(const std::vector<ClangFileOccurrence>& occurrences,
                                                           const ClangFileOccurrence& at, const ClangSymbol& named,
                                                           const std::string& path) {
  const std::string& usr = named.usr;
  if (usr.size() < 2 || (usr.back() != '#' && usr.back() != '/') || !typeScriptFamily(path)) return std::nullopt;
  const std::string base = usr.substr(0, usr.size() - 1);
  std::vector<std::string> twins = usr.back() == '#' ? std::vector<std::string>{base + "/"}
                                                     : std::vector<std::string>{base + "#", base + "().", base + "."};
  if (usr.back() == '#')
    for (const ClangFileOccurrence& o : occurrences) {
      if (o.start != at.start || !o.expanded || o.symbol == at.symbol) continue;
      auto constructor = view_->symbol(o.symbol);
      if (constructor && constructor->usr == usr + "`<constructor>`()." &&
          std::any_of(constructor->sites.begin(), constructor->sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; }))
        return std::nullopt;
    }
  auto ids = view_->symbolsNamed(named.name);
  if (!ids) return std::nullopt;
  for (uint32_t id : *ids)
    if (auto candidate = view_->symbolForDefinition(id, path, at.start);
        candidate && std::find(twins.begin(), twins.end(), candidate->usr) != twins.end())
      return std::move(*candidate);
  return std::nullopt;
}

// A name declared both as a type and as a value (`interface Opts` and `const Opts`):
// TypeScript's server goes to both declarations from any use; in a file that imports the name,
// the import binds both, so it also lists the references of both there (where no import binds it
// — the standard library's `Error`, or in its own file — each use keeps its meaning: ScipImport
// kept one symbol there). The twin of `named` to answer with too, if any.
std::optional<ClangSymbol> ClangNavigator::importedTwin(const std::vector<ClangFileOccurrence>& occurrences,
                                                        const ClangFileOccurrence& at, const ClangSymbol& named,
                                                        const std::string& path, bool references) {
  const std::string& usr = named.usr;
  if (usr.size() < 2 || (usr.back() != '#' && usr.back() != '.') || !typeScriptFamily(path)) return std::nullopt;
  const std::string twin = usr.substr(0, usr.size() - 1) + (usr.back() == '#' ? '.' : '#');
  if (!references) {
    auto ids = view_->symbolsNamed(named.name);
    if (!ids) return std::nullopt;
    for (uint32_t id : *ids)
      if (auto candidate = view_->symbolForDefinition(id, path, at.start); candidate && candidate->usr == twin) return std::move(*candidate);
    return std::nullopt;
  }
  // Occurrences are in offset order: each run of one offset is looked at once.
  for (size_t from = 0; from < occurrences.size();) {
    size_t to = from;
    while (to < occurrences.size() && occurrences[to].start == occurrences[from].start) ++to;
    bool named = false;
    for (size_t i = from; i < to; ++i) named = named || (occurrences[i].symbol == at.symbol && !occurrences[i].expanded);
    for (size_t i = from; named && i < to; ++i) {
      const ClangFileOccurrence& other = occurrences[i];
      if (other.symbol == at.symbol || other.expanded) continue;
      auto candidate = view_->symbol(other.symbol);
      if (candidate && candidate->usr == twin) return std::move(*candidate);
    }
    from = to;
  }
  return std::nullopt;
}

// TypeScript's server answers references from the programs loaded while the asked file is
// open: the one it is read in — its tsconfig.json project's root files and everything they
// import, or, for a file no tsconfig.json includes, the file and what it imports (an inferred
// project) together with every tsconfig.json project in a folder above it (the server loads
// each one on its way up, looking for one that includes the file) — not the repository's other
// projects (a test folder's own tsconfig.json) unless their files are open. A composite
// project's file opens with the projects above it too (tsconfig.json files in the folders
// above, which the server loads to see whether they are solutions referencing it).
const std::unordered_set<std::string>* ClangNavigator::programOf(const std::string& path) {
  if (!scip_ || !typeScriptFamily(path)) return nullptr;
  if (!programs_) {
    auto read = view_->programs();
    programs_ = read ? std::move(*read) : std::nullopt;
  }
  if (!*programs_) return nullptr;
  const ProgramTable& table = **programs_;
  auto closure = [&](std::vector<std::string> pending, std::unordered_set<std::string>& out) {
    out.insert(pending.begin(), pending.end());
    while (!pending.empty()) {
      std::string file = std::move(pending.back());
      pending.pop_back();
      auto it = table.files.find(file);
      if (it == table.files.end()) continue;
      for (const std::string& next : it->second.imports)
        if (out.insert(next).second) pending.push_back(next);
    }
  };
  auto projectProgram = [&](uint32_t project) -> const std::unordered_set<std::string>& {
    auto [it, added] = projectPrograms_.try_emplace(project);
    if (added) {
      std::vector<std::string> roots;
      for (const auto& [file, program] : table.files)
        if (std::find(program.projects.begin(), program.projects.end(), project) != program.projects.end()) roots.push_back(file);
      closure(std::move(roots), it->second);
    }
    return it->second;
  };
  // The projects of the tsconfig.json files in the folders above `folder` (not its own).
  auto above = [&](const std::string& folder, auto each) {
    for (uint32_t project = 1; project <= table.folders.size(); ++project) {
      const std::string& f = table.folders[project - 1];
      if (f == folder || !(f.empty() || folder.compare(0, f.size() + 1, f + "/") == 0)) continue;
      each(project);
    }
  };
  auto own = table.files.find(path);
  if (own != table.files.end() && !own->second.projects.empty()) {
    const uint32_t project = own->second.projects.front();
    const bool composite = project <= table.composite.size() && table.composite[project - 1];
    if (!composite) return &projectProgram(project);
    // A composite project's file opens with the projects above it, which might be solutions
    // referencing it (TypeScript's server loads them to find out, and searches them).
    auto [it, added] = compositePrograms_.try_emplace(project);
    if (added) {
      it->second = projectProgram(project);
      above(table.folders[project - 1], [&](uint32_t other) {
        const std::unordered_set<std::string>& files = projectProgram(other);
        it->second.insert(files.begin(), files.end());
      });
    }
    return &it->second;
  }
  if (looseProgram_.first != path) {
    looseProgram_.first = path;
    looseInferred_.clear();
    looseAbove_.clear();
    closure({path}, looseInferred_);
    above(path, [&](uint32_t project) {
      const std::unordered_set<std::string>& files = projectProgram(project);
      looseAbove_.insert(files.begin(), files.end());
    });
    looseProgram_.second = looseInferred_;
    looseProgram_.second.insert(looseAbove_.begin(), looseAbove_.end());
  }
  return &looseProgram_.second;
}

std::optional<ClangNavigator::LooseParts> ClangNavigator::looseParts(const std::string& path) {
  const std::unordered_set<std::string>* program = programOf(path);
  if (!program || program != &looseProgram_.second) return std::nullopt;
  return LooseParts{&looseInferred_, &looseAbove_};
}

// Asked at a standard-library value that is also a type (`new Date`, `Promise.all`) in a file no
// tsconfig.json's project reads, TypeScript's server lists the value's uses in the file's
// inferred program and, from the projects above it (which it loads on its way up), the symbol's
// uses as their programs find it by its first declaration — `interface Date`, the type: the
// type's uses there (not the value's, not the asked file's own type uses).
std::optional<NavigationResult> ClangNavigator::libraryValueOutsideProjects(const ClangFileOccurrence& at,
                                                                           const ClangSymbol& named, const std::string& path,
                                                                           bool includeDeclaration) {
  // A standard-library declaration of the name, of that kind (".../`lib.es5.d.ts`/Date." for a
  // value), not a member.
  const std::string& name = named.name;
  auto library = [&](const std::string& usr, char suffix) {
    return usr.size() > name.size() + 1 && usr.back() == suffix && usr.find(" lib/`lib.") != std::string::npos &&
           usr.compare(usr.size() - name.size() - 2, name.size() + 1, "/" + name) == 0;
  };
  if (!library(named.usr, '.')) return std::nullopt;
  auto parts = looseParts(path);
  if (!parts || parts->above->empty()) return std::nullopt;
  auto ids = view_->symbolsNamed(name);
  if (!ids) return std::nullopt;
  std::vector<ClangSymbol> types;  // one per library file declaring it (`Array#` in several)
  for (uint32_t id : *ids)
    if (auto candidate = view_->symbol(id); candidate && library(candidate->usr, '#')) types.push_back(std::move(*candidate));
  if (types.empty()) return std::nullopt;
  struct Restore {
    ClangNavigator* self;
    ~Restore() {
      self->programOverride_ = nullptr;
      self->programOnly_ = false;
    }
  } restore{this};
  programOverride_ = parts->inferred;
  auto out = answerFor(named, at, path, true, includeDeclaration, false);
  if (!out || isDeclined(out)) return std::nullopt;
  programOverride_ = parts->above;
  programOnly_ = true;
  for (const ClangSymbol& type : types)
    if (auto more = answerFor(type, at, path, true, includeDeclaration, false); more && !isDeclined(more))
      for (SymbolLocation& l : more->locations) out->locations.push_back(std::move(l));
  uniqueSites(out->locations);
  return std::move(*out);
}

}  // namespace nib
