// Friend declarations as clangd's index lists them. libclang's indexer reports each friend
// declaration (`friend class B;` as a reference to B, a friend function or class template as a
// declaration of it); clangd 14's index lists only some among the entity's references, each
// case checked against it (fixtures clang_friend_declaration_references and
// clang_friend_earlier_declared_references): `friend class B;` of a class declared before it,
// and a friend class template, qualified or not. A friend that declares its class first
// (Draco's `friend class PointCloud;`), a friend function and a friend function template are not
// listed; they answer go-to-definition only (ClangOccurrence::unlisted).
#pragma once

#include <clang-c/Index.h>

#include "indexer/ClangCollector.h"

namespace nib::clangindex {

// Whether the declaration `info` reported, the unit's last occurrence, is a friend declaration
// clangd's index does not list (one that defines nothing, not a class template's).
bool unlistedFriendDeclaration(Collector& c, const CXIdxDeclInfo* info);

// Whether the reference `info` reported inside a class, the unit's last occurrence, is a
// `friend class B;` that declares B (`named`) first.
bool unlistedFriendReference(Collector& c, const CXIdxEntityRefInfo* info, CXCursor named);

}  // namespace nib::clangindex
