// An SCIP occurrence on its way into nib's facts (ScipImport): where it is, in nib's positions,
// and the symbol nib names it by. Shared by ScipImport and the TypeScript rules it applies
// (TypeScriptSites); not used outside scip/.
#pragma once

#include <cstdint>
#include <string>

namespace nib::scip_sites {

struct Site {
  uint32_t file, line, column, offset, length;  // file: into TuFacts::files; column and offset in bytes
  int roles;                                    // SCIP's symbol roles
};

struct Planned {
  Site site;
  std::string usr;  // "" once left out
};

// scip-typescript's module symbols end in the file's backquoted descriptor: "src/`m.ts`/".
inline bool isModuleSymbol(const std::string& usr) { return usr.size() >= 2 && usr.compare(usr.size() - 2, 2, "`/") == 0; }

// A class's symbol where scip-typescript names its constructor (`new X()`, `extends X`).
inline std::string withoutConstructor(const std::string& usr) {
  static const std::string kConstructor = "`<constructor>`().";
  if (usr.size() > kConstructor.size() && usr.compare(usr.size() - kConstructor.size(), kConstructor.size(), kConstructor) == 0)
    return usr.substr(0, usr.size() - kConstructor.size());
  return usr;
}

}  // namespace nib::scip_sites
