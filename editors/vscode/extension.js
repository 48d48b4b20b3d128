// Starts `nib serve` for the workspace and routes the supported languages to it.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const nib = vscode.workspace.getConfiguration("nib").get("path", "nib");
  const serverOptions = { command: nib, args: ["serve"] };
  const languages = ["c", "cpp", "python", "javascript", "typescript", "typescriptreact", "go", "rust", "java"];
  const clientOptions = { documentSelector: languages.map((language) => ({ scheme: "file", language })) };
  client = new LanguageClient("nib", "nib", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
