// Names written after a namespace and `::` that lookup found through a using-declaration of that
// namespace: `std::strtol` and `std::uint64_t` (libstdc++'s <cstdlib> and <cstdint> bring the C
// library's names into `std` by `using ::strtol;`), `api::helper` after `namespace api { using
// lib::helper; }`. clangd 14 answers go-to-definition there with the using-declaration besides
// the entity (its AST keeps the using-shadow declaration lookup found), and references with the
// entity's. nib answers such a name for a symbol of the using-declaration (kind import, see
// ClangAstNames' usingDeclaration), unlisted, ahead of the entity, so that the static
// provider's usingAnswer gives both: the repository's using-declaration, else one a system header
// makes in that namespace (a place outside the repository).
//
// A type named so is what clang 14 calls a UsingType, which neither libclang's cursors nor its
// indexer report, so nothing else names it: in `std`, the global type the standard library
// imported answers too (unlisted: clangd's references list no qualified name of it either).
#pragma once

#include <clang-c/Index.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "indexer/ClangCollector.h"

namespace nib::clangindex {

class QualifiedNames {
 public:
  QualifiedNames(Collector& c, CXTranslationUnit tu) : c_(c), tu_(tu) {}

  // At a reference to the namespace `space` that the AST walk met (`cursor`), written where the
  // source spells it: the name after its `::`, when that name is no qualifier itself.
  void afterNamespace(CXCursor cursor, CXCursor space);

  // The symbol of the repository's using-declaration of `name` in the namespace whose USR is
  // `scope`, if there is one (the AST walk found them).
  using RepositoryUsing = std::function<std::optional<uint32_t>(const std::string& scope, const std::string& name)>;

  // After the walk: the names lookup found through a using-declaration, and the types nothing
  // else named.
  void resolve(const RepositoryUsing& repositoryUsing);

  // Unqualified calls of a function a system header's using-declaration at the global scope
  // brings in (see the .cpp): they answer for it too.
  void globalUsings();

 private:
  struct Name {
    CXSourceLocation location;
    uint32_t file = 0, offset = 0;
    std::string scope, name;  // the namespace's USR, the name after it
  };
  // What a walk of the unit's top level found outside the repository for the names written
  // after `std::` and other top-level namespaces.
  struct Outside {
    std::map<std::pair<std::string, std::string>, CXCursor> usings;  // (namespace USR, name) -> its using-declaration
    std::map<std::string, std::pair<CXCursor, SymbolKind>> globalTypes;  // name -> the global type of that name
  };

  bool throughUsing(const Name& q, const std::vector<uint32_t>& there) const;
  Outside findOutside(const std::vector<const Name*>& wanted, std::set<std::string> typeNames) const;
  std::optional<uint32_t> outsideUsing(const Name& q, const Outside& outside);
  std::optional<uint32_t> usingSymbol(CXCursor declaration, const std::string& name);

  Collector& c_;
  CXTranslationUnit tu_;
  std::vector<Name> names_;
};

}  // namespace nib::clangindex
