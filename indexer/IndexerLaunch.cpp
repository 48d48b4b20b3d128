#include "indexer/IndexerLaunch.h"

namespace nib {

namespace {

// scip-typescript (a CommonJS package): FileIndexer.addSymbolInformation prints each declared
// symbol's type and reads its documentation comment; the launcher's version records the symbol
// and its relationships only, as the original does after the text. main.js exports main() and
// runs it only as the program's entry, so the launcher calls it with the arguments in place.
constexpr const char* kTypeScriptLauncher = R"js(
const [indexer, ...args] = process.argv.slice(1);
const fs = require('fs'), path = require('path');
const main = fs.realpathSync(indexer);
const dir = path.dirname(main);
try {
  const { FileIndexer } = require(path.join(dir, 'FileIndexer.js'));
  const { SymbolInformation } = require(path.join(dir, 'scip.js')).scip;
  const proto = FileIndexer && FileIndexer.prototype;
  if (proto && typeof proto.addSymbolInformation === 'function' && typeof proto.relationships === 'function' &&
      typeof SymbolInformation === 'function') {
    proto.addSymbolInformation = function (node, sym, declaration, symbol) {
      this.document.symbols.push(new SymbolInformation({ symbol: symbol.value, relationships: this.relationships(declaration, symbol) }));
    };
  }
} catch (e) { /* another shape: the indexer runs as it is */ }
process.argv = [process.argv[0], main, ...args];
const entry = require(main);
if (typeof entry.main === 'function') entry.main();
else {
  const run = require('child_process').spawnSync(process.execPath, [main, ...args], { stdio: 'inherit' });
  process.exitCode = run.status === null ? 1 : run.status;
}
)js";

// scip-python (a webpack bundle of pyright): its hover text, asked for every name, looks up the
// docstring behind each declaration — for a standard-library stub by finding and parsing the
// module's source in the Python installation. The launcher loads the bundle's pyright chunk
// first and wraps its module factories, so that the module exporting
// getDocumentationPartsForTypeAndDecl exports one that finds no documentation; the hover keeps
// its printed type, which scip-python tests before recording a name. index.js then loads the
// bundle, which takes the chunk from Node's module cache.
constexpr const char* kPythonLauncher = R"js(
const [indexer, ...args] = process.argv.slice(1);
const fs = require('fs'), path = require('path');
const root = path.dirname(fs.realpathSync(indexer));
try {
  const chunk = require(path.join(root, 'dist', 'pyright-internal.js'));
  let wrapped = false;
  for (const id of Object.keys(chunk.modules || {})) {
    const factory = chunk.modules[id];
    if (typeof factory !== 'function') continue;
    chunk.modules[id] = function (module, exports, load) {
      const result = factory.call(this, module, exports, load);
      const ex = module.exports;
      if (!wrapped && ex && typeof ex.getDocumentationPartsForTypeAndDecl === 'function') {
        ex.getDocumentationPartsForTypeAndDecl = () => undefined;
        wrapped = true;
      }
      return result;
    };
  }
} catch (e) { /* another shape: the indexer runs as it is */ }
process.argv = [process.argv[0], path.join(root, 'index.js'), ...args];
require(path.join(root, 'index.js'));
)js";

}  // namespace

std::vector<std::string> indexerCommand(const std::string& language, const std::filesystem::path& indexer,
                                        const std::vector<std::string>& arguments) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path program = fs::canonical(indexer, ec);
  // The launcher is for the packages it knows (the file it patches beside the program); any
  // other indexer — a stand-in in the tests, a wrapper script — runs as it is.
  bool python = language == "python";
  bool known = !ec && fs::exists(python ? program.parent_path() / "dist" / "pyright-internal.js"
                                        : program.parent_path() / "FileIndexer.js", ec);
  std::vector<std::string> command;
  if (known) command = {"/usr/bin/env", "node", "-e", python ? kPythonLauncher : kTypeScriptLauncher, "--"};
  command.push_back(indexer.string());
  command.insert(command.end(), arguments.begin(), arguments.end());
  return command;
}

}  // namespace nib
