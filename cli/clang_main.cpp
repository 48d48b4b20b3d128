// `nib-clang`: the libclang worker of the clang index. Run by `nib-indexer`, never by people:
//   nib-clang list DIR     prints DIR/compile_commands.json's entries (nib's binary encoding)
//   nib-clang index ROOT [--keep-bodies]
//                          reads framed compile commands on stdin, request after request, and
//                          indexes them one after another in one session (function bodies a
//                          unit parsed are skipped in later units, unless --keep-bodies),
//                          writing each unit's outcome (its facts, occurrences under ROOT only)
//                          as soon as it ends
// A crash or a hang in libclang costs the worker's session: the builder runs the unit it was on
// again alone, and the other units in a new session.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "indexer/ClangIndexer.h"
#include "support/FileIo.h"

namespace {
int write(const std::string& bytes) { return nib::writeAllTo(STDOUT_FILENO, bytes) ? 0 : 1; }

// The next request on stdin (frameCompileCommands' layout), or nullopt at the end of the input.
nib::Expected<std::optional<std::vector<nib::CompileCommand>>> readRequest() {
  unsigned char length[4];
  size_t n = std::fread(length, 1, sizeof length, stdin);
  if (n == 0) return std::optional<std::vector<nib::CompileCommand>>();
  if (n < sizeof length) return nib::Status(nib::ErrorCode::Corrupt, "a truncated request");
  size_t size = length[0] | length[1] << 8 | length[2] << 16 | static_cast<size_t>(length[3]) << 24;
  std::string bytes(size, '\0');
  if (std::fread(bytes.data(), 1, size, stdin) != size) return nib::Status(nib::ErrorCode::Corrupt, "a truncated request");
  auto commands = nib::decodeCompileCommands(bytes);
  if (!commands) return commands.status();
  return std::optional<std::vector<nib::CompileCommand>>(std::move(*commands));
}
}  // namespace

int main(int argc, char** argv) {
  using namespace nib;
  std::string mode = argc >= 2 ? argv[1] : "";
  bool keepBodies = mode == "index" && argc == 4 && std::string(argv[3]) == "--keep-bodies";
  bool valid = (mode == "list" && argc == 3) || (mode == "index" && (argc == 3 || keepBodies));
  if (!valid) {
    std::fprintf(stderr, "usage: nib-clang list DIR | nib-clang index ROOT [--keep-bodies] < framed commands\n"
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
  // Requests one after another, each a framed list of compile commands (the builder sends the
  // next when the last outcome is in), until the end of the input.
  ClangSession session(/*skipParsedBodies=*/!keepBodies);
  for (bool first = true;; first = false) {
    auto request = readRequest();
    if (!request || (first && !*request)) {
      std::fprintf(stderr, "nib-clang: %s\n", request ? "expected framed compile commands on stdin" : request.status().message().c_str());
      return 2;
    }
    if (!*request) return 0;  // the end of the input
    for (const CompileCommand& command : **request) {
      auto started = std::chrono::steady_clock::now();
      auto facts = session.index(command, argv[2]);
      UnitOutcome outcome;
      outcome.ok = facts.hasValue();
      outcome.payload = facts ? encodeTuFacts(*facts) : facts.status().message();
      outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (write(encodeUnitOutcome(outcome)) != 0) return 1;
    }
  }
}
