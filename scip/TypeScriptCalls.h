// What TypeScript's server answers at a call's callee, where that is not the callee name's own
// declarations: the one overload the call resolves to (`Type.Record(Type.String(), …)` goes to
// the signature the arguments pick, not to all three), a call signature or constructor the call
// goes through besides the name's declaration (`cheerio(…)` on a value whose type has a call
// signature; `new Volume()` where `Volume` is a constant bound to a class). scip-typescript's
// symbols cannot say it; nib's launcher (indexer/IndexerLaunch) asks TypeScript's own
// getDefinitionAtPosition at such callees while indexing and writes the answer as an occurrence
// whose symbol starts `nib-definitions`. ScipImport reads each into a symbol of its own whose
// USR spells the answer's places (`nib:called@…`, kCalledDefinitionsUsr), with a reference site
// (expanded) at each callee that answers so; ClangNavigator answers a definition request at such
// a callee with those places. The launcher writes the same kind of occurrence where the
// indexer's symbol says nothing of the server's answer: at a member read through an index
// signature, at `export { X }` of an unresolved import, and at the specifier and each use of a
// name imported from a destructuring export (`export const { a } = obj`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scip/ScipSites.h"

namespace nib::typescript_calls {

// An occurrence the launcher wrote (its symbol), not one of the indexer's.
bool isLauncherOccurrence(std::string_view symbol);

// One definition of the server's answer: an absolute path and a one-line range in UTF-16 units.
struct Location {
  std::string path;
  uint32_t line = 0, start = 0, end = 0;
};

struct CalledDefinitions {
  scip_sites::Site callee;  // in nib's positions
  std::vector<Location> definitions;
};

// The definitions a launcher occurrence's symbol lists; nullopt when malformed.
std::optional<std::vector<Location>> parse(std::string_view symbol);

// The sites to add for `calls` (each expanded): a reference site at each callee of a symbol whose
// USR spells the answer's places (views/ClangFacts: calledDefinitionsUsr), read from the files
// under `root` the answer names — any file of the repository, another project's too. An answer
// naming a place outside the repository is left out whole, and nib's own answer stands there.
std::vector<scip_sites::Planned> answerSites(const std::vector<CalledDefinitions>& calls, const std::string& root);

}  // namespace nib::typescript_calls
