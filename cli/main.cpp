// The `nib` command line. Parsing only: each subcommand lives in its own file.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/Commands.h"
#include "cli/DaemonCli.h"
#include "cli/IndexCli.h"
#include "cli/ServeCli.h"
#include "cli/Worker.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace nib::cli;
  // Indexing needs libgit2 and the grammars; it runs in the worker so that this binary stays
  // light. The worker parses the same options (IndexCli.h) and prints the same help.
  if (argc >= 2 && (std::string(argv[1]) == "index" || std::string(argv[1]) == "verify")) {
    std::vector<std::string> args(argv + 1, argv + argc);
    nib::Status s = execWorker(args);
    return fail(s.message());
  }
  // The language server re-extracts edited buffers and can build a missing index: it runs in
  // its own executable for the same reason.
  if (argc >= 2 && std::string(argv[1]) == "serve") {
    std::vector<std::string> args(argv + 1, argv + argc);
    nib::Status s = execWorker(args, "nib-server");
    return fail(s.message());
  }
  CLI::App app{"nib: a code-intelligence index for git repositories.\n"
               "Builds persisted views of a repository (symbols, occurrences, call edges, search views)\n"
               "and answers definition, references, search, call-graph and context queries from them\n"
               "in milliseconds, for people (this command, `nib serve`) and agents (`nib mcp`).",
               "nib"};
  app.set_version_flag("--version", NIB_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  IndexArgs indexArgs;
  auto* index = addIndexCommand(app, indexArgs);
  VerifyArgs verifyArgs;
  auto* verify = addVerifyCommand(app, verifyArgs);
  ServeArgs serveArgs;
  auto* serve = addServeCommand(app, serveArgs);

  StatusArgs statusArgs;
  auto* status = app.add_subcommand("status", "Show the current index version, its manifest, and whether HEAD and the\n"
                                              "worktree still match what it was built from.");
  status->add_option("path", statusArgs.path, "A path inside the repository (default: .)");
  status->add_flag("--json", statusArgs.json, "Print as JSON");
  status->add_flag("--verify", statusArgs.verify, "Also recompute every artifact digest");
  bool statusNoDaemon = false;
  status->add_flag("--no-daemon", statusNoDaemon, "Compare in this process even when a `nib daemon` serves the repository");

  LocateArgs defArgs;
  auto* def = app.add_subcommand("def", "Print the definition(s) of the symbol at FILE:LINE:COL.\n"
                                        "LINE and COL are 1-based; COL counts bytes, as compilers print it.");
  def->add_option("position", defArgs.target, "FILE:LINE:COL")->required();
  def->add_option("--root", defArgs.root, "Repository to ask (default: the one containing FILE)");
  def->add_flag("--json", defArgs.json, "Print LSP-shaped locations (repository-relative paths, absolute outside\n"
                                        "the repository; 0-based ranges, UTF-16 columns) with confidence and freshness");
  bool defNoDaemon = false;
  def->add_flag("--no-daemon", defNoDaemon, "Answer in this process even when a `nib daemon` serves the repository");
  const char* providerHelp =
      "Who answers: static (the index, the default), auto (the index where its answer is exact\n"
      "and fresh, else a live language server: clangd, pylsp, typescript-language-server),\n"
      "live (the language server), compare (as auto, and both, their difference on stderr).\n"
      "A live server is started by this command and costs its start-up (seconds)";
  def->add_option("--provider", defArgs.provider, providerHelp)
      ->check(CLI::IsMember({"auto", "static", "live", "compare"}));
  def->add_flag("--allow-project-commands", defArgs.allowProjectCommands,
                "Run the live.* server commands the repository's .nib.conf names");

  LocateArgs refsArgs;
  auto* refs = app.add_subcommand("refs", "Print every reference to the symbol at FILE:LINE:COL.\n"
                                          "LINE and COL are 1-based; COL counts bytes, as compilers print it.");
  refs->add_option("position", refsArgs.target, "FILE:LINE:COL")->required();
  refs->add_option("--root", refsArgs.root, "Repository to ask (default: the one containing FILE)");
  refs->add_flag("--json", refsArgs.json, "Print LSP-shaped locations with confidence and freshness");
  bool noDecl = false;
  refs->add_flag("--no-declaration", noDecl, "Leave out the symbol's own definition and declarations");
  bool refsNoDaemon = false;
  refs->add_flag("--no-daemon", refsNoDaemon, "Answer in this process even when a `nib daemon` serves the repository");
  refs->add_option("--provider", refsArgs.provider, providerHelp)
      ->check(CLI::IsMember({"auto", "static", "live", "compare"}));
  refs->add_flag("--allow-project-commands", refsArgs.allowProjectCommands,
                 "Run the live.* server commands the repository's .nib.conf names");

  SymbolsArgs symArgs;
  auto* symbols = app.add_subcommand("symbols", "Find definitions whose name matches QUERY (exact, prefix, substring,\n"
                                                "then fuzzy), best first.");
  symbols->add_option("query", symArgs.query, "Name or part of a name")->required();
  symbols->add_option("--root", symArgs.root, "A path inside the repository (default: .)");
  symbols->add_option("-n,--limit", symArgs.limit, "At most this many results (default: 50)")->check(CLI::Range(1, 1000000000).description(""));
  symbols->add_flag("--json", symArgs.json, "Print LSP-shaped locations");
  bool symbolsNoDaemon = false;
  symbols->add_flag("--no-daemon", symbolsNoDaemon, "Answer in this process even when a `nib daemon` serves the repository");

  SearchArgs searchArgs;
  auto* search = app.add_subcommand("search", "Search the repository: `trigram` finds every line holding a literal (or, with\n"
                                              "--regex, matching an RE2 expression), exactly like grep; `lexical` ranks\n"
                                              "functions, classes and files by BM25 over their identifiers, comments and\n"
                                              "strings; `semantic` by nearness in the repository's own word vectors (the\n"
                                              "dense view, built by the first such search); `hybrid` rescores lexical hits with\n"
                                              "semantic similarity; `structural`\n"
                                              "adds the call-graph neighbours of lexical hits. `auto` picks lexical for prose\n"
                                              "(hybrid when the dense view uses an external encoder, see docs/configuration.md)\n"
                                              "and trigram for code-like queries; a sentence no line holds literally is\n"
                                              "ranked by its words.\n"
                                              "Files changed since `nib index` are searched as they are on disk.");
  search->add_option("query", searchArgs.query, "What to look for")->required();
  search->add_option("--root", searchArgs.root, "A path inside the repository (default: .)");
  search->add_option("-r,--route", searchArgs.route,
                     "auto, lexical, trigram, semantic, hybrid or structural (default: auto)")
      ->check(CLI::IsMember({"auto", "lexical", "trigram", "semantic", "hybrid", "structural"}));
  search->add_flag("-e,--regex", searchArgs.regex, "The query is a regular expression (RE2 syntax; trigram route)");
  search->add_flag("-i,--ignore-case", searchArgs.ignoreCase, "Case-insensitive (trigram route; lexical always is)");
  search->add_option("-k,--limit", searchArgs.k, "At most this many results (default: 20)")->check(CLI::Range(1, 1000000000).description(""));
  search->add_option("-p,--path", searchArgs.paths, "Only paths matching this glob, or under this folder (repeatable)");
  search->add_option("-l,--lang", searchArgs.languages, "Only this language: c, cpp, python, javascript, typescript,\n"
                                                        "tsx, go, rust, java (repeatable)");
  search->add_option("--kind", searchArgs.kinds, "Lexical route: only units of this kind (function, method, class,\n"
                                                 "struct, module for whole files, ...) (repeatable)");
  search->add_flag("--json", searchArgs.json, "Print source-linked hits as JSON (0-based ranges, UTF-16 columns)");
  bool noDaemon = false;
  search->add_flag("--no-daemon", noDaemon, "Search in this process even when a `nib daemon` serves the repository");

  ContextArgs contextArgs;
  auto* context = app.add_subcommand("context", "One answer for an agent: the source of the units most relevant to the named\n"
                                                "symbols, paths and intent (1-based line gutters), cut to a token budget at\n"
                                                "unit boundaries; the call flow between the named symbols; each one's blast\n"
                                                "radius; and a follow-up command for what did not fit. Tokens are estimated\n"
                                                "as ceil(UTF-8 bytes / 4).");
  context->add_option("--symbol", contextArgs.symbols, "A symbol: name, Type.name or ns::name (repeatable)");
  context->add_option("--path", contextArgs.paths, "A repository file (repeatable)");
  context->add_option("--intent", contextArgs.intent, "What you are trying to do, in words");
  context->add_option("--budget", contextArgs.budget, "Token budget (default: 4000)")->check(CLI::Range(200, 200000).description(""));
  context->add_option("--root", contextArgs.root, "A path inside the repository (default: .)");
  context->add_flag("--json", contextArgs.json, "Print the answer as JSON (units with 0-based ranges, text, followUp)");

  StructuralArgs structArgs;
  std::vector<CLI::App*> structural;
  for (const char* q : {"callers", "callees", "impact", "trace"}) {
    std::string what = std::string(q) == "callers"   ? "Who calls SYMBOL, to --depth levels (default 1)."
                       : std::string(q) == "callees" ? "What SYMBOL calls, to --depth levels (default 1)."
                       : std::string(q) == "impact"  ? "SYMBOL's blast radius: transitive callers and type users, nearest first\n(--depth hops, default 3)."
                                                     : "The shortest call path from SYMBOL to TO (at most --depth calls, default 8).";
    auto* cmd = app.add_subcommand(q, what);
    cmd->add_option("symbol", structArgs.symbol, "name, Type.name or ns::name")->required();
    if (std::string(q) == "trace") cmd->add_option("to", structArgs.to, "The symbol to reach")->required();
    cmd->add_option("--depth", structArgs.depth, "How far to walk")->check(CLI::Range(1, 50).description(""));
    cmd->add_option("-n,--limit", structArgs.limit, "At most this many results (default: 100)")->check(CLI::Range(1, 100000).description(""));
    cmd->add_option("--root", structArgs.root, "A path inside the repository (default: .)");
    cmd->add_flag("--json", structArgs.json, "Print the answer as JSON");
    structural.push_back(cmd);
  }

  std::string mcpRoot = ".";
  auto* mcp = app.add_subcommand("mcp", "A Model Context Protocol server (revision 2025-06-18) over stdio for agents:\n"
                                        "tools search, context, definition, references, callers, callees,\n"
                                        "impact and status, answered from the index (read-only); definition and\n"
                                        "references may ask a live language server (their provider argument).");
  mcp->add_option("--root", mcpRoot, "A path inside the repository (default: .)");
  bool mcpAllowProjectCommands = false;
  mcp->add_flag("--allow-project-commands", mcpAllowProjectCommands,
                "Let the definition and references tools run the live.* server commands the\n"
                "repository's .nib.conf names");

  DaemonArgs daemonArgs;
  auto* daemon = app.add_subcommand("daemon", "Keep the index open and the worktree watched in a background process, so\n"
                                              "that `nib search` answers without opening the index or checking every\n"
                                              "file's stat data itself. `start` detaches it (its log: .nib/daemon.log);\n"
                                              "`run` serves in the foreground; `status` and `stop` ask the running one.");
  daemon->add_option("action", daemonArgs.action, "start, stop, status or run")
      ->required()
      ->check(CLI::IsMember({"start", "stop", "status", "run"}));
  daemon->add_option("--root", daemonArgs.root, "A path inside the repository (default: .)");
  daemon->add_option("--idle-minutes", daemonArgs.idleMinutes, "Exit after this many minutes without a request (default: 15)")
      ->check(CLI::Range(1, 7 * 24 * 60).description(""));

  BenchArgs benchArgs;
  auto* bench = app.add_subcommand("bench", "Benchmarks that need nib's internals. live-vs-static: sends the same definition\n"
                                            "and references requests (positions sampled deterministically from the index:\n"
                                            "definition and reference sites) to the index and to the live backend, and\n"
                                            "prints per language and method the match rate of (path, start line) sets,\n"
                                            "precision and recall of static against live, p50/p95 latency of each, the\n"
                                            "median live/static ratio (warm and cold), time to the first answer and peak\n"
                                            "memory. Gives clangd its background index (written to .cache/clangd) unless\n"
                                            "--no-background-index. See docs/live-backends.md.");
  bench->add_option("kind", benchArgs.kind, "live-vs-static")->required()->check(CLI::IsMember({"live-vs-static"}));
  bench->add_option("--root", benchArgs.root, "A path inside the repository (default: .)");
  bench->add_option("--samples", benchArgs.samples, "Positions per language (default: 100)")->check(CLI::Range(2, 100000));
  bench->add_option("--seed", benchArgs.seed, "Sampling seed (default: 1)");
  bench->add_option("--languages", benchArgs.languages, "Languages to measure (default: every indexed one with a backend)")
      ->delimiter(',');
  bench->add_option("--live", benchArgs.live, "A live backend command, LANGUAGE=COMMAND (as in `nib serve --live`)");
  bench->add_option("--timeout-ms", benchArgs.timeoutMs, "Per-request limit of the live backend (default: 30000)")
      ->check(CLI::Range(50LL, 600000LL));
  bench->add_flag("--no-background-index", benchArgs.noBackgroundIndex,
                  "Run clangd as `nib serve` does (no background index, nothing written into the repository)");
  bench->add_flag("--json", benchArgs.json, "Print everything as JSON");
  bench->add_option("--html", benchArgs.html, "Also write a self-contained HTML report with a latency chart");

  ExportArgs exportArgs;
  auto* exportCmd = app.add_subcommand("export", "Write the current index version in an interchange format. scip: one SCIP index\n"
                                                 "(documents, occurrences with roles, symbols with their relationships) that\n"
                                                 "Sourcegraph's tools accept: TypeScript/JavaScript/Python from the precise view,\n"
                                                 "C/C++ from the clang view, other files' definitions as local symbols.\n"
                                                 "See docs/precise-view.md.");
  exportCmd->add_option("format", exportArgs.format, "scip")->required()->check(CLI::IsMember({"scip"}));
  exportCmd->add_option("-o,--output", exportArgs.output, "Where to write it (default: index.scip)");
  exportCmd->add_option("--root", exportArgs.root, "A path inside the repository (default: .)");

  RollbackArgs rollbackArgs;
  auto* rollback = app.add_subcommand("rollback", "Make the previous complete index version current again.");
  rollback->add_option("path", rollbackArgs.path, "A path inside the repository (default: .)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  refsArgs.includeDeclaration = !noDecl;
  searchArgs.useDaemon = !noDaemon;
  defArgs.useDaemon = !defNoDaemon;
  refsArgs.useDaemon = !refsNoDaemon;
  symArgs.useDaemon = !symbolsNoDaemon;
  if (*index || *verify || *serve) return 2;  // handled by the helpers above
  if (*status) {
    statusArgs.useDaemon = !statusNoDaemon;
    return runStatus(statusArgs);
  }
  if (*def) return runDefinition(defArgs);
  if (*refs) return runReferences(refsArgs);
  if (*symbols) return runSymbols(symArgs);
  if (*search) return runSearch(searchArgs);
  if (*rollback) return runRollback(rollbackArgs);
  if (*exportCmd) return runExport(exportArgs);
  if (*bench) return runBench(benchArgs);
  if (*daemon) return runDaemon(daemonArgs);
  if (*context) return runContext(contextArgs);
  if (*mcp) return runMcp(mcpRoot, mcpAllowProjectCommands);
  for (CLI::App* cmd : structural)
    if (*cmd) {
      structArgs.query = cmd->get_name();
      return runStructural(structArgs);
    }
  return 2;
}
