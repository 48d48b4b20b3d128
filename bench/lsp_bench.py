#!/usr/bin/env python3
"""Latency of `nib serve` through its real stdio transport.

Starts `nib serve` on a repository (default: tmux from Debian's sources, fetched by
fetch-corpus.sh and indexed first), samples request positions deterministically from
identifiers in its source files, sends textDocument/definition and textDocument/references
one at a time, and prints per-method p50/p95/max latency (send to response), the time from
process start to the first answer, and the server's peak RSS (VmHWM). Prints the machine.
Usage: bench/lsp_bench.py [--repo DIR] [--samples N] [--seed S] [--build DIR]
"""
import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = re.compile(r"\.(c|h|cc|cpp|hpp|py|js|ts|tsx|go|rs|java)$")
IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")


def without_sampler():
    """Keeps the agreement sampler of every `nib serve` this process starts off (unless the
    environment already says otherwise). After two seconds without a message the sampler starts
    a language server on a random file; in a benchmark that times anything else its work lands
    in the figures, on both sides of a comparison (calibration_bench.py measures the sampler)."""
    os.environ.setdefault("NIB_CALIBRATION_SAMPLES_PER_HOUR", "0")


class Client:
    def __init__(self, cmd, cwd):
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        return json.loads(self.read_raw())

    def read_raw(self):
        """The next message's body, undecoded."""
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("bench: the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return self.proc.stdout.read(length)

    def timed_request(self, method, params):
        """Sends one request; returns (seconds from sending until its whole response has arrived,
        the response). Decoding the response is the client's work and is not counted. The
        server's own requests on the way (clangd asks to create progress tokens) are answered
        with null; its notifications are skipped."""
        self.next_id += 1
        rid = self.next_id
        start = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            body = self.read_raw()
            elapsed = time.perf_counter() - start
            msg = json.loads(body)
            if "method" in msg:
                if "id" in msg:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            if msg.get("id") == rid:
                return elapsed, msg

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == rid and "method" not in msg:
                return msg


def source_files(repo):
    return sorted(f for f in subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True,
                                            check=True).stdout.split() if SOURCE.search(f))


def sample_positions(repo, files, n, rng, ident=IDENT, ascii_only=True):
    """n (path, 0-based line, 0-based byte column, word) at identifiers of the source text, chosen
    by `rng` (a file, then an identifier in it): independent of nib's index. With ascii_only,
    a position after a non-ASCII byte is drawn again (its UTF-16 column would differ)."""
    out = []
    while len(out) < n and files:
        path = rng.choice(files)
        data = open(os.path.join(repo, path), "rb").read()
        idents = list(ident.finditer(data))
        if not idents:
            continue
        m = rng.choice(idents)
        line = data.count(b"\n", 0, m.start())
        col = m.start() - (data.rfind(b"\n", 0, m.start()) + 1)
        if not ascii_only or data[:m.start()].isascii():
            out.append((path, line, col, m.group().decode("ascii", "replace")))
    return out


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p * (len(s) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo")
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = ap.parse_args()
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    repo = args.repo
    if not repo:
        subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), "tmux"], check=True)
        repo = os.path.join(HERE, "corpus", "tmux")
    repo = os.path.abspath(repo)
    subprocess.run([nib, "index", "-q", "--wait"], cwd=repo, check=True)  # complete views (made-up units too), no dense view

    files = source_files(repo)
    positions = [(p, l, c) for p, l, c, _ in sample_positions(repo, files, args.samples, random.Random(args.seed))]

    start = time.monotonic()
    client = Client([nib, "serve"], repo)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    first = None
    # Cold pass: the first definition request at every position (files not yet loaded).
    cold = []
    answered = []
    for path, line, col in positions:
        params = {"textDocument": {"uri": "file://" + os.path.join(repo, path)},
                  "position": {"line": line, "character": col}}
        t = time.monotonic()
        r = client.request("textDocument/definition", params)
        cold.append((time.monotonic() - t) * 1000)
        if first is None:
            first = time.monotonic() - start
        if r.get("result"):
            answered.append(params)
    # Warm pass: definition and references at the positions that name a symbol.
    latency = {"textDocument/definition": [], "textDocument/references": []}
    for method in latency:
        for params in answered:
            p = dict(params)
            if method.endswith("references"):
                p["context"] = {"includeDeclaration": True}
            t = time.monotonic()
            client.request(method, p)
            latency[method].append((time.monotonic() - t) * 1000)
    status = open(f"/proc/{client.proc.pid}/status").read()
    hwm = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
    client.request("shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit"})
    client.proc.wait(timeout=30)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"repository: {repo} ({len(files)} source files), {len(positions)} positions "
          f"({len(answered)} name a symbol), seed {args.seed}")
    print(f"time from process start to the first answer: {first * 1000:.1f} ms")
    print(f"{'request':<36}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'mean ms':>9}")
    rows = [("definition, cold (all positions)", cold)]
    rows += [(m.split("/")[1] + ", warm (symbol positions)", v) for m, v in latency.items()]
    for name, values in rows:
        if values:
            print(f"{name:<36}{len(values):>6}{percentile(values, 0.5):>9.3f}{percentile(values, 0.95):>9.3f}"
                  f"{max(values):>9.3f}{statistics.mean(values):>9.3f}")
    print(f"server peak RSS (VmHWM): {hwm / 1024:.1f} MiB")


if __name__ == "__main__":
    without_sampler()
    main()
