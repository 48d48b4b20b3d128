// The `serve` subcommand's options, shared by `nib` (for its help) and `nib-server` (which
// runs it).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace nib::cli {

struct ServeArgs {
  std::string root;
  unsigned workers = 4;
  std::string provider;
  std::vector<std::string> live;
  long long liveTimeoutMs = 0;
  std::string traceLog;
  bool allowProjectCommands = false;
};

inline CLI::App* addServeCommand(CLI::App& app, ServeArgs& args) {
  auto* serve = app.add_subcommand("serve", "Run the language server (LSP 3.17 over stdio) for the repository.\n"
                                            "Answers from the index; builds one in the background if there is none.\n"
                                            "Extensions (nib/locate, nib/search, nib/callers, nib/callees, nib/impact, nib/trace,\n"
                                            "nib/context) are described in docs/lsp-extensions.md.");
  serve->add_option("--root", args.root, "The repository (default: the client's rootUri, else the working directory)");
  serve->add_option("--workers", args.workers, "Request worker threads (default: 4)")->check(CLI::Range(1, 64));
  serve->add_option("--provider", args.provider,
                    "Who answers definition and references: auto (the index when the file is fresh and\n"
                    "its kind of answer is measured to agree with the live backend, else the backend),\n"
                    "static, live, or compare\n"
                    "(as auto, and both are computed and their difference traced). Default: .nib.conf's\n"
                    "`provider`, else auto. See docs/live-backends.md.")
      ->check(CLI::IsMember({"auto", "static", "live", "compare"}));
  serve->add_option("--live", args.live,
                    "A live backend command for a language, LANGUAGE=COMMAND (c, cpp, python, javascript,\n"
                    "typescript); repeatable; LANGUAGE= turns the language's backend off.\n"
                    "Default: clangd --background-index=false --log=error, /usr/bin/pylsp,\n"
                    "typescript-language-server --stdio");
  serve->add_option("--live-timeout-ms", args.liveTimeoutMs,
                    "Per-request time limit of a live backend; past it the index answers (default: 5000)")
      ->check(CLI::Range(50LL, 600000LL));
  serve->add_flag("--allow-project-commands", args.allowProjectCommands,
                  "Run the live backend commands the repository's .nib.conf names (live.c, live.python, ...);\n"
                  "without it they are ignored, so that opening a repository never runs its programs");
  serve->add_option("--trace-log", args.traceLog,
                    "Where each navigation answer's provenance is appended (default: .nib/trace.log)");
  return serve;
}

}  // namespace nib::cli
