#!/usr/bin/env python3
"""Request latency as an editor meets it: files open, requests over stdio, against the floor.

Runs, in one process and through one client, three servers side by side:
  echo   bench/lsp_echo.c, which answers every request with null: the floor (pipe, framing,
         this client's JSON);
  nib    `nib serve --provider static`;
  live   the language's own server (clangd, pylsp or typescript-language-server).
Positions are sampled from the repository's source files by a seeded generator (identifiers
in the text, not nib's index). For each sampled file, every server gets `didOpen` first, as an
editor sends it; the first request after opening is timed apart ("first after open": clangd
parses the file there). Then each position's definition and references requests go to the
three servers interleaved, the order rotating per request. Every request is counted; a request
that errs counts with its time and is reported. Prints p50/p95 per server and method, each
server's p50 over the floor's, nib's speed-up over the live server, and peak RSS.

Usage: bench/editor_bench.py [--repo DIR] [--language c|python|typescript] [--files N]
                             [--per-file K] [--seed S] [--build DIR]
"""
import argparse
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lsp_bench import Client, percentile, without_sampler  # noqa: E402

IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")
LANGUAGES = {
    "c": (re.compile(r"\.(c|h)$"), "c", ["clangd", "--log=error"]),
    "cpp": (re.compile(r"\.(cc|cpp|cxx|hpp|hh|h)$"), "cpp", ["clangd", "--log=error"]),
    "python": (re.compile(r"\.py$"), "python", ["pylsp"]),
    "typescript": (re.compile(r"\.(ts|tsx)$"), "typescript", ["typescript-language-server", "--stdio"]),
}
METHODS = ["textDocument/definition", "textDocument/references"]


class Server:
    def __init__(self, name, cmd, repo):
        self.name = name
        self.client = Client(cmd, repo)
        self.errors = 0
        self.empty = 0

    def request(self, method, params):
        """Sends one request and waits for its answer, answering the server's own requests
        (clangd asks to create progress tokens) on the way. Returns (ms, response): the time
        until the whole response has arrived; decoding it is this client's work, not the
        server's, and a long answer would otherwise pay for it where the floor's null does not."""
        elapsed, msg = self.client.timed_request(method, params)
        return elapsed * 1000, msg

    def notify(self, method, params):
        self.client.send({"jsonrpc": "2.0", "method": method, "params": params})

    def peak_rss_mib(self):
        """The peak RSS of the server's process (its children not included)."""
        try:
            status = open(f"/proc/{self.client.proc.pid}/status").read()
            return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024
        except (OSError, AttributeError):
            return float("nan")

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.client.proc.wait(timeout=30)
        except Exception:  # a server that died already
            self.client.proc.kill()


