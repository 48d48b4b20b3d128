// StaticProvider's side of libclang's facts: which files the clang view covers, the label of a
// C/C++ answer it could not give, the call graph's callees from clang's references, the type
// hierarchy, and the names of statements libclang dropped for their errors (recovered by the
// file's scopes). The answers themselves are ClangNavigator's.
#include "providers/StaticProvider.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "providers/ClangNavigatorSites.h"
#include "providers/TypeScriptOverloads.h"
#include "support/CodeIdentifiers.h"
#include "support/FileIo.h"
#include "support/Text.h"

namespace nib {

bool StaticProvider::hasClangFacts(const std::string& path) { return clang_ && clang_->covers(path); }

bool StaticProvider::preciseRead(const std::string& path) { return precise_ && precise_->view().hasFile(path); }

void StaticProvider::setShownFiles(std::function<bool(const std::string& path)> shown) {
  if (precise_) precise_->setShown(shown);  // TypeScript files no tsconfig.json includes, likewise
  if (clang_) clang_->setShown(std::move(shown));
}

std::vector<std::string> StaticProvider::clangInterpolatedFiles() {
  return clang_ ? clang_->interpolatedFiles() : std::vector<std::string>{};
}

std::vector<std::string> StaticProvider::preciseInterpolatedFiles() {
  return precise_ ? precise_->interpolatedFiles() : std::vector<std::string>{};
}

std::vector<std::string> StaticProvider::clangSharedMainFiles() {
  return clang_ ? clang_->sharedMainFiles() : std::vector<std::string>{};
}

Expected<std::string> StaticProvider::indexedText(const std::string& path) {
  auto record = file(path);
  if (!record) return Status(ErrorCode::NotFound, path + " is not in the index");
  return reader_->content(record->blobOid);
}

ClangNavigator::AskedFile StaticProvider::asked(const LoadedFile& f) {
  return {f.facts, f.record.language, [this, &f] { return reader_->content(f.record.blobOid); }};
}

std::optional<StaticProvider::DiskFile> StaticProvider::tooLargeFile(const std::string& path, uint32_t offset) {
  if (!clang_) return std::nullopt;
  std::optional<std::string> reason = skipReason(path);
  if (!reason || reason->rfind(kTooLargeReason, 0) != 0 || !clang_->covers(path)) return std::nullopt;
  auto text = readWorktreeFile(clang_->view().root(), path);
  if (!text || offset > text->size()) return std::nullopt;
  DiskFile f;
  f.language = detectLanguage(path, std::string_view(*text).substr(0, 16384));
  if (auto around = identifierAround(*text, offset)) {
    const std::string_view word = std::string_view(*text).substr(around->first, around->second - around->first);
    f.facts.names.emplace_back(word);
    uint32_t line = 0, lineStart = 0, scanned = 0;
    for (uint32_t at : codeIdentifierStarts(*text, f.language)) {
      if (text->compare(at, word.size(), word) != 0 || (at + word.size() < text->size() && isIdentifierByte((*text)[at + word.size()])))
        continue;
      for (; scanned < at; ++scanned)
        if ((*text)[scanned] == '\n') ++line, lineStart = scanned + 1;
      Occurrence o;
      o.range.startByte = at;
      o.range.endByte = at + static_cast<uint32_t>(word.size());
      o.range.start = {line, at - lineStart};
      o.range.end = {line, o.range.endByte - lineStart};
      f.facts.occurrences.push_back(o);
    }
  }
  f.text = std::move(*text);
  return f;
}

std::optional<uint32_t> StaticProvider::qualifierBefore(const LoadedFile& f, const Occurrence& occ, uint32_t offset) {
  if (occ.range.startByte != offset || offset < 3) return std::nullopt;
  auto text = reader_->content(f.record.blobOid);
  if (!text || offset > text->size() || text->compare(offset - 2, 2, "::") != 0) return std::nullopt;
  const char before = (*text)[offset - 3];
  if (!isIdentifierByte(before) && before != '>') return std::nullopt;
  return offset - 2;
}

ClangNavigator::AskedFile StaticProvider::asked(const DiskFile& f) {
  return {f.facts, f.language, [&f]() -> Expected<std::string> { return f.text; }};
}

void StaticProvider::labelWithoutClang(const std::string& path, NavigationResult& out) {
  // Where a compilation database exists, a C/C++ file it does not cover (or whose TU failed)
  // is answered from tree-sitter facts: said so, with a lower confidence.
  if (!clang_ && clangStatus_.isOk()) return;
  auto record = file(path);
  if (!record || (record->language != Language::C && record->language != Language::Cpp)) return;
  // A view of another format says itself how to rebuild it.
  std::string rebuild = clangStatus_.code() == ErrorCode::Unsupported ? "" : "; run `nib index`";
  std::string why = !clang_                        ? "the clang view cannot be read (" + clangStatus_.message() + rebuild + ")"
                    : overlays_.count(path)        ? "the file changed since the index was built"
                    : clang_->view().hasFile(path) ? "libclang found no declaration of it in the repository"
                                                   : "no compile command covers this file (or its translation unit failed)";
  out.note = why + ": tree-sitter facts" + (out.note.empty() ? "" : "; " + out.note);
  if (out.confidence == Confidence::Exact) out.confidence = Confidence::Name;
}

std::vector<StaticProvider::Target> StaticProvider::clangCalleesAt(const std::vector<ClangFileOccurrence>& occurrences,
                                                                   const ByteRange& site,
                                                                   std::map<uint32_t, std::vector<Target>>& memo) {
  // The reference clang recorded at the call's name (occurrences are in offset order).
  auto it = std::lower_bound(occurrences.begin(), occurrences.end(), site.startByte,
                             [](const ClangFileOccurrence& o, uint32_t start) { return o.start < start; });
  for (; it != occurrences.end() && it->start == site.startByte; ++it) {
    // What a macro's body calls is not this call site's callee (the macro is); nor is a name
    // only the AST walk answers at (a member guessed by lookup in a template, a
    // using-declaration naming the callee): the exact callee is the one clang reports there.
    if (it->role != ClangRole::Reference || it->expanded || it->guessed || it->unlisted) continue;
    if (auto known = memo.find(it->symbol); known != memo.end()) return known->second;
    std::vector<Target> defs, decls;
    if (auto symbol = clang_->view().symbol(it->symbol)) {
      // Each definition site (else each declaration: a function defined outside the repository)
      // is the tree-sitter definition whose name starts there, in a file that did not change.
      for (const ClangSite& s : symbol->sites) {
        if (s.role == ClangRole::Reference || s.interpolated || !hasClangFacts(s.path)) continue;
        auto record = file(s.path);
        if (!record) continue;
        auto f = load(record->fileId, /*occurrences=*/false);
        if (!f) continue;
        const auto& definitions = (*f)->facts.definitions;
        for (size_t d = 0; d < definitions.size(); ++d) {
          if (definitions[d].nameRange.startByte != s.range.startByte) continue;
          if (!isCallableKind(definitions[d].kind) && !isTypeKind(definitions[d].kind)) continue;
          (s.role == ClangRole::Definition ? defs : decls).push_back({record->fileId, static_cast<int32_t>(d)});
          break;
        }
      }
    }
    std::vector<Target>& out = memo[it->symbol];
    out = defs.empty() ? decls : defs;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  return {};
}

Expected<std::vector<TypeNode>> StaticProvider::typesAt(const std::string& path, uint32_t offset) {
  if (!clang_) return std::vector<TypeNode>{};
  return clang_->typesAt(path, offset);
}

namespace {

// An answer only the compiler's view gives: the clang view's, else Unsupported saying so.
Expected<NavigationResult> clangOnly(ClangNavigator* clang,
                                     Expected<NavigationResult> (ClangNavigator::*ask)(const std::string&, uint32_t),
                                     const std::string& path, uint32_t offset, const std::string& what) {
  if (clang) {
    auto r = (clang->*ask)(path, offset);
    if (!isDeclined(r)) return r;
  }
  return Status(ErrorCode::Unsupported, what + " come from a compiler's view only, where it records them: C and C++ "
                                               "files a compile command reaches, TypeScript and JavaScript files "
                                               "scip-typescript read (implementations), Python classes scip-python read "
                                               "(implementations); unchanged since `nib index`");
}

}  // namespace

// Tree-sitter's facts name base classes but cannot tell an override from a namesake, and record
// no declared types: a by-name answer would look exact and be wrong (issue 23 brings precise
// sources for more languages).
Expected<NavigationResult> StaticProvider::implementations(const std::string& path, uint32_t offset) {
  return clangOnly(compilerFacts(path), &ClangNavigator::implementations, path, offset, "implementations");
}

Expected<NavigationResult> StaticProvider::typeDefinitions(const std::string& path, uint32_t offset) {
  return clangOnly(compilerFacts(path), &ClangNavigator::typeDefinitions, path, offset, "type definitions");
}

Expected<std::vector<TypeNode>> StaticProvider::supertypes(uint32_t symbol, const std::string& name) {
  if (!clang_) return Status(ErrorCode::InvalidArgument, "the index has no clang view: prepare the type hierarchy again");
  return clang_->supertypes(symbol, name);
}

Expected<std::vector<TypeNode>> StaticProvider::subtypes(uint32_t symbol, const std::string& name) {
  if (!clang_) return Status(ErrorCode::InvalidArgument, "the index has no clang view: prepare the type hierarchy again");
  return clang_->subtypes(symbol, name);
}

namespace {

bool identifierByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// The `name` after each `@param` (its type in braces and an optional's bracket skipped) in the
// JSDoc comment that ends right before the declaration holding `offset` (nothing between them
// but the declaration's header: no `;` or `}`), as byte offsets of `text`.
std::vector<uint32_t> jsDocParams(std::string_view text, uint32_t offset, std::string_view name) {
  std::vector<uint32_t> out;
  size_t close = text.rfind("*/", offset);
  if (close == std::string_view::npos) return out;
  std::string_view between = text.substr(close + 2, offset - close - 2);
  if (between.find_first_of(";}") != std::string_view::npos) return out;
  size_t open = text.rfind("/**", close);
  if (open == std::string_view::npos) return out;
  for (size_t at = text.find("@param", open); at != std::string_view::npos && at < close; at = text.find("@param", at + 6)) {
    size_t p = at + 6;
    auto skipSpace = [&] {
      while (p < close && (text[p] == ' ' || text[p] == '\t')) ++p;
    };
    skipSpace();
    if (p < close && text[p] == '{') {
      size_t end = text.find('}', p);
      if (end == std::string_view::npos || end >= close) continue;
      p = end + 1;
      skipSpace();
    }
    if (p < close && text[p] == '[') ++p;
    if (text.compare(p, name.size(), name) == 0 && (p + name.size() >= text.size() || !identifierByte(text[p + name.size()])))
      out.push_back(static_cast<uint32_t>(p));
  }
  return out;
}

}  // namespace

// TypeScript's server lists a parameter's `@param` tags among its references; SCIP records no
// occurrence in comments. Found in the text of the parameter's definition.
void StaticProvider::addJsDocParameterTags(NavigationResult& out) {
  std::vector<SymbolLocation> tags;
  for (const SymbolLocation& l : out.locations) {
    if (l.kind != SymbolKind::Parameter || l.role != OccurrenceRole::Definition || l.name.empty()) continue;
    Language language = detectLanguage(l.path, "");
    if (language != Language::TypeScript && language != Language::Tsx && language != Language::JavaScript) continue;
    auto record = file(l.path);
    auto text = record ? reader_->content(record->blobOid) : Expected<std::string>(Status(ErrorCode::NotFound, ""));
    if (!text) continue;
    LineTable lines(*text);
    for (uint32_t at : jsDocParams(*text, l.range.startByte, l.name)) {
      SymbolLocation tag = l;
      tag.role = OccurrenceRole::Reference;
      tag.range.startByte = at;
      tag.range.endByte = at + static_cast<uint32_t>(l.name.size());
      tag.range.start = lines.positionOf(at);
      tag.range.end = lines.positionOf(tag.range.endByte);
      tag.fullRange = tag.range;
      tags.push_back(std::move(tag));
    }
  }
  for (SymbolLocation& t : tags) out.locations.push_back(std::move(t));
  std::sort(out.locations.begin(), out.locations.end(), [](const SymbolLocation& a, const SymbolLocation& b) {
    return a.path != b.path ? a.path < b.path : a.range.startByte < b.range.startByte;
  });
}

void StaticProvider::narrowOverloadCall(const std::string& path, uint32_t offset, NavigationResult& out) {
  if (out.locations.size() < 2) return;
  const std::string& where = out.locations.front().path;
  for (const SymbolLocation& l : out.locations)
    if (l.path != where || l.role != OccurrenceRole::Definition || !isCallableKind(l.kind)) return;
  auto textOf = [&](const std::string& p) -> Expected<std::string> {
    auto record = file(p);
    if (!record) return Status(ErrorCode::NotFound, "not indexed: " + p);
    return reader_->content(record->blobOid);
  };
  auto asked = textOf(path);
  if (!asked || offset >= asked->size()) return;
  size_t nameEnd = offset;
  while (nameEnd < asked->size() && (std::isalnum(static_cast<unsigned char>((*asked)[nameEnd])) || (*asked)[nameEnd] == '_' ||
                                     (*asked)[nameEnd] == '$'))
    ++nameEnd;
  auto arguments = callArgumentCount(*asked, nameEnd);
  if (!arguments) return;
  auto defined = where == path ? std::move(asked) : textOf(where);
  if (!defined) return;
  std::sort(out.locations.begin(), out.locations.end(),
            [](const SymbolLocation& a, const SymbolLocation& b) { return a.range.startByte < b.range.startByte; });
  std::vector<SignatureShape> shapes;
  for (const SymbolLocation& l : out.locations) {
    auto shape = signatureShape(*defined, l.range.endByte);
    if (!shape) return;
    shapes.push_back(*shape);
  }
  if (auto chosen = chooseOverload(shapes, *arguments)) {
    SymbolLocation one = std::move(out.locations[*chosen]);
    out.locations.assign(1, std::move(one));
  } else if (std::any_of(shapes.begin(), shapes.end(), [](const SignatureShape& s) { return !s.body; })) {
    out.confidence = Confidence::Name;
    out.facet = "overload";
    out.note = "the call's overload depends on its arguments' types: every signature";
  }
}

namespace {

// Whether the statement around `offset` holds a cast (`(TYPE *) expr`): clangd's error recovery
// drops what lies under a cast of an expression with errors, or to a type it does not know
// (zlib's iowin32.c, `((WIN32FILE_IOWIN*)stream)->hf`), so nothing there is recovered. By text,
// and wide: a parenthesized word before a name or a parenthesis counts.
bool statementHasCast(std::string_view text, uint32_t offset) {
  size_t start = offset, end = offset;
  for (int depth = 0; start > 0; --start) {
    char c = text[start - 1];
    if (c == ')') ++depth;
    if (c == '(' && depth-- == 0) continue;
    if (depth <= 0 && (c == ';' || c == '{' || c == '}')) break;
  }
  for (int depth = 0; end < text.size(); ++end) {
    char c = text[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth <= 0 && (c == ';' || c == '{' || c == '}')) break;
  }
  static const std::regex cast(R"(\(\s*(?:const\s+|struct\s+|unsigned\s+)*[A-Za-z_]\w*(?:\s*\*)*\s*\)\s*[A-Za-z_(&*])");
  std::string statement(text.substr(start, end - start));
  return std::regex_search(statement, cast);
}

// Whether `offset` lies in the body of a function `facts` defines: statements are what clang's
// error recovery keeps names of, not declarations with errors (expat's xmltok.h parsed alone,
// its struct members' types unknown).
bool inFunctionBody(std::string_view text, const FileFacts& facts, uint32_t offset) {
  for (const Definition& d : facts.definitions) {
    if ((d.kind != SymbolKind::Function && d.kind != SymbolKind::Method) || d.isDeclaration) continue;
    if (offset < d.nameRange.endByte || offset >= d.range.endByte) continue;
    size_t body = text.find('{', d.nameRange.endByte);
    if (body != std::string_view::npos && offset > body) return true;
  }
  return false;
}

}  // namespace

// A use libclang reports nothing at, in a file whose parse had errors, that tree-sitter binds to
// a declaration of the same file (a local, a parameter, a file-level variable or function, by
// its scopes): the statement around it had an error, and
// libclang's cursors and indexer drop such a statement whole (`dest` in utf8proc's
// bench/unistring.c, whose headers its guessed command lacks), where clangd's AST keeps its names
// (RecoveryExpr) and goes there. Answered as the compiler's facts answer at that declaration,
// labelled `scope`; nullopt where that is not so (a member, another file's name, an undeclared
// one) or where the compiler has no name at the declaration, or no use of it elsewhere.
std::optional<NavigationResult> StaticProvider::recoveredLocal(const std::string& path, const FileFacts& facts,
                                                               const Occurrence& occ) {
  if (!clang_->parsedWithErrors(path) || occ.role != OccurrenceRole::Reference || occ.resolution != Resolution::Local ||
      occ.target < 0 || static_cast<size_t>(occ.target) >= facts.definitions.size())
    return std::nullopt;
  const Definition& local = facts.definitions[occ.target];
  auto text = indexedText(path);
  if (!text || !inFunctionBody(*text, facts, occ.range.startByte) || statementHasCast(*text, occ.range.startByte))
    return std::nullopt;
  // A macro's words in directives are the preprocessor's, which libclang reports as it does.
  if ((local.scope != BindingScope::Local && local.scope != BindingScope::Global) || local.kind == SymbolKind::Macro)
    return std::nullopt;
  auto declared = clang_->answer(path, local.nameRange.startByte, false, false, false);
  if (!declared || declared->locations.empty() || declared->source != "clang") return std::nullopt;
  // A declaration the compiler kept no use of may be one it rejected (a parameter of an unknown
  // type: expat's win32filemap.c without <windows.h>), whose uses clangd's AST drops too.
  auto kept = clang_->answer(path, local.nameRange.startByte, true, false, false);
  if (!kept || kept->locations.empty()) return std::nullopt;
  declared->confidence = Confidence::Scope;
  declared->facet = kRecoveredFacet;
  declared->note = "libclang dropped the statement here (it has errors): the '" + local.name +
                   "' this file declares in scope answers, as clangd's error recovery keeps the name";
  return std::move(*declared);
}

// The references of what `occ` names where recoveredLocal answers its definition: the compiler's
// references at that declaration, with the uses libclang dropped (addRecoveredUses).
std::optional<NavigationResult> StaticProvider::recoveredReferences(const std::string& path, const FileFacts& facts,
                                                                    const Occurrence& occ, bool includeDeclaration) {
  if (!recoveredLocal(path, facts, occ)) return std::nullopt;
  const Definition& declared = facts.definitions[occ.target];
  auto refs = clang_->answer(path, declared.nameRange.startByte, true, includeDeclaration, false);
  if (!refs || refs->source != "clang") return std::nullopt;
  addRecoveredUses(path, *refs);
  refs->confidence = Confidence::Scope;
  refs->facet = kRecoveredFacet;
  return std::move(*refs);
}

// In a file parsed with errors, the uses of a declaration of the file that statements libclang
// dropped for their errors hold (where it reports no name and the file's scopes bind the use to
// that declaration), added to the compiler's references of it, as clangd's AST keeps them. Runs
// inside a query (beginQuery).
void StaticProvider::addRecoveredUses(const std::string& path, NavigationResult& refs) {
  if (refs.source != "clang" || !clang_->parsedWithErrors(path)) return;
  auto f = loadPath(path);
  if (!f) return;
  const FileFacts& facts = (*f)->facts;
  std::set<uint32_t> here;  // the answer's places in the file
  for (const SymbolLocation& l : refs.locations)
    if (l.path == path) here.insert(l.range.startByte);
  std::set<int32_t> declared;  // the file's declarations among them
  for (size_t d = 0; d < facts.definitions.size(); ++d)
    if (here.count(facts.definitions[d].nameRange.startByte) && facts.definitions[d].kind != SymbolKind::Macro)
      declared.insert(static_cast<int32_t>(d));
  // Only beside a use the compiler kept: a declaration with none may be one it rejected.
  auto kept = [](const SymbolLocation& l) { return l.role == OccurrenceRole::Reference; };
  if (declared.empty() || std::none_of(refs.locations.begin(), refs.locations.end(), kept)) return;
  auto text = indexedText(path);
  if (!text) return;
  std::map<uint32_t, const Occurrence*> candidates;  // by offset
  for (const Occurrence& o : facts.occurrences)
    if (o.role == OccurrenceRole::Reference && o.resolution == Resolution::Local && declared.count(o.target) &&
        inFunctionBody(*text, facts, o.range.startByte) && !statementHasCast(*text, o.range.startByte))
      candidates.emplace(o.range.startByte, &o);
  std::vector<uint32_t> offsets;
  for (const auto& [offset, o] : candidates) offsets.push_back(offset);
  std::vector<uint32_t> dropped = clang_->resolvedNothingAmong(path, offsets);
  for (uint32_t offset : dropped) {
    const Occurrence& o = *candidates.at(offset);
    SymbolLocation loc;
    loc.path = path;
    loc.range = loc.fullRange = o.range;
    loc.name = facts.nameOf(o);
    loc.role = o.role;
    loc.ascii = facts.ascii;
    refs.locations.push_back(std::move(loc));
  }
  if (!dropped.empty()) clangnav::uniqueSites(refs.locations);
}

}  // namespace nib
