#!/usr/bin/env python3
"""Cold build time of nib's clang view against clangd's background index, same machine, same run.

Per round, in alternating order:
  clangd  `clangd --background-index --limit-references=0 --log=error --compile-commands-dir=REPO`
          with its index folder (REPO/.cache/clangd) removed first; the client initializes, opens
          the compilation database's first file, and the time is from the process's start to the
          end of the last `$/progress` clangd began (its background index); clangd is then shut
          down. The unit count clangd reports in the progress title is printed.
  nib     `nib index --force --full --no-dense --no-precise` with .nib/clang-cache removed; the
          time is the `clang` phase the command prints (the whole command's wall time apart): the
          units of the compilation database, as clangd's background index has them. Files no
          compile command builds (made-up units, which clangd's index never parses) are left to a
          background follow-up version: the time until it is published (from the command's start,
          polling the index's CURRENT) is printed beside, as `with made-up units`.
Both use every core (clangd's -j and nib's --threads default to the core count).
Prints per-round times and medians, and the machine.

Usage: bench/clang_index_bench.py --repo DIR [--rounds N] [--build DIR] [--timeout S]
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

from lsp_bench import Client

HERE = os.path.dirname(os.path.abspath(__file__))


def first_source(repo):
    with open(os.path.join(repo, "compile_commands.json")) as f:
        entries = json.load(f)
    for e in entries:
        path = e["file"] if os.path.isabs(e["file"]) else os.path.join(e["directory"], e["file"])
        if os.path.exists(path):
            return path
    raise SystemExit("bench: no existing file in compile_commands.json")


def clangd_round(repo, timeout):
    shutil.rmtree(os.path.join(repo, ".cache", "clangd"), ignore_errors=True)
    started = time.monotonic()
    client = Client(["clangd", "--background-index", "--limit-references=0", "--log=error",
                     "--compile-commands-dir=" + repo], repo)
    send = client.send
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": "file://" + repo,
        "capabilities": {"window": {"workDoneProgress": True}}}})
    path = first_source(repo)
    active, ended_at, titles, opened = set(), None, [], False
    while time.monotonic() - started < timeout:
        msg = client.read()
        if msg.get("id") == 1 and not opened:
            send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            with open(path, errors="replace") as f:
                text = f.read()
            send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": "file://" + path, "languageId": "c", "version": 1, "text": text}}})
            opened = True
        elif msg.get("method") == "window/workDoneProgress/create":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif msg.get("method") == "$/progress":
            value = msg["params"]["value"]
            token = json.dumps(msg["params"]["token"])
            if value.get("kind") == "begin":
                active.add(token)
            elif value.get("kind") == "report" and value.get("message"):
                titles.append(value["message"])
            elif value.get("kind") == "end":
                active.discard(token)
                if not active:
                    ended_at = time.monotonic()
                    break
    elapsed = (ended_at or time.monotonic()) - started
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    try:
        client.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        client.proc.kill()
    return elapsed if ended_at else None, (titles[-1] if titles else "")


def nib_round(repo, nib):
    shutil.rmtree(os.path.join(repo, ".nib", "clang-cache"), ignore_errors=True)
    started = time.monotonic()
    out = subprocess.run([nib, "index", "--force", "--full", "--no-dense", "--no-precise"], cwd=repo,
                         capture_output=True, text=True)
    wall = time.monotonic() - started
    if out.returncode != 0:
        raise SystemExit("bench: nib index failed:\n" + out.stderr)
    phase = re.search(r"clang ([0-9.]+) s", out.stdout)
    units = re.search(r"^\s*clang\s+(.*)$", out.stdout, re.M)
    # A follow-up runs when made-up units were deferred: files no compile command builds, or
    # headers parsed alone (`nib index` says which, in words).
    deferred = "indexed in the background" in out.stdout or "parsed alone in the background" in out.stdout
    complete = wait_for_follow_up(repo, started, timeout=600) if deferred else wall
    return (float(phase.group(1)) if phase else None), wall, (units.group(1) if units else ""), complete


def current_manifest(repo):
    try:
        with open(os.path.join(repo, ".nib", "CURRENT")) as f:
            version = f.read().strip()
        with open(os.path.join(repo, ".nib", "versions", version, "manifest")) as f:
            return f.read()
    except OSError:
        return ""


def wait_for_follow_up(repo, started, timeout):
    """Seconds from `started` until the current version's clang view no longer waits for its
    made-up units (None when it did not happen within `timeout`)."""
    while time.monotonic() - started < timeout:
        m = current_manifest(repo)
        caps = re.search(r"^view\.clang\.capabilities: (.*)$", m, re.M)
        if caps and "uncompiled-pending" not in caps.group(1):
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    nib = os.path.join(os.path.abspath(args.build), "cli", "nib")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"repository: {repo}")
    clangd_times, nib_times, complete_times = [], [], []
    for r in range(args.rounds):
        order = ["clangd", "nib"] if r % 2 == 0 else ["nib", "clangd"]
        for side in order:
            if side == "clangd":
                t, last = clangd_round(repo, args.timeout)
                print(f"round {r + 1} clangd background index: " + (f"{t:.2f} s" if t else "did not end") +
                      (f"  (last progress: {last})" if last else ""), flush=True)
                if t:
                    clangd_times.append(t)
            else:
                t, wall, units, complete = nib_round(repo, nib)
                print(f"round {r + 1} nib clang view: {t:.2f} s (nib index {wall:.2f} s; with made-up units " +
                      (f"{complete:.2f} s" if complete else "not published") + f"; {units})", flush=True)
                nib_times.append(t)
                if complete:
                    complete_times.append(complete)
    if clangd_times and nib_times:
        c, n = statistics.median(clangd_times), statistics.median(nib_times)
        print(f"median: clangd {c:.2f} s, nib {n:.2f} s, nib / clangd {n / c:.2f}" +
              (f"; with made-up units {statistics.median(complete_times):.2f} s" if complete_times else ""))


if __name__ == "__main__":
    sys.exit(main())
