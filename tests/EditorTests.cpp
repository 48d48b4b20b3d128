// Real editors and their client libraries driving `nib serve`: headless Neovim navigating,
// renaming and running nib's own commands, Emacs with eglot, the VS Code extension's command code
// under Node and its packaged .vsix, and Helix's configuration.
#include <catch2/catch.hpp>

#include <set>

#include "LspClient.h"
#include "LspProject.h"
#include "TestRepo.h"
#include "support/Language.h"

namespace nib::test {

TEST_CASE("a real editor client (headless Neovim) navigates with nib serve", "[lsp][editor]") {
  TestRepo repo;
  makeProject(repo, /*index=*/false);
  indexWith(repo, "--wait-dense", /*precise=*/true);  // the rename needs the compiler's occurrences
  std::string out = (repo.root() / ".nvim-result.json").string();
  std::string cmd = "cd " + shellQuote(repo.root().string()) + " && NIB_BIN=" + shellQuote(nibBinary()) +
                    " NIB_ROOT=" + shellQuote(repo.root().string()) +
                    " NIB_FILE=" + shellQuote((repo.root() / "app/main.py").string()) + " NIB_LINE=5 NIB_COL=11" +
                    " NIB_RENAME=gap NIB_OUT=" + shellQuote(out) + " timeout 120 nvim --headless --clean -u NONE -c " +
                    shellQuote("luafile " + std::string(NIB_TESTS_DIR) + "/editors/nvim_lsp.lua");
  json result = editorResult(cmd, out);
  std::string geometry = LspClient::uri(repo.root() / "app/geometry.py");
  CHECK(result["definition"] == json::array({{{"uri", geometry}, {"range", range(13, 4, 13, 12)}}}));
  CHECK(result["references"].size() == 3);
  // The rename as Neovim applies it: every occurrence in both files, nothing else touched.
  const json& buffers = result["buffers"];
  REQUIRE(buffers.contains("main.py"));
  REQUIRE(buffers.contains("geometry.py"));
  CHECK(buffers["main.py"][0] == "from geometry import Point, gap");
  CHECK(buffers["main.py"][5] == "    return gap(p, p.moved(2))");
  CHECK(buffers["geometry.py"][13] == "def gap(a, b):");
  CHECK(buffers["geometry.py"][14] == "    \"\"\"The distance between two points.\"\"\"");
}

// Issue 25's requests through a real client: Neovim's, at one position of a C++ hierarchy
// indexed with its compilation database.
TEST_CASE("Neovim asks implementation, typeDefinition, documentHighlight, foldingRange and selectionRange", "[lsp][editor][clang]") {
  TestRepo repo;
  repo.write("shapes.cpp",
             "struct Shape { virtual ~Shape() {} virtual int area() const = 0; };\n"
             "struct Square : Shape {\n"
             "  int area() const override { return 4; }\n"
             "};\n"
             "int twice(const Shape& s) { return s.area() + s.area(); }\n");
  writeCompileCommands(repo, "shapes.cpp");
  repo.commitAll();
  indexWith(repo, "--no-dense");
  std::string out = (repo.root() / ".nvim-result.json").string();
  // At `s` in `s.area()` on the last line.
  std::string cmd = "cd " + shellQuote(repo.root().string()) + " && NIB_BIN=" + shellQuote(nibBinary()) +
                    " NIB_ROOT=" + shellQuote(repo.root().string()) +
                    " NIB_FILE=" + shellQuote((repo.root() / "shapes.cpp").string()) + " NIB_LINE=4 NIB_COL=35" +
                    " NIB_METHODS=textDocument/implementation,textDocument/typeDefinition,textDocument/documentHighlight," +
                    "textDocument/foldingRange,textDocument/selectionRange NIB_OUT=" + shellQuote(out) +
                    " timeout 120 nvim --headless --clean -u NONE -c " +
                    shellQuote("luafile " + std::string(NIB_TESTS_DIR) + "/editors/nvim_lsp.lua");
  json result = editorResult(cmd, out);
  const json& extra = result["extra"];
  std::string uri = LspClient::uri(repo.root() / "shapes.cpp");
  // The parameter's type is Shape; its highlights are its declaration and both uses.
  CHECK(extra["textDocument/typeDefinition"] == json::array({{{"uri", uri}, {"range", range(0, 7, 0, 12)}}}));
  std::set<int> highlighted;
  for (const json& h : extra["textDocument/documentHighlight"]) highlighted.insert(h["range"]["start"]["character"].get<int>());
  CHECK(highlighted == std::set<int>{23, 35, 46});
  // Square's body folds (up to the line before its closing brace).
  bool folded = false;
  for (const json& f : extra["textDocument/foldingRange"]) folded |= f["startLine"] == 1 && f["endLine"] == 2;
  CHECK(folded);
  // The selection grows from the name `s` to the file.
  const json& chain = extra["textDocument/selectionRange"];
  REQUIRE(chain.size() == 1);
  CHECK(chain[0]["range"] == range(4, 35, 4, 36));
  CHECK(chain[0].contains("parent"));
  // At the call's method: Square's override, at its definition in the class.
  std::string implCmd = cmd;
  implCmd.replace(implCmd.find("NIB_COL=35"), 10, "NIB_COL=37");
  json impl = editorResult(implCmd, out);
  CHECK(impl["extra"]["textDocument/implementation"] == json::array({{{"uri", uri}, {"range", range(2, 6, 2, 10)}}}));
}

TEST_CASE("nib's own methods in Neovim: :NibSearch, :NibContext, :NibStatus", "[lsp][editor]") {
  TestRepo repo;
  makeProject(repo);
  std::string out = (repo.root() / ".nvim-commands.json").string();
  std::string cmd = "cd " + shellQuote(repo.root().string()) + " && NIB_BIN=" + shellQuote(nibBinary()) +
                    " NIB_PLUGIN=" + shellQuote(std::string(NIB_TESTS_DIR) + "/../editors/neovim/nib.lua") +
                    " NIB_FILE=" + shellQuote((repo.root() / "app/main.py").string()) +
                    " NIB_SEARCH=distance NIB_SYMBOL=distance NIB_OUT=" + shellQuote(out) +
                    " timeout 120 nvim --headless --clean -u NONE -c " +
                    shellQuote("luafile " + std::string(NIB_TESTS_DIR) + "/editors/nvim_commands.lua");
  json result = editorResult(cmd, out);
  // The quickfix list: the search's hits, each at its file and 1-based line.
  CHECK(result["search"]["title"].get<std::string>().find("nib search") == 0);
  bool definitionHit = false;
  for (const json& item : result["search"]["items"])
    if (item["file"].get<std::string>().find("app/geometry.py") != std::string::npos && item["lnum"] == 14)
      definitionHit = true;
  CHECK(definitionHit);
  // The context bundle of the symbol: its definition with its source lines, the budget line last.
  std::string context;
  for (const json& line : result["context"]) context += line.get<std::string>() + "\n";
  CHECK(context.find("app/geometry.py") != std::string::npos);
  CHECK(context.find("def distance(a, b):") != std::string::npos);
  CHECK(context.find("tokens: ") != std::string::npos);
  // The status: the version the answers come from, fresh, and the views.
  std::string status;
  for (const json& line : result["status"]) status += line.get<std::string>() + "\n";
  CHECK(status.find("version     2") != std::string::npos);
  CHECK(status.find("fresh       yes") != std::string::npos);
  CHECK(status.find("view        structural complete") != std::string::npos);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("nib's own methods in Emacs: nib-search, nib-context, nib-status over eglot", "[lsp][editor]") {
  TestRepo repo;
  makeProject(repo);
  // Out of the worktree, so that writing it leaves the index fresh for the next run.
  std::string out = (repo.root() / ".git" / "emacs-result.json").string();
  std::string cmd = "cd " + shellQuote(repo.root().string()) + " && NIB_BIN=" + shellQuote(nibBinary()) +
                    " NIB_PLUGIN=" + shellQuote(std::string(NIB_TESTS_DIR) + "/../editors/emacs/nib-eglot.el") +
                    " NIB_FILE=" + shellQuote((repo.root() / "app/main.py").string()) +
                    " NIB_SEARCH=distance NIB_SYMBOL=distance NIB_OUT=" + shellQuote(out) +
                    " timeout 120 emacs --batch -q -l " + shellQuote(std::string(NIB_TESTS_DIR) + "/editors/emacs_nib.el");
  json result = editorResult(cmd, out);
  auto joined = [&](const char* key) {
    std::string all;
    for (const json& line : result[key]) all += line.get<std::string>() + "\n";
    return all;
  };
  // A grep-mode buffer: path:line:column of every hit, the definition's among them.
  std::string search = joined("search");
  CHECK(search.rfind("nib search (", 0) == 0);
  CHECK(search.find("app/geometry.py:14:5: def distance(a, b):") != std::string::npos);
  std::string context = joined("context");
  CHECK(context.find("function distance  [symbol]") != std::string::npos);
  CHECK(context.find("def distance(a, b):") != std::string::npos);
  CHECK(context.find("tokens: ") != std::string::npos);
  std::string status = joined("status");
  CHECK(status.find("version     2") != std::string::npos);
  CHECK(status.find("fresh       yes") != std::string::npos);
  CHECK(status.find("view        trigram    complete") != std::string::npos);
}

TEST_CASE("the VS Code extension's commands under Node against nib serve, and its .vsix", "[lsp][editor]") {
  TestRepo repo;
  makeProject(repo);
  const std::string vscode = std::string(NIB_TESTS_DIR) + "/../editors/vscode";
  std::string out = (repo.root() / ".git" / "vscode-result.json").string();
  std::string cmd = "cd " + shellQuote(repo.root().string()) + " && NIB_BIN=" + shellQuote(nibBinary()) +
                    " NIB_ROOT=" + shellQuote(repo.root().string()) + " NIB_VSCODE_DIR=" + shellQuote(vscode) +
                    " NIB_OUT=" + shellQuote(out) + " timeout 120 node " +
                    shellQuote(std::string(NIB_TESTS_DIR) + "/editors/vscode_commands.test.js");
  json result = editorResult(cmd, out);
  // "nib: Search": quick-pick items that open the hit's file at its range.
  bool definition = false;
  for (const json& item : result["search"]["items"])
    if (item["description"] == "app/geometry.py:14" && item["label"] == "def distance(a, b):") {
      definition = true;
      CHECK(item["uri"] == LspClient::uri(repo.root() / "app/geometry.py"));
      CHECK(item["range"]["start"]["line"] == 13);
    }
  CHECK(definition);
  CHECK(result["search"]["route"] == "trigram");  // a code-like query
  CHECK(result["prose"]["route"] == "lexical");   // the route the prefix named
  CHECK_FALSE(result["prose"]["items"].empty());
  CHECK(result["badRoute"].get<std::string>().find("'route' must be one of") != std::string::npos);
  // "nib: Context for selection": the bundle of the selected symbol.
  std::string bundle = result["context"]["text"];
  CHECK(bundle.find("def distance(a, b):") != std::string::npos);
  // The status-bar item: the version, fresh.
  CHECK(result["status"]["fresh"] == true);
  CHECK(result["status"]["text"].get<std::string>().find("$(database) nib 2") == 0);
  CHECK(result["status"]["tooltip"].get<std::string>().find("fresh for the worktree") != std::string::npos);

  // The packaged extension holds the command code and the language client it runs with.
  std::string vsix = (repo.root() / ".git" / "nib.vsix").string();
  std::string log;
  int rc = runCommand("cd " + shellQuote(vscode) + " && npx --no-install vsce package --no-update-package-json --skip-license --out " +
                      shellQuote(vsix),
                  &log, true);
  INFO(log);
  REQUIRE(rc == 0);
  std::string listing;
  REQUIRE(runCommand("python3 -c " + shellQuote("import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))") +
                         " " + shellQuote(vsix),
                     &listing) == 0);
  INFO(listing);
  for (const char* entry : {"extension/extension.js", "extension/commands.js", "extension/package.json",
                            "extension/node_modules/vscode-languageclient/package.json"})
    CHECK(listing.find(entry) != std::string::npos);
  CHECK(listing.find("extension/node_modules/@vscode/vsce") == std::string::npos);  // a dev dependency
}

TEST_CASE("the Helix configuration parses and starts nib serve for every language nib indexes", "[lsp][editor]") {
  // Parsed by a real TOML parser (Python's tomllib), as Helix would read it.
  std::string file = std::string(NIB_TESTS_DIR) + "/../editors/helix/languages.toml";
  std::string text;
  int rc = runCommand("python3 -c " +
                          shellQuote("import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))") +
                          " " + shellQuote(file),
                      &text, true);
  INFO(text);
  REQUIRE(rc == 0);
  json toml = json::parse(text);
  CHECK(toml["language-server"]["nib"]["command"] == "nib");
  CHECK(toml["language-server"]["nib"]["args"] == json::array({"serve"}));
  std::set<std::string> served;
  for (const json& language : toml["language"])
    if (language["language-servers"] == json::array({"nib"})) served.insert(language["name"].get<std::string>());
  // Helix's names for nib's languages are the same words.
  for (int i = 1; i < kLanguageCount; ++i) {
    std::string name = languageName(static_cast<Language>(i));
    INFO(name);
    CHECK(served.count(name) == 1);
  }
}

}  // namespace nib::test
