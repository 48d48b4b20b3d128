// The vocabulary of navigation answers every source shares — tree-sitter facts
// (StaticProvider), libclang's facts (ClangNavigator), a live language server (LiveProvider,
// through PolicyNavigator): locations in repository paths and byte ranges, how certain an answer
// is and which facts made it. Front ends encode these; nothing here knows the wire.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/Text.h"
#include "views/FileFacts.h"

namespace nib {

// How an answer was reached, from most to least certain. Only a compiler's facts (the clang
// view, the precise view) are exact; tree-sitter's resolution through scopes and imports is
// `Scope`. (Values are persisted in the call graph's file: new ones go at the end.)
enum class Confidence {
  Exact,   // a compiler resolved it (libclang, an SCIP indexer)
  Import,  // the symbol comes from outside the repository: the answer is the import itself
  Name,    // several candidates matched by name; resolution fell back to the bare name
  Scope,   // tree-sitter resolved it through scopes, imports or a unique global name
};
const char* confidenceName(Confidence c);
// How certain, as a rank: 0 (a compiler's) to 3 (a name's). The least certain of several wins
// where they combine (a call graph edge seen at several sites).
inline int certaintyRank(Confidence c) {
  switch (c) {
    case Confidence::Exact: return 0;
    case Confidence::Scope: return 1;
    case Confidence::Import: return 2;
    case Confidence::Name: return 3;
  }
  return 3;
}
// Tree-sitter's resolution through scopes is `Scope`, never a compiler's `Exact`.
inline Confidence fromTreeSitter(Confidence c) { return c == Confidence::Exact ? Confidence::Scope : c; }

// The requests a navigation answer is for: LSP's definition, references, typeDefinition and
// implementation. Each is answered from the index or a live server under one policy.
enum class NavigationKind { Definition, References, TypeDefinition, Implementation };
// The request's name as LSP spells it after `textDocument/` ("definition", "references",
// "typeDefinition", "implementation"), used in traces and persisted agreement counts.
const char* navigationKindName(NavigationKind kind);
// Whether an answer's locations are where something is defined (all but references).
inline bool locatesDefinitions(NavigationKind kind) { return kind != NavigationKind::References; }

struct SymbolLocation {
  std::string path;
  ByteRange range{};      // the name (identifier) range
  ByteRange fullRange{};  // the whole definition, when this is one; else == range
  std::string name{};
  std::string container{};
  SymbolKind kind = SymbolKind::Unknown;
  OccurrenceRole role = OccurrenceRole::Reference;
  bool ascii = true;    // the file's columns are the same in every encoding
};

struct NavigationResult {
  std::vector<SymbolLocation> locations;
  Confidence confidence = Confidence::Exact;
  std::string symbol;  // the name asked about
  std::string note;    // why the answer is partial or approximate, when it is
  std::string source = "tree-sitter";  // the facts that answered: "clang", "scip", "tree-sitter" or "live"
  // What kind of symbol a compiler's answer is about, where its agreement with a live server is
  // measured apart (providers/Agreement): "macro", "override" (a member in a hierarchy),
  // "file-local" (every site in one file), kUncompiledFacet (asked in code only a unit nib made
  // up for a file no compile command reaches saw), kParseErrorsFacet (asked in a file whose own
  // parse reported errors), else the symbol's kind ("function", ...).
  std::string facet;
};
inline constexpr const char* kUncompiledFacet = "uncompiled";
// A compiler's answer that nothing inside the repository declares the name (it resolved to a
// library's declaration), or that it resolved no name at the position.
inline constexpr const char* kOutsideFacet = "outside";
inline constexpr const char* kUnresolvedFacet = "unresolved";
// A compiler's answer in a file whose own parse reported errors (a missing include path, a
// header that needs its includer): the compiler's error recovery decided what names mean there.
inline constexpr const char* kParseErrorsFacet = "parse-errors";
// A name inside a statement with errors, which libclang drops whole (clangd's AST keeps its names):
// the local its scope binds there, by tree-sitter's scopes, answered with the compiler's facts.
inline constexpr const char* kRecoveredFacet = "recovered";
// A compiler's answer about an entity a file declares that every unit entered inside a scope (a
// header #included inside a namespace): the live server, parsing the file alone, sees another.
inline constexpr const char* kEnclosedFacet = "enclosed";
// A word the compiler never parsed (a macro's text, code the preprocessor left out) that more than
// five symbols are named: clangd's answer, by the word, is none of them or those its index ranks
// first (exact names against prefixes, by use and nearness), which the index cannot tell.
inline constexpr const char* kManyNamedFacet = "many-named";
// Definitions of one entity in several source files (each program of a build with its own `die`):
// the index lists them all; the live server's index keeps one, which one depends on its order.
inline constexpr const char* kSeveralDefinitionsFacet = "several-definitions";
// References listed in code the build's units see differently (a section only some units'
// preprocessor kept, an X-macro table each includer expands its own way): the live server's
// index keeps one unit's view of each header, which one depends on its indexing order.
inline constexpr const char* kIncluderDependentFacet = "includer-dependent";
// Asked at a member an `offsetof` designator names (`offsetof(struct S, data.len)`): clangd 14's
// selection has no node there and it answers nothing, where the index answers the member.
inline constexpr const char* kDesignatorFacet = "designator";

struct SymbolMatch {
  SymbolLocation location;
  double score = 0;
};

// A definition as a call-hierarchy node.
struct CallNode {
  std::string path;
  int32_t definition = -1;  // -1: the top level of `path`
  std::string name, container;
  SymbolKind kind = SymbolKind::Unknown;
  ByteRange range, nameRange;
  bool ascii = true;
};

// A class or struct in the type hierarchy (C and C++ files libclang indexed): its clang
// symbol, and its name where it is defined (else declared).
struct TypeNode {
  uint32_t symbol = 0;  // the version's clang view id
  std::string name, path;
  SymbolKind kind = SymbolKind::Unknown;
  ByteRange range;
};

struct CallEdge {
  CallNode node;                 // the caller (incoming) or the callee (outgoing)
  std::vector<ByteRange> sites;  // the call sites, in the caller's file
};

}  // namespace nib
