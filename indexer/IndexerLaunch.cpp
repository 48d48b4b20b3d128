#include "indexer/IndexerLaunch.h"

#include "indexer/WorkerProcess.h"

namespace nib {

namespace {

// scip-typescript (a CommonJS package): FileIndexer.addSymbolInformation prints each declared
// symbol's type and reads its documentation comment; the launcher's version records the symbol
// and its relationships only, as the original does after the text. main.js exports main() and
// runs it only as the program's entry, so the launcher calls it with the arguments in place.
// With `--nib-session` first, it runs one indexer command after another instead, each read from
// stdin as its arguments, each followed by a NUL and the command by one more, and answers each on
// stdout with a line, `ok` or `failed` (what scip-typescript prints goes to stderr): Node, the
// TypeScript compiler's code and what V8 compiled of it stay warm from one project to the next,
// while each project gets its own program and caches, as in a process of its own.
//
// It also writes what TypeScript's server answers at a call's callee where that is not the
// callee name's own declarations — the overload the call resolves to, a call signature or a
// constructor the call goes through besides the name's declaration (the server's
// getDefinitionAtPosition, asked only where a call resolves to a declaration other than the
// name's one declaration; an overload of the name's own is that answer without asking) — as one
// more occurrence at the callee, whose symbol is
// `nib-definitions` followed by each definition's file and range (tab-separated, UTF-16 units
// as SCIP's ranges); definitions in TypeScript's default library are left out, answer and all.
// ScipImport reads them (scip/TypeScriptCalls).
constexpr const char* kTypeScriptLauncher = R"js(
const [indexer, ...args] = process.argv.slice(1);
const fs = require('fs'), path = require('path');
const main = fs.realpathSync(indexer);
const dir = path.dirname(main);
try {
  const ts = require(require.resolve('typescript', {paths: [dir]}));
  const { FileIndexer } = require(path.join(dir, 'FileIndexer.js'));
  const { ProjectIndexer } = require(path.join(dir, 'ProjectIndexer.js'));
  const { SymbolInformation, Occurrence } = require(path.join(dir, 'scip.js')).scip;
  const proto = FileIndexer && FileIndexer.prototype;
  if (proto && typeof proto.addSymbolInformation === 'function' && typeof proto.relationships === 'function' &&
      typeof SymbolInformation === 'function') {
    proto.addSymbolInformation = function (node, sym, declaration, symbol) {
      this.document.symbols.push(new SymbolInformation({ symbol: symbol.value, relationships: this.relationships(declaration, symbol) }));
    };
  }
  if (proto && typeof proto.index === 'function' && ProjectIndexer && typeof ProjectIndexer.prototype.index === 'function' &&
      ts.GoToDefinition && typeof ts.GoToDefinition.getDefinitionAtPosition === 'function' && typeof Occurrence === 'function') {
    let program = null;
    const projectIndex = ProjectIndexer.prototype.index;
    ProjectIndexer.prototype.index = function () {
      program = this.program;
      try { return projectIndex.call(this); } finally { program = null; }
    };
    const fileIndex = proto.index;
    proto.index = function () {
      fileIndex.call(this);
      if (program) calledDefinitions(ts, program, this, Occurrence);
    };
  }
} catch (e) { /* another shape: the indexer runs as it is */ }

function calledDefinitions(ts, program, indexer, Occurrence) {
  const sf = indexer.sourceFile, checker = indexer.checker;
  const spanOf = (d) => { const n = ts.getNameOfDeclaration(d) || d; return n.getSourceFile().fileName + ':' + n.getStart(); };
  const declarationsOf = (name) => {
    let symbol = checker.getSymbolAtLocation(name);
    if (symbol && (symbol.flags & ts.SymbolFlags.Alias) && symbol.declarations && name.parent !== symbol.declarations[0]) {
      const aliased = checker.getAliasedSymbol(symbol);
      if (aliased && aliased.declarations) symbol = aliased;
    }
    return symbol && symbol.declarations ? symbol.declarations : [];
  };
  const note = (name, call) => {
    const declared = declarationsOf(name);
    const signature = checker.getResolvedSignature(call);
    const called = signature && signature.declaration;
    if (declared.length === 1 && (!called || called === declared[0])) return;
    // One of the name's own declarations (an overload) is the server's whole answer (its
    // getDefinitionAtPosition: the root symbol matches the signature), spanning the declaration's
    // name; anything else is asked of it.
    const own = called && declared.includes(called) && !ts.isConstructorDeclaration(called) ? ts.getNameOfDeclaration(called) || called : null;
    const defs = own ? [{ fileName: own.getSourceFile().fileName, textSpan: { start: own.getStart(), length: own.getEnd() - own.getStart() } }]
                     : ts.GoToDefinition.getDefinitionAtPosition(program, sf, name.getStart(sf)) || [];
    const plain = new Set(declared.map(spanOf));
    if (defs.length === plain.size && defs.every((d) => plain.has(d.fileName + ':' + d.textSpan.start))) return;
    emit(name, defs);
  };
  // A member read through an index signature (`opts().shared`): the checker's symbol there is
  // declared by the signatures, or there is none, and the server goes to the signatures
  // (`[key: string]: any`), where scip-typescript writes a local defined nowhere.
  const unresolvedMember = (name) => {
    const symbol = checker.getSymbolAtLocation(name);
    if (symbol && !(symbol.declarations || []).every(ts.isIndexSignatureDeclaration)) return;
    emit(name, ts.GoToDefinition.getDefinitionAtPosition(program, sf, name.getStart(sf)) || []);
  };
  // `export { Options }` of an import from a module that does not resolve: the server, failing
  // to resolve the alias, goes to the specifier itself (from a use of the name, to the import).
  const unresolvedExport = (specifier) => {
    const local = checker.getExportSpecifierLocalTargetSymbol(specifier);
    if (!local || !(local.flags & ts.SymbolFlags.Alias)) return;
    const target = checker.getAliasedSymbol(local);
    if (target && target.declarations && target.declarations.length) return;  // the unknown symbol has none
    emit(specifier.name, ts.GoToDefinition.getDefinitionAtPosition(program, sf, specifier.name.getStart(sf)) || []);
  };
  const emit = (name, defs) => {
    if (!defs.length) return;
    const parts = ['nib-definitions'];
    for (const d of defs) {
      const file = program.getSourceFile(d.fileName);
      if (!file || program.isSourceFileDefaultLibrary(file)) return;
      const a = file.getLineAndCharacterOfPosition(d.textSpan.start);
      const b = file.getLineAndCharacterOfPosition(d.textSpan.start + d.textSpan.length);
      parts.push(d.fileName, a.line, a.character, b.line, b.character);
    }
    const s = sf.getLineAndCharacterOfPosition(name.getStart(sf)), e = sf.getLineAndCharacterOfPosition(name.getEnd());
    if (s.line !== e.line) return;
    indexer.document.occurrences.push(new Occurrence({ range: [s.line, s.character, e.character], symbol: parts.join('\t') }));
  };
  // Names imported from an `export const { a, b } = obj` (commander's esm.mjs): scip-typescript
  // writes the bindings as locals, so a use of the import reaches no definition; the server goes
  // to the binding, from a use and from the import's own specifier. Its answer is asked once per
  // import, at the first of them, and written at each (the callees have theirs already).
  const destructured = new Map();  // the import's alias symbol -> the server's answer, once asked
  for (const statement of sf.statements) {
    const bindings = ts.isImportDeclaration(statement) && statement.importClause && statement.importClause.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const specifier of bindings.elements) {
      try {
        const local = checker.getSymbolAtLocation(specifier.name);
        const target = local && (local.flags & ts.SymbolFlags.Alias) ? checker.getAliasedSymbol(local) : null;
        const declaration = target && target.declarations && target.declarations[0];
        if (declaration && ts.isBindingElement(declaration)) destructured.set(local, null);
      } catch (e) { /* no answer of the server's here: nib's own stands */ }
    }
  }
  const destructuredUse = (name) => {
    const symbol = checker.getSymbolAtLocation(name);
    if (!destructured.has(symbol)) return;
    if (destructured.get(symbol) === null)
      destructured.set(symbol, ts.GoToDefinition.getDefinitionAtPosition(program, sf, name.getStart(sf)) || []);
    emit(name, destructured.get(symbol));
  };
  const callees = new Set();
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) {
      let callee = ts.isTaggedTemplateExpression(node) ? node.tag : node.expression;
      if (ts.isPropertyAccessExpression(callee)) callee = callee.name;
      if (ts.isIdentifier(callee) || ts.isPrivateIdentifier(callee)) {
        callees.add(callee);
        try { note(callee, node); } catch (e) { /* no answer of the server's here: nib's own stands */ }
      }
    } else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name) && !callees.has(node.name)) {
      try { unresolvedMember(node.name); } catch (e) { /* likewise */ }
    } else if (ts.isExportSpecifier(node) && !node.propertyName && !node.parent.parent.moduleSpecifier) {
      try { unresolvedExport(node); } catch (e) { /* likewise */ }
    } else if (destructured.size && ts.isIdentifier(node) && !callees.has(node)) {
      try { destructuredUse(node); } catch (e) { /* likewise */ }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
const entry = require(main);
if (args[0] === '--nib-session') {
  const { mainCommand } = require(path.join(dir, 'CommandLineOptions.js'));
  if (typeof mainCommand !== 'function' || typeof entry.indexCommand !== 'function') process.exit(3);
  const toStderr = process.stderr.write.bind(process.stderr);
  process.stdout.write = (chunk, ...rest) => toStderr(chunk, ...rest);
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (data) => {
    pending += data;
    for (let end; (end = pending.indexOf('\0\0')) >= 0;) {
      const request = pending.slice(0, end).split('\0');
      pending = pending.slice(end + 2);
      let ok = true;
      try {
        process.exitCode = 0;
        mainCommand((projects, options) => entry.indexCommand(projects, options)).parse([process.argv[0], main, ...request]);
        ok = !process.exitCode;
      } catch (e) {
        ok = false;
        console.error(e);
      }
      process.exitCode = 0;
      fs.writeSync(1, ok ? 'ok\n' : 'failed\n');
    }
  });
} else if (typeof entry.main === 'function') {
  process.argv = [process.argv[0], main, ...args];
  entry.main();
} else {
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

bool knownPackage(const std::string& language, const std::filesystem::path& indexer) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path program = fs::canonical(indexer, ec);
  // The launcher is for the packages it knows (the file it patches beside the program); any
  // other indexer — a stand-in in the tests, a wrapper script — runs as it is.
  return !ec && fs::exists(language == "python" ? program.parent_path() / "dist" / "pyright-internal.js"
                                                : program.parent_path() / "FileIndexer.js",
                           ec);
}

}  // namespace

