// How the precise view starts a SCIP indexer (issue: precise indexing time). scip-typescript and
// scip-python spend a third of their time or more writing each symbol's hover text — TypeScript's
// printed type of every declaration, pyright's docstrings looked up through the sources behind
// each standard-library stub — and nib reads none of it: the precise view keeps occurrences,
// symbols and relationships, and `nib export scip` documents symbols from nib's own views. So
// each indexer is started through a small Node launcher that leaves that text out and otherwise
// runs the pinned indexer unchanged. The occurrences, symbols and relationships it writes are
// the same as the plain indexer's (checked on five Python and one TypeScript code base, and by
// tests/IndexerLaunchTests.cpp on fixtures); an indexer that is not such a package (a stand-in,
// a wrapper script), or a package without the shape the launcher expects, runs as it is.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nib {

// The command line that runs `indexer` (the package's executable: scip-typescript's or
// scip-python's) for `language` ("typescript" or "python") with `arguments`, through Node and
// the launcher for that language.
std::vector<std::string> indexerCommand(const std::string& language, const std::filesystem::path& indexer,
                                        const std::vector<std::string>& arguments);

}  // namespace nib
