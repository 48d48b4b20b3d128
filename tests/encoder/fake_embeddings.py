#!/usr/bin/env python3
"""A small OpenAI-compatible embeddings endpoint for nib's tests (not a model): POST
/v1/embeddings {input: [texts], model} answers one vector per text, the text's lower-case words
hashed (CRC-32) into --dim buckets, so that equal word bags get equal vectors. GET /stats
answers {requests, texts} served so far. Binds 127.0.0.1 on a free port and writes the port to
PORTFILE once it is listening.
Usage: fake_embeddings.py PORTFILE [--dim N]
"""
import argparse
import json
import re
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

stats = {"requests": 0, "texts": 0}


def embed(text, dim):
    v = [0.0] * dim
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        v[zlib.crc32(w.encode()) % dim] += 1.0
    return v


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/stats":
            self.reply(200, stats)
        else:
            self.reply(404, {"error": "not found"})

    def do_POST(self):
        if self.path != "/v1/embeddings":
            self.reply(404, {"error": "not found"})
            return
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            texts = req["input"] if isinstance(req["input"], list) else [req["input"]]
        except (ValueError, KeyError):
            self.reply(400, {"error": "bad request"})
            return
        stats["requests"] += 1
        stats["texts"] += len(texts)
        self.reply(200, {"object": "list", "model": req.get("model", ""),
                         "data": [{"object": "embedding", "index": i, "embedding": embed(t, self.server.dim)}
                                  for i, t in enumerate(texts)]})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("portfile")
    ap.add_argument("--dim", type=int, default=16)
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.dim = args.dim
    with open(args.portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(args.portfile + ".tmp", args.portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
