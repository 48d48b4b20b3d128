// The logic of the extension's commands, apart from the VS Code API, so that it runs (and is
// tested, tests/editors/vscode_commands.test.js) under plain Node against a real `nib serve`.
// Each command takes `request(method, params)`, which returns a promise of the result.
"use strict";

const ROUTES = ["auto", "lexical", "trigram", "semantic", "hybrid", "structural"];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function firstLine(text) {
  return (text || "").split("\n")[0].trim();
}

// "lexical: how keys expire" asks the lexical route; a query without a known route prefix
// (or with "auto:") goes to the auto route.
function parseQuery(input) {
  const m = /^\s*([a-z]+):\s*(.*)$/s.exec(input);
  if (m && ROUTES.includes(m[1]) && m[2].trim()) return { route: m[1], query: m[2].trim() };
  return { route: "auto", query: input.trim() };
}

// nib/search, as quick-pick items: the name or the matching line, where, and how it was found.
async function search(request, query, route = "auto") {
  const result = await request("nib/search", { query, route, k: 200 });
  const items = (result.hits || []).map((hit) => ({
    label: hit.name || firstLine(hit.snippet) || hit.path,
    description: `${hit.path}:${hit.range.start.line + 1}`,
    detail: [hit.route, hit.kind, hit.name ? firstLine(hit.snippet) : ""].filter(Boolean).join(" · "),
    uri: hit.uri,
    path: hit.path,
    range: hit.range,
  }));
  return { route: result.route, items, truncated: result.truncated === true, notes: result.notes || [] };
}

// One identifier is asked as a symbol (its definitions, callers and callees); anything else as
// an intent (words).
function contextParams(text, budgetTokens = 4000) {
  const t = text.trim();
  return IDENTIFIER.test(t) ? { symbols: [t], budgetTokens } : { intent: t, budgetTokens };
}

async function context(request, text) {
  return request("nib/context", contextParams(text));
}

// The status bar's text and tooltip from nib/status: the version the answers come from and
// whether it is fresh for the worktree.
async function status(request) {
  const s = await request("nib/status", {});
  const manifest = s.manifest || {};
  const fresh = s.freshness || {};
  const version = String(manifest.version || "?");
  const short = version.split(".")[0];
  const lines = [
    `nib index ${version}`,
    `commit ${manifest.sourceCommit || "?"}${manifest.dirty === true ? " + uncommitted changes" : ""}`,
    fresh.fresh === true ? "fresh for the worktree" : "not fresh: run `nib index` to catch up",
  ];
  if (fresh.overlaid === true) lines.push("the worktree's changes are laid over the index");
  for (const v of s.views || []) lines.push(`${v.name}: ${v.status}${v.error ? " (" + v.error + ")" : ""}`);
  return {
    text: fresh.fresh === true ? `$(database) nib ${short}` : `$(warning) nib ${short}`,
    tooltip: lines.join("\n"),
    fresh: fresh.fresh === true,
    version,
  };
}

module.exports = { ROUTES, parseQuery, search, contextParams, context, status, firstLine };
