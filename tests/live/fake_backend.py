#!/usr/bin/env python3
"""A fake language server for fault injection in nib's live-provider tests.

usage: fake_backend.py MODE EVENTS_FILE
  hang   answers initialize, never answers a navigation request
  die    answers initialize, exits with status 3 on the first navigation request
  mute   never answers initialize
  steer  answers each navigation request with the requested position, after reading
         EVENTS_FILE.steer: `hang` leaves the request unanswered, `slow N` answers after N ms
  firstword  a backend that is right about one thing only, for the calibration tests: a
         definition is the first whole-word occurrence of the word at the position in the
         document's text (right for a file where every name is defined before it is used), and
         references are the position alone (wrong wherever a name is used twice); it reads
         EVENTS_FILE.steer as steer does
Every start (with the process id), navigation request and $/cancelRequest is appended to
EVENTS_FILE, so a test can count restarts, kill the process and see cancellations arrive. Real backends (clangd, pylsp,
typescript-language-server) are tested separately; this one only misbehaves on purpose.
"""
import json
import os
import re
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


def first_word(text, line, character):
    """The range of the first whole-word occurrence of the word at (line, character), if any."""
    lines = text.split("\n")
    if line >= len(lines):
        return None
    row = lines[line]
    for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", row):
        if m.start() <= character < m.end():
            for n, other in enumerate(lines):
                first = re.search(r"\b%s\b" % re.escape(m.group()), other)
                if first:
                    return {"start": {"line": n, "character": first.start()},
                            "end": {"line": n, "character": first.end()}}
    return None


texts = {}
note("start %d nice %d" % (os.getpid(), os.nice(0)))
while True:
    m = read()
    if m is None:
        break
    method = m.get("method")
    if method == "initialize":
        if mode == "mute":
            continue
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"capabilities": {}, "serverInfo": {"name": "fake-" + mode}}})
    elif method == "textDocument/didOpen":
        texts[m["params"]["textDocument"]["uri"]] = m["params"]["textDocument"]["text"]
    elif method == "textDocument/didChange":
        texts[m["params"]["textDocument"]["uri"]] = m["params"]["contentChanges"][-1]["text"]
    elif method == "$/cancelRequest":
        note("cancel %s" % m["params"]["id"])
    elif method in ("textDocument/definition", "textDocument/references"):
        note("request")
        if mode == "die":
            sys.exit(3)
        if mode in ("steer", "firstword"):
            try:
                steer = open(events + ".steer").read().split()
            except OSError:
                steer = []
            if steer[:1] == ["hang"]:
                continue
            if steer[:1] == ["slow"]:
                time.sleep(int(steer[1]) / 1000)
            p = m["params"]
            uri = p["textDocument"]["uri"]
            at = {"start": p["position"], "end": p["position"]}
            if mode == "firstword" and method == "textDocument/definition":
                at = first_word(texts.get(uri, ""), p["position"]["line"], p["position"]["character"])
            result = [{"uri": uri, "range": at}] if at else []
            send({"jsonrpc": "2.0", "id": m["id"], "result": result})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    elif method == "exit":
        sys.exit(0)
