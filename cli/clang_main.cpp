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
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cli/BatchAllocator.h"
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

// The stack of the thread a session indexes on: libclang's own parsing thread has 8 MiB.
constexpr size_t kSessionStack = size_t{16} << 20;

struct IndexRun {
  const char* root;
  bool keepBodies;
  int rc;
};

// The `index` mode's session: requests one after another, each a framed list of compile commands
// (the builder sends the next when the last outcome is in), until the end of the input.
int indexRequests(const IndexRun& run) {
  using namespace nib;
  ClangSession session(/*skipParsedBodies=*/!run.keepBodies);
  for (bool first = true;; first = false) {
    auto request = readRequest();
    if (!request || (first && !*request)) {
      std::fprintf(stderr, "nib-clang: %s\n", request ? "expected framed compile commands on stdin" : request.status().message().c_str());
      return 2;
    }
    if (!*request) return 0;  // the end of the input
    for (const CompileCommand& command : **request) {
      auto started = std::chrono::steady_clock::now();
      auto facts = session.index(command, run.root);
      UnitOutcome outcome;
      outcome.ok = facts.hasValue();
      outcome.payload = facts ? encodeTuFacts(*facts) : facts.status().message();
      outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (write(encodeUnitOutcome(outcome)) != 0) return 1;
    }
  }
}

void* runIndexRequests(void* run) {
  static_cast<IndexRun*>(run)->rc = indexRequests(*static_cast<IndexRun*>(run));
  return nullptr;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace nib;
  cli::settleBatchAllocator();
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
  // libclang parses each unit on a thread it makes for the purpose (8 MiB of stack, so that deep
  // code cannot overflow a caller's small one) unless LIBCLANG_NOTHREADS is set. A thread made
  // and joined per unit, and what its parse mapped unmapped across two threads' CPUs, cost a
  // fifth of the clang phase on LibTomMath's 162 small units. The session runs instead on one
  // thread of ours, with more stack than libclang's own, and libclang parses there.
  setenv("LIBCLANG_NOTHREADS", "1", 1);
  IndexRun run{argv[2], keepBodies, 1};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kSessionStack) == 0 &&
                 pthread_create(&thread, &attr, runIndexRequests, &run) == 0;
  if (!started) {
    std::fprintf(stderr, "nib-clang: could not start the indexing thread\n");
    return 1;
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return run.rc;
}
