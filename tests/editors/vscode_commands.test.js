// Runs the VS Code extension's command code (editors/vscode/commands.js) under plain Node
// against a real `nib serve` over stdio, through the JSON-RPC library the extension's language
// client uses, and writes what each command produced as JSON.
// Environment: NIB_BIN, NIB_ROOT, NIB_VSCODE_DIR, NIB_OUT.
"use strict";
const fs = require("fs");
const path = require("path");
const { spawn } = require("child_process");

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

async function main() {
  const dir = env("NIB_VSCODE_DIR");
  const rpc = require(path.join(dir, "node_modules", "vscode-jsonrpc", "node"));
  const commands = require(path.join(dir, "commands.js"));
  const root = env("NIB_ROOT");
  const server = spawn(env("NIB_BIN"), ["serve"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(server.stdout), new rpc.StreamMessageWriter(server.stdin));
  connection.listen();
  await connection.sendRequest("initialize", { processId: process.pid, rootUri: "file://" + root, capabilities: {} });
  connection.sendNotification("initialized", {});
  const request = (method, params) => connection.sendRequest(method, params);

  const out = {};
  out.search = await commands.search(request, "distance");
  const prose = commands.parseQuery("lexical: distance between two points");
  out.prose = await commands.search(request, prose.query, prose.route);
  out.context = await commands.context(request, "distance");
  out.status = await commands.status(request);
  try {
    await commands.search(request, "distance", "no-such-route");
    out.badRoute = "answered";
  } catch (e) {
    out.badRoute = String(e.message || e);
  }
  await connection.sendRequest("shutdown");
  connection.sendNotification("exit");
  fs.writeFileSync(env("NIB_OUT"), JSON.stringify(out));
}

main().then(() => process.exit(0), (e) => {
  fs.writeFileSync(process.env.NIB_OUT || "/dev/stderr", JSON.stringify({ error: String((e && e.stack) || e) }));
  process.exit(0);
});
