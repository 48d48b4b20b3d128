// `nib-clang`: the libclang worker of the clang index. Run by `nib-indexer`, never by people:
//   nib-clang list DIR     prints DIR/compile_commands.json's entries (nib's binary encoding)
//   nib-clang index ROOT [--keep-bodies]
//                          reads encoded compile commands on stdin and indexes them one after
//                          another in one session (function bodies a unit parsed are skipped
//                          in later units, unless --keep-bodies), writing each unit's outcome
//                          (its facts, occurrences under ROOT only) as soon as it ends
// A crash or a hang in libclang costs the unit it happened in and the batch's rest, which the
// builder runs again without it.
#include <unistd.h>

#include <chrono>
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
  bool keepBodies = mode == "index" && argc == 4 && std::string(argv[3]) == "--keep-bodies";
  bool valid = (mode == "list" && argc == 3) || (mode == "index" && (argc == 3 || keepBodies));
  if (!valid) {
    std::fprintf(stderr, "usage: nib-clang list DIR | nib-clang index ROOT [--keep-bodies] < commands\n"
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
  if (!commands || commands->empty()) {
    std::fprintf(stderr, "nib-clang: expected encoded compile commands on stdin\n");
    return 2;
  }
  ClangSession session(/*skipParsedBodies=*/!keepBodies);
  for (const CompileCommand& command : *commands) {
    auto started = std::chrono::steady_clock::now();
    auto facts = session.index(command, argv[2]);
    UnitOutcome outcome;
    outcome.ok = facts.hasValue();
    outcome.payload = facts ? encodeTuFacts(*facts) : facts.status().message();
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (write(encodeUnitOutcome(outcome)) != 0) return 1;
  }
  return 0;
}