std::vector<std::string> indexerCommand(const std::string& language, const std::filesystem::path& indexer,
                                        const std::vector<std::string>& arguments) {
  std::vector<std::string> command;
  if (knownPackage(language, indexer))
    command = {"/usr/bin/env", "node", "-e", language == "python" ? kPythonLauncher : kTypeScriptLauncher, "--"};
  command.push_back(indexer.string());
  command.insert(command.end(), arguments.begin(), arguments.end());
  return command;
}

IndexerSessions::~IndexerSessions() {
  for (Session& s : idle_) s.worker->finish(/*kill=*/true, false);
}

WorkerResult IndexerSessions::run(const std::string& language, const std::filesystem::path& indexer,
                                  const std::vector<std::string>& arguments, std::chrono::seconds timeout,
                                  const std::function<bool()>& cancelled) {
  if (language != "typescript" || broken_ || !knownPackage(language, indexer))
    return runWorker(indexerCommand(language, indexer, arguments), "", timeout, cancelled);
  Session session;
  {
    std::lock_guard<std::mutex> lock(m_);
    if (!idle_.empty()) {
      session = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  std::string error;
  if (!session.worker) session.worker = WorkerSession::start(indexerCommand(language, indexer, {"--nib-session"}), &error);
  if (session.worker) {
    std::string request;
    for (const std::string& a : arguments) request += a + '\0';
    request += '\0';
    auto answered = [](const std::string& out) { return out.find('\n') != std::string::npos; };
    WorkerSession::Wait wait = session.worker->send(request, timeout, cancelled);
    if (wait == WorkerSession::Wait::Ready) wait = session.worker->readUntil(answered, timeout, cancelled, false);
    if (wait == WorkerSession::Wait::Ready) {
      std::string& out = session.worker->out();
      bool ok = out.compare(0, 3, "ok\n") == 0;
      out.erase(0, out.find('\n') + 1);
      ++session.projects;
      std::lock_guard<std::mutex> lock(m_);
      idle_.push_back(std::move(session));
      // A project the session could not index runs again alone, so that its failure, and what
      // the indexer said, are its own.
      if (ok) {
        ++inSessions_;
        return WorkerResult{0, "", "", false};
      }
    } else {
      WorkerResult ended = session.worker->finish(/*kill=*/wait != WorkerSession::Wait::Exited,
                                                  wait == WorkerSession::Wait::TimedOut);
      if (wait != WorkerSession::Wait::Exited) return ended;  // timed out or cancelled: the project's
      // A session that dies on its first project (a launcher that no longer fits the package, or
      // that project crashing Node) is not tried again in this build: the rest run alone.
      if (session.projects == 0) broken_ = true;
    }
  }
  return runWorker(indexerCommand(language, indexer, arguments), "", timeout, cancelled);
}

}  // namespace nib
