#include "providers/ClangSiteCollector.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "support/Language.h"

namespace nib::clangnav {

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

namespace {

// Whether a file is the asked one or one the asked file's own parse read (ClangView::filesReadBy,
// sorted; only the asked file where that is not known): what clangd 14's index of its open files
// — the asked file's parse and preamble — knows, and answers from before its background index.
class ReadByAsked {
 public:
  ReadByAsked(ClangView& view, const std::string& path) : path_(path) {
    if (auto r = view.filesReadBy(path); r && *r) read_ = std::move(**r);
  }
  bool operator()(std::string_view file) const {
    return file == path_ || (read_ && std::binary_search(read_->begin(), read_->end(), file));
  }

 private:
  const std::string& path_;
  std::optional<std::vector<std::string_view>> read_;
};

}  // namespace

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
    ReadByAsked readByAsked(clang, c.path);
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
// clangd 14 goes to it and to each method overriding it directly: the implementations are what
// such a name leads to. Each at its definition as clangd's index knows it, else its canonical
// declaration — the index of its open files first, as for the overriders among references
// (collectOverrides): one the asked file's own parse declares is answered at a definition that
// parse reads (an inline one), else at that declaration (ninja's StatusPrinter, declared beside
// the pure Status::BuildEdgeStarted in status.h and defined in status.cc: clangd answers the
// declaration in status.h); one declared elsewhere, at its definition wherever it is. Checked
// against clangd 14 with the asked file alone open.
void addOverridersOfPureMethod(ClangView& view, const ClangSymbol& symbol, const ClangFileOccurrence& at, SiteCollector& c) {
  if (static_cast<SymbolKind>(symbol.kind) != SymbolKind::Method || symbol.overriddenBy.empty() ||
      at.role != ClangRole::Declaration || at.expanded)
    return;
  if (std::any_of(symbol.sites.begin(), symbol.sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; }))
    return;
  ReadByAsked readByAsked(view, c.path);
  for (uint32_t id : symbol.overriddenBy) {
    auto overrider = view.symbol(id);
    if (!overrider) continue;
    const ClangSite* declaration = declarationSite(*overrider);
    const bool seen = declaration && readByAsked(declaration->path);
    auto definition = std::find_if(overrider->sites.begin(), overrider->sites.end(), [&](const ClangSite& s) {
      return s.role == ClangRole::Definition && !s.expanded && (!seen || readByAsked(s.path));
    });
    const ClangSite* site = definition != overrider->sites.end() ? &*definition : declaration;
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
    if (!scip && !c.onlyRead) {  // read once per answer (prepareDefinitions, an earlier pass)
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

}  // namespace nib::clangnav
