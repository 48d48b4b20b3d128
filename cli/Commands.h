// The `nib` subcommands. Each returns the process exit status: 0 success, 1 failure (the
// message is already on stderr), 2 bad usage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nib::lsp {
struct LiveBenchAnswer;
}

namespace nib::cli {

struct IndexArgs {
  std::string path = ".";
  uint64_t maxFileSize = 1 << 20;
  unsigned threads = 0;
  std::string commit;
  bool quiet = false;
  bool json = false;
  bool force = false;
  bool full = false;  // no delta version: every view rewritten
  bool callGraph = false;  // resolve the call graph now even if no structural query used one
  bool noDense = false;
  bool dense = false;
  bool waitDense = false;      // build the dense view before returning, not in the background
  bool wait = false;           // leave nothing to a follow-up: what this version has is built now
  bool completeDense = false;  // internal: be the background follow-up that builds it
  bool retrainModel = false;
  std::string compileCommandsDir;
  bool noClang = false;
  bool noPrecise = false;
  size_t keepVersions = 0;  // 0: .nib.conf's index.keep-versions, else 3
  bool collect = false;     // sweep and compact the fact store now
};
int runIndex(const IndexArgs& args);
struct VerifyArgs {
  std::string path = ".";
  unsigned threads = 0;
  bool json = false;
};
int runVerify(const VerifyArgs& args);

// Prints the worktree's tree id (empty when it cannot be computed). Worker-only.

struct StatusArgs {
  std::string path = ".";
  bool json = false;
  bool verify = false;
  bool useDaemon = true;  // ask a running `nib daemon` first
};
int runStatus(const StatusArgs& args);

struct LocateArgs {
  std::string target;  // FILE:LINE:COL
  std::string root;    // default: the repository containing FILE
  bool json = false;
  bool includeDeclaration = true;
  bool useDaemon = true;  // ask a running `nib daemon` first
  std::string provider;   // auto | static | live | compare ("" = static)
  bool allowProjectCommands = false;
};
int runDefinition(const LocateArgs& args);
int runReferences(const LocateArgs& args);

struct SymbolsArgs {
  std::string query;
  std::string root = ".";
  size_t limit = 50;
  bool json = false;
  bool useDaemon = true;  // ask a running `nib daemon` first
};
int runSymbols(const SymbolsArgs& args);

struct SearchArgs {
  std::string query;
  std::string root = ".";
  std::string route = "auto";
  bool regex = false;
  bool ignoreCase = false;
  size_t k = 20;
  std::vector<std::string> paths, languages, kinds;
  bool json = false;
  bool useDaemon = true;  // ask a running `nib daemon` first
};
int runSearch(const SearchArgs& args);

struct ContextArgs {
  std::vector<std::string> symbols, paths;
  std::string intent;
  size_t budget = 4000;
  std::string root = ".";
  bool json = false;
};
int runContext(const ContextArgs& args);

struct StructuralArgs {
  std::string query;   // callers, callees, impact, trace
  std::string symbol;  // "name", "Type.name", "ns::name"
  std::string to;      // trace: the second symbol
  int depth = 0;       // 0: the query's default
  size_t limit = 100;
  std::string root = ".";
  bool json = false;
};
int runStructural(const StructuralArgs& args);

// `nib mcp`: serves MCP over stdin/stdout until end of input.
// `allowProjectCommands`: the live.* backend commands of the repository's .nib.conf may run.
int runMcp(const std::string& root, bool allowProjectCommands);

struct BenchArgs {
  std::string kind;  // "live-vs-static"
  std::string root = ".";
  size_t samples = 100;
  uint64_t seed = 1;
  std::vector<std::string> languages;
  std::vector<std::string> live;  // LANGUAGE=COMMAND overrides
  long long timeoutMs = 30000;
  bool noBackgroundIndex = false;
  bool json = false;
  std::string html;  // write a self-contained report here
};
int runBench(const BenchArgs& args);
// The --html report of the live-vs-static bench (BenchHtml.cpp), with the text table inside.
std::string benchHtml(const lsp::LiveBenchAnswer& answer, const std::string& tableText);

struct ExportArgs {
  std::string format;           // "scip"
  std::string output = "index.scip";
  std::string root = ".";
};
int runExport(const ExportArgs& args);

struct RollbackArgs {
  std::string path = ".";
};
int runRollback(const RollbackArgs& args);

// Prints "nib: error: <message>" (and a hint when given) to stderr; returns 1.
int fail(const std::string& message, const std::string& hint = "");
// printf appended to a string.
void appendf(std::string* out, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace nib::cli
