#!/usr/bin/env node
// Test driver: runs an MCP server over stdio using the OFFICIAL MCP TypeScript
// SDK client, performs a scripted list of calls, prints ONE JSON object.
//
// usage: node drive.mjs --command <server-binary> --cwd <dir> --calls <calls.json>
//                       [--args "mcp --root X"]   (split on spaces; or a JSON array)
//                       [--timeout <seconds>]     (overall, default 30; exit 3 when hit)
//                       [--protocol-version <v>]  (override the version sent in initialize)
//
// calls.json: [{"tool": "<name>", "arguments": {...}} | {"raw": "<method>", "params": {...}}, ...]
// stdout: {"serverVersion", "serverCapabilities", "protocolVersion", "instructions",
//          "tools", "results": [{"tool"|"raw", "result"|"error"}], "transportErrors"}
//   error = {"code" (null if not an MCP error), "message", "data"?, "name", "source": "server"|"client"}
//   transportErrors = messages for unparseable stdout lines etc. (should be [])
// exit: 0 driver worked (tool errors are data), 1 usage, 2 connect/list failed, 3 timeout.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';

function usage(msg) {
  process.stderr.write(`drive.mjs: ${msg}\n` +
    'usage: node drive.mjs --command <path> --cwd <dir> --calls <json-file> [--args "mcp ..."] ' +
    '[--timeout <s>] [--protocol-version <v>]\n');
  process.exit(1);
}

function parseArgv(argv) {
  const opts = { args: ['mcp'], timeout: 30 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const val = argv[i + 1];
    if (!['--command', '--cwd', '--calls', '--args', '--timeout', '--protocol-version'].includes(key)) {
      usage(`unknown option ${JSON.stringify(key)}`);
    }
    if (val === undefined) usage(`missing value for ${key}`);
    i++;
    switch (key) {
      case '--command': opts.command = val; break;
      case '--cwd': opts.cwd = val; break;
      case '--calls': opts.calls = val; break;
      case '--args':
        opts.args = val.trim().startsWith('[') ? JSON.parse(val) : val.split(' ').filter(s => s.length > 0);
        break;
      case '--timeout': opts.timeout = Number(val); break;
      case '--protocol-version': opts.protocolVersion = val; break;
    }
  }
  if (!opts.command) usage('--command is required');
  if (!opts.calls) usage('--calls is required');
  if (!(opts.timeout > 0)) usage('--timeout must be a positive number of seconds');
  return opts;
}

// McpError formats its message as "MCP error <code>: <server message>"; recover the original.
function errorRecord(err) {
  const rec = {};
  if (err && typeof err.code === 'number') {
    rec.code = err.code;
    rec.message = String(err.message).replace(/^MCP error -?\d+: /, '');
  } else {
    rec.code = null; // client-side failure (e.g. result failed SDK schema validation)
    rec.message = err instanceof Error ? err.message : String(err);
  }
  if (err && err.data !== undefined) rec.data = err.data;
  rec.name = err && err.name ? err.name : typeof err;
  // "server": the server answered with a JSON-RPC error; "client": the SDK client rejected
  // the exchange itself (result failed schema / outputSchema validation, timeout, ...).
  rec.source = lastServerError ? 'server' : 'client';
  return { error: rec };
}

const opts = parseArgv(process.argv.slice(2));

let calls;
try {
  calls = JSON.parse(readFileSync(opts.calls, 'utf8'));
} catch (e) {
  usage(`cannot read calls file ${opts.calls}: ${e.message}`);
}
if (!Array.isArray(calls)) usage('calls file must contain a JSON array');

const transport = new StdioClientTransport({
  command: opts.command,
  args: opts.args,
  cwd: opts.cwd,
  // The SDK's default env is a small allow-list (HOME, PATH, ...); pass ours through.
  env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)),
  stderr: 'inherit',
});

// Observe the wire: remember the initialize request id (optionally overriding
// its protocolVersion) and pick the negotiated version out of its response.
let initializeId = null;
let protocolVersion = null;
let lastRequestId = null;      // id of the most recent request we sent (calls are sequential)
let lastServerError = null;    // JSON-RPC error object the server sent for lastRequestId
const transportErrors = [];
const origSend = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message && typeof message.method === 'string' && 'id' in message) {
    lastRequestId = message.id;
    lastServerError = null;
  }
  if (message && message.method === 'initialize' && 'id' in message) {
    initializeId = message.id;
    if (opts.protocolVersion) {
      message = { ...message, params: { ...message.params, protocolVersion: opts.protocolVersion } };
    }
  }
  return origSend(message, options);
};
// Protocol.connect() chains any onmessage/onerror already set on the transport.
transport.onmessage = message => {
  if (message && message.id === lastRequestId && message.error) lastServerError = message.error;
  if (initializeId !== null && message && message.id === initializeId && message.result &&
      typeof message.result.protocolVersion === 'string') {
    protocolVersion = message.result.protocolVersion;
  }
};
transport.onerror = err => {
  transportErrors.push(err instanceof Error ? err.message : String(err));
};

const timer = setTimeout(() => {
  process.stderr.write(`drive.mjs: overall timeout of ${opts.timeout}s exceeded; killing server\n`);
  const pid = transport.pid;
  if (pid) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  process.exit(3);
}, opts.timeout * 1000);

const client = new Client({ name: 'nib-mcp-test', version: '1.0.0' });

async function fail(stage, err) {
  process.stderr.write(`drive.mjs: ${stage} failed: ${err && err.stack ? err.stack : err}\n`);
  try { await client.close(); } catch { /* ignore */ }
  clearTimeout(timer);
  process.exit(2);
}

try {
  await client.connect(transport);
} catch (err) {
  await fail('connect/initialize', err);
}

const tools = [];
try {
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
} catch (err) {
  await fail('tools/list', err);
}

const anyResult = z.any();
const results = [];
for (const entry of calls) {
  if (entry && typeof entry.tool === 'string') {
    const rec = { tool: entry.tool };
    try {
      rec.result = await client.callTool({ name: entry.tool, arguments: entry.arguments ?? {} });
    } catch (err) {
      Object.assign(rec, errorRecord(err));
    }
    results.push(rec);
  } else if (entry && typeof entry.raw === 'string') {
    const rec = { raw: entry.raw };
    const request = entry.params === undefined ? { method: entry.raw } : { method: entry.raw, params: entry.params };
    try {
      rec.result = await client.request(request, anyResult);
    } catch (err) {
      Object.assign(rec, errorRecord(err));
    }
    results.push(rec);
  } else {
    results.push({ error: { code: null, message: `bad calls entry: ${JSON.stringify(entry)}`, name: 'DriverError' } });
  }
}

const out = {
  serverVersion: client.getServerVersion() ?? null,
  serverCapabilities: client.getServerCapabilities() ?? null,
  protocolVersion,
  instructions: client.getInstructions() ?? null,
  tools,
  results,
  transportErrors,
};

try {
  await client.close();
} catch (err) {
  transportErrors.push(`close: ${err && err.message ? err.message : err}`);
}
clearTimeout(timer);
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
