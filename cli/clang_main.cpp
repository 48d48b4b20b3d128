// `nib-clang`: the libclang worker of the clang index. Run by `nib-indexer`, never by people:
//   nib-clang list DIR     prints DIR/compile_commands.json's entries (nib's binary encoding)
//   nib-clang index ROOT   reads one encoded compile command on stdin and prints the
//                          translation unit's facts (occurrences under ROOT only)
// One translation unit per process: a crash or a hang in libclang costs that file only.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "indexer/ClangIndexer.h"
#include "support/FileIo.h"

namespace {
int write(const std::string& bytes) { return nib::writeAllTo(STDOUT_FILENO, bytes) ? 0 : 1; }
}  // namespace

int main(int argc, char** argv) {
  using namespace nib;
  std::string mode = argc >= 2 ? argv[1] : "";
  if (argc != 3 || (mode != "list" && mode != "index")) {
    std::fprintf(stderr, "usage: nib-clang list DIR | nib-clang index ROOT < command\n"
                         "(the libclang worker of `nib index`; not meant to be run by hand)\n");
    return 2;
  }
  if (mode == "list") {
    auto commands = readCompileCommands(argv[2]);
    if (!commands) {
      std::fprintf(stderr, "nib-clang: %s\n", commands.status().message().c_str());
      return 1;
    }
    return write(encodeCompileCommands(*commands));
  }
  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  auto commands = decodeCompileCommands(input);
  if (!commands || commands->size() != 1) {
    std::fprintf(stderr, "nib-clang: expected one encoded compile command on stdin\n");
    return 2;
  }
  auto facts = indexTranslationUnit(commands->front(), argv[2]);
  if (!facts) {
    std::fprintf(stderr, "nib-clang: %s\n", facts.status().message().c_str());
    return 1;
  }
  return write(encodeTuFacts(*facts));
}
