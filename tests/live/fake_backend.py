#!/usr/bin/env python3
"""A fake language server for fault injection in nib's live-provider tests.

usage: fake_backend.py MODE EVENTS_FILE
  hang   answers initialize, never answers a navigation request
  die    answers initialize, exits with status 3 on the first navigation request
  mute   never answers initialize
  steer  answers each navigation request with the requested position, after reading
         EVENTS_FILE.steer: `hang` leaves the request unanswered, `slow N` answers after N ms
Every start (with the process id), navigation request and $/cancelRequest is appended to
EVENTS_FILE, so a test can count restarts, kill the process and see cancellations arrive. Real backends (clangd, pylsp,
typescript-language-server) are tested separately; this one only misbehaves on purpose.
"""
import json
import os
import sys
import time

mode, events = sys.argv[1], sys.argv[2]


def note(line):
    with open(events, "a") as f:
        f.write(line + "\n")


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))


def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


note("start %d" % os.getpid())
while True:
    m = read()
    if m is None:
        break
    method = m.get("method")
    if method == "initialize":
        if mode == "mute":
            continue
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"capabilities": {}, "serverInfo": {"name": "fake-" + mode}}})
    elif method == "$/cancelRequest":
        note("cancel %s" % m["params"]["id"])
    elif method in ("textDocument/definition", "textDocument/references"):
        note("request")
        if mode == "die":
            sys.exit(3)
        if mode == "steer":
            try:
                steer = open(events + ".steer").read().split()
            except OSError:
                steer = []
            if steer[:1] == ["hang"]:
                continue
            if steer[:1] == ["slow"]:
                time.sleep(int(steer[1]) / 1000)
            p = m["params"]
            at = {"start": p["position"], "end": p["position"]}
            send({"jsonrpc": "2.0", "id": m["id"], "result": [{"uri": p["textDocument"]["uri"], "range": at}]})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    elif method == "exit":
        sys.exit(0)