def sample(repo, pattern, files_wanted, per_file, rng, keep=None):
    """Up to files_wanted (path, text, positions) with per_file identifier positions each. With
    keep, an identifier match m of a file's bytes is a candidate only when keep(data, m)."""
    files = sorted(f for f in subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True,
                                             check=True).stdout.split() if pattern.search(f))
    rng.shuffle(files)
    chosen = []
    for path in files:
        if len(chosen) >= files_wanted:
            break
        data = open(os.path.join(repo, path), "rb").read()
        # A position's column counts bytes, which equal UTF-16 units (LSP's) only where the line
        # before the identifier is ASCII: such identifiers are candidates, wherever the file has
        # other characters (dav1d's files all open with "Copyright ©"; until 2026-12-07 the
        # sampler took identifiers before a file's first non-ASCII byte only).
        idents = [m for m in IDENT.finditer(data)
                  if data[data.rfind(b"\n", 0, m.start()) + 1:m.start()].isascii() and (keep is None or keep(data, m))]
        if len(idents) < per_file:
            continue
        picks = sorted(rng.sample(idents, per_file), key=lambda m: m.start())
        positions = []
        for m in picks:
            line = data.count(b"\n", 0, m.start())
            positions.append((line, m.start() - (data.rfind(b"\n", 0, m.start()) + 1)))
        chosen.append((path, data.decode("utf-8", "replace"), positions))
    return chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo")
    ap.add_argument("--language", default="c", choices=sorted(LANGUAGES))
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--per-file", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--live", help="the live server's command line (default: the language's)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    nib = os.path.join(build, "cli", "nib")
    echo = os.path.join(build, "bench", "nib_lsp_echo")
    repo = args.repo
    if not repo:
        subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), "tmux"], check=True)
        repo = os.path.join(HERE, "corpus", "tmux")
    repo = os.path.abspath(repo)
    pattern, language_id, live_cmd = LANGUAGES[args.language]
    if args.live:
        live_cmd = args.live.split()
    elif live_cmd[0] == "clangd":
        # clangd looks for compile_commands.json (and build/compile_commands.json) in every
        # folder above the file: a corpus under nib's checkout would get nib's own database, and
        # clangd would index nib in the background during the run. The repository's own
        # folder is where a user's clangd would find one, if it has one.
        live_cmd = live_cmd + ["--compile-commands-dir=" + repo]
    if not shutil.which(live_cmd[0]):
        sys.exit(f"bench: {live_cmd[0]} is not on PATH")
    subprocess.run([nib, "index", "-q", "--wait"], cwd=repo, check=True)  # complete views (made-up units too), no dense view
    chosen = sample(repo, pattern, args.files, args.per_file, random.Random(args.seed))
    if not chosen:
        sys.exit("bench: no source file of that language with enough identifiers")

    servers = [Server("echo", [echo], repo), Server("nib", [nib, "serve", "--provider", "static"], repo),
               Server("live", live_cmd, repo)]
    for s in servers:
        s.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {
            "textDocument": {"definition": {}, "references": {}}}, "workspaceFolders": [
            {"uri": "file://" + repo, "name": "repo"}]})
        s.notify("initialized", {})

    first = {s.name: [] for s in servers}
    times = {(s.name, m): [] for s in servers for m in METHODS}
    turn = 0
    for path, text, positions in chosen:
        uri = "file://" + os.path.join(repo, path)
        for s in servers:
            s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language_id,
                                                                 "version": 1, "text": text}})
        line, col = positions[0]
        for s in servers:
            ms, r = s.request(METHODS[0], {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}})
            first[s.name].append(ms)
        for line, col in positions:
            for method in METHODS:
                params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}
                if method.endswith("references"):
                    params["context"] = {"includeDeclaration": True}
                order = servers[turn % 3:] + servers[:turn % 3]
                turn += 1
                for s in order:
                    ms, r = s.request(method, params)
                    times[(s.name, method)].append(ms)
                    if "error" in r:
                        s.errors += 1
                    elif not r.get("result"):
                        s.empty += 1
        for s in servers:
            s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    rss = {s.name: s.peak_rss_mib() for s in servers}
    for s in servers:
        s.close()

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"repository: {repo}; {len(chosen)} {args.language} files opened, {args.per_file} positions each, "
          f"seed {args.seed}; live server: {' '.join(live_cmd)}")
    print("each request timed from sending until its whole answer has arrived (decoding it not counted), by one Python client over stdio; the three servers interleaved")
    print(f"{'server':<6}{'request':<22}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'p50/floor':>11}")
    floor = {m: percentile(times[("echo", m)], 0.5) for m in METHODS}
    for s in servers:
        rows = [("first after open", first[s.name], floor[METHODS[0]])]
        rows += [(m.split("/")[1], times[(s.name, m)], floor[m]) for m in METHODS]
        for name, values, fl in rows:
            p50 = percentile(values, 0.5)
            print(f"{s.name:<6}{name:<22}{len(values):>5}{p50:>9.3f}{percentile(values, 0.95):>9.3f}{p50 / fl:>10.1f}x")
    for m in METHODS:
        n50, l50 = percentile(times[("nib", m)], 0.5), percentile(times[("live", m)], 0.5)
        print(f"{m.split('/')[1]}: nib p50 is {l50 / n50:.1f}x faster than the live server's")
    for s in servers:
        print(f"{s.name}: {s.errors} errors, {s.empty} empty answers, peak RSS {rss[s.name]:.1f} MiB")


if __name__ == "__main__":
    without_sampler()
    main()
