// Starts `nib serve` for the workspace and routes the supported languages to it; adds the
// commands "nib: Search", "nib: Context for selection" and "nib: Index status", and a status-bar
// item with the index's version and freshness. The commands' logic is commands.js.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");
const commands = require("./commands");

let client;
let statusItem;
let timer;

async function refreshStatus(request, announce) {
  try {
    const s = await commands.status(request);
    statusItem.text = s.text;
    statusItem.tooltip = s.tooltip;
    if (announce) vscode.window.showInformationMessage(s.tooltip.split("\n").slice(0, 3).join("; "));
  } catch (e) {
    statusItem.text = "$(error) nib";
    statusItem.tooltip = String((e && e.message) || e);
  }
  statusItem.show();
}

async function searchCommand(request) {
  const input = await vscode.window.showInputBox({
    prompt: "nib search (a route may lead: lexical:, trigram:, semantic:, hybrid:, structural:)",
  });
  if (!input) return;
  const { query, route } = commands.parseQuery(input);
  const found = await commands.search(request, query, route);
  for (const note of found.notes) vscode.window.showInformationMessage(`nib: ${note}`);
  const title = `nib search (${found.route}): ${query}${found.truncated ? " (more hits exist)" : ""}`;
  const pick = await vscode.window.showQuickPick(found.items, { title, matchOnDescription: true, matchOnDetail: true });
  if (!pick) return;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(pick.uri));
  const r = pick.range;
  await vscode.window.showTextDocument(doc, {
    selection: new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
  });
}

async function contextCommand(request) {
  const editor = vscode.window.activeTextEditor;
  let text = editor ? editor.document.getText(editor.selection) : "";
  if (!text && editor) {
    const word = editor.document.getWordRangeAtPosition(editor.selection.active);
    if (word) text = editor.document.getText(word);
  }
  if (!text.trim()) {
    vscode.window.showErrorMessage("nib: select a symbol or some words first");
    return;
  }
  const bundle = await commands.context(request, text);
  const doc = await vscode.workspace.openTextDocument({ content: bundle.text, language: "markdown" });
  await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}

function activate(context) {
  const nib = vscode.workspace.getConfiguration("nib").get("path", "nib");
  const serverOptions = { command: nib, args: ["serve"] };
  const languages = ["c", "cpp", "python", "javascript", "typescript", "typescriptreact", "go", "rust", "java"];
  const clientOptions = { documentSelector: languages.map((language) => ({ scheme: "file", language })) };
  client = new LanguageClient("nib", "nib", serverOptions, clientOptions);
  const request = (method, params) => client.sendRequest(method, params);
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  statusItem.command = "nib.status";
  const guarded = (fn) => async () => {
    try {
      await fn();
    } catch (e) {
      vscode.window.showErrorMessage(`nib: ${(e && e.message) || e}`);
    }
  };
  context.subscriptions.push(
    statusItem,
    vscode.commands.registerCommand("nib.search", guarded(() => searchCommand(request))),
    vscode.commands.registerCommand("nib.contextForSelection", guarded(() => contextCommand(request))),
    vscode.commands.registerCommand("nib.status", guarded(() => refreshStatus(request, true))),
    vscode.workspace.onDidSaveTextDocument(() => refreshStatus(request, false)),
    { dispose: () => client && client.stop() },
  );
  // Freshness changes with edits made outside the editor too (a checkout, `nib index`).
  timer = setInterval(() => refreshStatus(request, false), 30000);
  context.subscriptions.push({ dispose: () => clearInterval(timer) });
  return client.start().then(() => refreshStatus(request, false));
}

function deactivate() {
  if (timer) clearInterval(timer);
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
