#!/usr/bin/env python3
"""Load under continuous republish (issue 29, item 5): LSP and CLI clients at once while the
worktree changes and `nib index` publishes a version after every edit.

Copies a repository to a scratch folder and indexes it. Then, at the same time:
  * an editor appends a function to a random source file every --edit-ms and runs `nib index`
    (a delta version each time; a full build when the delta would list too many files);
  * --lsp clients, each its own `nib serve` over stdio, send --requests requests each,
    alternating textDocument/definition and textDocument/references at positions sampled from
    the source text (not from the index);
  * --cli clients run `nib def` / `nib refs --json` as whole processes, answered by a
    `nib daemon` the bench starts (daemon-assisted).
Every answer is checked: no error; every location inside its file, and the text at its range
the identifier the answer names (definitions) or the word asked about (references) — the
edits only append, so a range valid in the version answered stays valid on disk. CLI answers
must name one index version and not be partial. At the end, each server's and the daemon's
resident memory, open descriptors and threads are compared with their figures after the
first 10% of requests (leaks show as growth that does not level off).

Usage: bench/load_bench.py --repo DIR [--lsp 8] [--cli 8] [--requests 5000] [--edit-ms 100]
       [--provider static|auto] [--seed S] [--build DIR]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lsp_bench import Client, sample_positions, source_files, without_sampler  # noqa: E402

os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Keywords are no symbols: positions on them are drawn again.
KEYWORDS = set("auto break case char const continue default do double else enum extern float for goto if "
               "inline int long register return short signed sizeof static struct switch typedef union "
               "unsigned void volatile while NULL".split())


def proc_figures(pid):
    try:
        status = open(f"/proc/{pid}/status").read()
        rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
        return {"rss_kib": rss, "fds": len(os.listdir(f"/proc/{pid}/fd")), "threads": len(os.listdir(f"/proc/{pid}/task"))}
    except (OSError, AttributeError):
        return None


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.examples = {}

    def add(self, kind, example=None):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if example and kind not in self.examples:
                self.examples[kind] = example


def text_at(repo, path, rng):
    """The text of a one-line range of the file on disk, or None when it is out of bounds."""
    try:
        lines = open(os.path.join(repo, path), "rb").read().split(b"\n")
    except OSError:
        return None
    s, e = rng["start"], rng["end"]
    if s["line"] != e["line"] or s["line"] >= len(lines):
        return None
    line = lines[s["line"]]
    if e["character"] > len(line) or s["character"] > e["character"]:
        return None
    return line[s["character"]:e["character"]].decode("utf-8", "replace")


def check_locations(repo, locations, word, is_refs, tally, where):
    for loc in locations:
        path = loc.get("path") or loc["uri"][len("file://" + repo) + 1:]
        text = text_at(repo, path, loc["range"])
        if text is None:
            tally.add("range outside its file", f"{where}: {path} {loc['range']}")
        elif is_refs and text != word:
            tally.add("reference range not at the word", f"{where}: {path} {loc['range']} is {text!r}, not {word!r}")
        elif not is_refs and not WORD.fullmatch(text):
            tally.add("definition range not at a name", f"{where}: {path} {loc['range']} is {text!r}")
        else:
            tally.add("location ok")


def guarded(target, tally):
    """Runs a client; an exception (a server that closed its output, a malformed reply) is
    counted as a problem rather than ending the thread unnoticed."""
    def run(*args):
        try:
            target(*args)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - every failure is a finding here
            tally.add("client failed", f"{target.__name__}: {e!r}")
    return run


def lsp_client(nib, repo, positions, n, tally, figures, index, provider):
    c = Client([nib, "serve", "--provider", provider], repo)
    c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
    c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    for i in range(n):
        path, line, col, word = positions[(i * 7 + index) % len(positions)]
        is_refs = i % 2 == 1
        locate = i % 3 == 2  # nib/locate: the same answer, naming the version it reflects
        params = {"textDocument": {"uri": "file://" + os.path.join(repo, path)}, "position": {"line": line, "character": col}}
        if is_refs:
            params["context"] = {"includeDeclaration": True}
        if locate:
            params["request"] = "references" if is_refs else "definition"
            params["includeDeclaration"] = True
        method = "nib/locate" if locate else "textDocument/references" if is_refs else "textDocument/definition"
        reply = c.request(method, params)
        if "error" in reply:
            tally.add("lsp error", f"{path}:{line + 1}:{col + 1}: {reply['error']}")
            continue
        tally.add("lsp answer")
        result = reply.get("result") or []
        if locate and not isinstance(result, dict):
            result = []  # no symbol at the position: null, as for the standard requests
        elif locate:
            if not result.get("indexVersion"):
                tally.add("lsp answer without a version", f"{path}:{line + 1}")
            if result.get("partial"):
                tally.add("lsp answer partial", f"{path}:{line + 1}")
            result = result.get("locations", [])
        check_locations(repo, result if isinstance(result, list) else [result], word, is_refs, tally, f"lsp {path}:{line + 1}")
        if i == n // 10:
            figures[f"serve {index}"] = [proc_figures(c.proc.pid)]
    figures[f"serve {index}"].append(proc_figures(c.proc.pid))
    c.request("shutdown", None)
    c.send({"jsonrpc": "2.0", "method": "exit"})
    c.proc.wait(timeout=30)


def cli_client(nib, repo, positions, n, tally, index):
    for i in range(n):
        path, line, col, word = positions[(i * 5 + index) % len(positions)]
        is_refs = i % 2 == 1
        r = subprocess.run([nib, "refs" if is_refs else "def", f"{path}:{line + 1}:{col + 1}", "--json"], cwd=repo,
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            tally.add("cli error", f"{path}:{line + 1}:{col + 1}: rc {r.returncode}: {r.stderr.strip()[:200]}")
            continue
        try:
            answer = json.loads(r.stdout)
        except json.JSONDecodeError:
            tally.add("cli error", f"{path}:{line + 1}: not JSON: {r.stdout[:200]!r} {r.stderr[:200]!r}")
            continue
        fresh = answer.get("freshness", {})
        if not fresh.get("indexVersion"):
            tally.add("cli answer without a version", f"{path}:{line + 1}")
        if fresh.get("partial"):
            tally.add("cli answer partial", f"{path}:{line + 1}: {fresh}")
        tally.add("cli answer")
        check_locations(repo, answer.get("locations", []), word, is_refs, tally, f"cli {path}:{line + 1}")


def editor(nib, repo, files, edit_ms, stop, tally, rng):
    cycle = 0
    while not stop.is_set():
        cycle += 1
        path = rng.choice(files)
        with open(os.path.join(repo, path), "a") as fh:
            fh.write(f"\nstatic int nib_load_{cycle}(int x) {{ return x + {cycle}; }}\n")
        r = subprocess.run([nib, "index", "-q"], cwd=repo, capture_output=True, text=True)
        tally.add("index published" if r.returncode == 0 else "index failed", r.stderr.strip()[:200])
        stop.wait(edit_ms / 1000)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--lsp", type=int, default=8)
    ap.add_argument("--cli", type=int, default=8)
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--edit-ms", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    # The servers answer from the index: a live backend's answers (clangd without a compilation
    # database, say) are that backend's to judge, and eight of them would measure it, not nib.
    ap.add_argument("--provider", default="static")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="nib-load-")
    # The programs run from a copy: a rebuild during a long run must not swap them midway.
    bindir = os.path.join(scratch, "bin")
    os.makedirs(bindir)
    for name in os.listdir(os.path.join(args.build, "cli")):
        src = os.path.join(args.build, "cli", name)
        if os.path.isfile(src) and (name.startswith("nib") or name.endswith(".so")):
            shutil.copy2(src, bindir)
    nib = os.path.join(bindir, "nib")
    daemon = None
    try:
        repo = os.path.join(scratch, "repo")
        shutil.copytree(os.path.abspath(args.repo), repo, symlinks=True, ignore=shutil.ignore_patterns(".nib"))
        subprocess.run([nib, "index", "-q", "--no-dense"], cwd=repo, check=True)
        rng = random.Random(args.seed)
        files = [f for f in source_files(repo) if f.endswith((".c", ".h"))] or source_files(repo)
        positions = [p for p in sample_positions(repo, files, 3000, rng) if p[3] not in KEYWORDS][:2000]
        daemon = subprocess.Popen([nib, "daemon", "run"], cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        tally, figures, stop = Tally(), {}, threading.Event()
        edit = threading.Thread(target=editor, args=(nib, repo, files, args.edit_ms, stop, tally, random.Random(args.seed + 1)))
        clients = [threading.Thread(target=guarded(lsp_client, tally),
                                    args=(nib, repo, positions, args.requests, tally, figures, i, args.provider))
                   for i in range(args.lsp)]
        clients += [threading.Thread(target=guarded(cli_client, tally), args=(nib, repo, positions, args.requests, tally, i))
                    for i in range(args.cli)]
        t0 = time.time()
        daemon_start = proc_figures(daemon.pid)
        edit.start()
        for t in clients:
            t.start()
        while any(t.is_alive() for t in clients):
            next(t for t in clients if t.is_alive()).join(60)
            done = tally.counts.get("lsp answer", 0) + tally.counts.get("cli answer", 0)
            bad = sum(v for k, v in tally.counts.items() if not k.endswith(("ok", "answer", "published")))
            print(f"  {time.time() - t0:5.0f} s: {done} answered, {tally.counts.get('index published', 0)} published, "
                  f"{bad} problems", flush=True)
        stop.set()
        edit.join()
        elapsed = time.time() - t0
        print(f"{args.repo}: {args.lsp} LSP + {args.cli} CLI clients x {args.requests} requests, "
              f"an edit and `nib index` every {args.edit_ms} ms; {elapsed:.0f} s")
        for kind in sorted(tally.counts):
            print(f"  {kind:36s} {tally.counts[kind]}")
            if kind in tally.examples and not kind.endswith(("ok", "answer", "published")):
                print(f"      e.g. {tally.examples[kind]}")
        print(f"  daemon: start {daemon_start}, end {proc_figures(daemon.pid)}")
        for name in sorted(figures):
            print(f"  {name}: after 10% {figures[name][0]}, end {figures[name][-1]}")
        bad = sum(v for k, v in tally.counts.items() if not k.endswith(("ok", "answer", "published")))
        print("clean" if bad == 0 else f"{bad} problems")
    finally:
        if daemon:
            daemon.terminate()
            daemon.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    without_sampler()
    main()
