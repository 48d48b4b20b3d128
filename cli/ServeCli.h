// The `serve` subcommand's options, shared by `nib` (for its help) and `nib-server` (which
// runs it).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace nib::cli {

struct ServeArgs {
  std::string root;
  unsigned workers = 4;
};

inline CLI::App* addServeCommand(CLI::App& app, ServeArgs& args) {
  auto* serve = app.add_subcommand("serve", "Run the language server (LSP 3.17 over stdio) for the repository.\n"
                                            "Answers from the index; builds one in the background if there is none.\n"
                                            "Extensions (nib/locate, nib/search, nib/callers, nib/callees, nib/impact, nib/trace,\n"
                                            "nib/context) are described in docs/lsp-extensions.md.");
  serve->add_option("--root", args.root, "The repository (default: the client's rootUri, else the working directory)");
  serve->add_option("--workers", args.workers, "Request worker threads (default: 4)")->check(CLI::Range(1, 64));
  return serve;
}

}  // namespace nib::cli
