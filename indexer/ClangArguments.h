// The arguments nib's clang worker gives libclang for a compile command. Pure string work, no
// libclang, so that tests can check it directly.
#pragma once

#include <string>
#include <vector>

#include "views/ClangFacts.h"

namespace nib::clangindex {

// The compiler's arguments for `command`, compiler first:
// - options that make the compiler write files (dependency lists, also through `-Wp,`, and
//   serialized diagnostics) are dropped: the index must never touch the user's build tree;
// - warning options are dropped: the worker suppresses every warning, so they change nothing it
//   reads, yet clang works out a "did you mean" suggestion for each option it does not know
//   (GCC's -Wlogical-op, -Wformat-signedness...) against all of its own, about 0.2 ms apiece,
//   in every unit;
// - the working directory becomes an argument (libclang 14 has no per-unit working directory,
//   and a worker never changes its own).
std::vector<std::string> compilerArguments(const CompileCommand& command);

}  // namespace nib::clangindex
