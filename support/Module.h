// Shared modules nib loads on demand. The light `nib` executable must start in a few
// milliseconds, so the heavy libraries only some commands need (FAISS, fastText, BLAS and
// OpenMP for the dense view, libcurl for an external encoder) live in a module,
// libnib-dense.so, that is dlopen()ed the first time a semantic or hybrid query or a dense
// build asks for it: every other command never maps them.
//
// A module is found next to the running executable (where the build and an installation put
// it), or where the environment variable NIB_<NAME>_MODULE names it (tests, unusual layouts).
// It exports `nib_module_init`, which takes the caller's log level and returns the ABI string
// it was built with; a module of another build is refused rather than called with mismatched
// types.
#pragma once

#include <string>

#include "support/Status.h"

namespace nib {

// The ABI every module must report: nib's version and this revision, bumped when an entry
// point's signature or a type crossing the boundary changes shape.
std::string moduleAbi();

// An entry point of module `name` ("dense" is libnib-dense.so), loading the module once per
// process (thread-safe; a module is never unloaded). Unavailable names the file that is
// missing or unloadable and what to do; a module of another build is Unsupported.
Expected<void*> moduleSymbol(const std::string& name, const char* symbol);

// The same, cast to the entry point's type.
template <typename Fn>
Expected<Fn*> moduleFunction(const std::string& name, const char* symbol) {
  auto p = moduleSymbol(name, symbol);
  if (!p) return p.status();
  return reinterpret_cast<Fn*>(*p);
}

}  // namespace nib
