// `nib-scip`: the SCIP worker of the precise view. Run by `nib-indexer`, never by people:
//   nib-scip import ROOT FILE   reads the SCIP index FILE (what scip-typescript or scip-python
//                               wrote) and prints its facts under ROOT (nib's unit facts, the
//                               encoding nib-clang prints)
//   nib-scip export ROOT INDEX OUT
//                               writes the current version of the index INDEX (a .nib folder)
//                               of the repository ROOT as one SCIP index to OUT (`nib export scip`)
// A process of its own, like nib-clang: an index that breaks the decoder costs that project
// only, and libprotobuf stays out of every other binary.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "scip/ScipExport.h"
#include "scip/ScipImport.h"
#include "support/FileIo.h"

namespace {
int write(const std::string& bytes) { return nib::writeAllTo(STDOUT_FILENO, bytes) ? 0 : 1; }
}  // namespace

int exportIndex(const char* root, const char* index, const char* out) {
  using namespace nib;
  ScipExportStats stats;
  Status s = exportScip(root, index, out, &stats);
  if (!s.isOk()) {
    std::fprintf(stderr, "nib: error: %s\n", s.message().c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s: %zu documents, %zu occurrences, %zu symbols (version %s, commit %.12s%s)\n", out,
               stats.documents, stats.occurrences, stats.symbols, stats.versionId.c_str(), stats.commit.c_str(),
               stats.dirty ? " + uncommitted changes" : "");
  return 0;
}

int main(int argc, char** argv) {
  using namespace nib;
  if (argc == 5 && std::string(argv[1]) == "export") return exportIndex(argv[2], argv[3], argv[4]);
  if (argc != 4 || std::string(argv[1]) != "import") {
    std::fprintf(stderr, "usage: nib-scip import ROOT FILE | nib-scip export ROOT INDEX OUT\n"
                         "(the SCIP worker of `nib index` and `nib export scip`; not meant to be run by hand)\n");
    return 2;
  }
  std::error_code ec;
  std::string root = std::filesystem::weakly_canonical(argv[2], ec).string();
  if (ec || root.empty()) {
    std::fprintf(stderr, "nib-scip: no such repository root: %s\n", argv[2]);
    return 2;
  }
  if (root.back() != '/') root += '/';
  auto bytes = readFile(argv[3]);
  if (!bytes) {
    std::fprintf(stderr, "nib-scip: %s\n", bytes.status().message().c_str());
    return 1;
  }
  auto facts = importScip(*bytes, root);
  if (!facts) {
    std::fprintf(stderr, "nib-scip: %s\n", facts.status().message().c_str());
    return 1;
  }
  return write(encodeTuFacts(*facts));
}
