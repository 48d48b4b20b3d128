#!/usr/bin/env python3
"""The precise view's indexing time against a live server's time to its first answer.

For a repository (a git work tree; a scratch copy is made, so its own .nib is never touched),
each round does, one after the other on an otherwise idle machine:
  nib   a cold `nib index --no-dense` of the copy (its .nib removed first); the figure is the
        precise phase as `nib index` reports it (the SCIP indexers of every project, and reading
        what they wrote), next to the whole build;
  live  for each of --files sampled files of the language, a fresh live server (started by this
        client, then `initialize`, `initialized`, `didOpen`), asked textDocument/references at
        the file's first sampled identifier (positions from the text, as agreement_bench.py
        draws them, never from nib's index); the figure is the time from starting the server's
        process to its first answer that is not an error (an error — a project still loading —
        is asked again after 0.2 s, the wait counted).
Rounds alternate the two sides. Prints each round and the medians, and the machine.

With --at PATH:LINE:COL the live side is also asked there (a name used across the project: a
sampled identifier is often a local, which a server answers from the open file alone).

Usage: bench/precise_time_bench.py --repo DIR --language typescript|python [--files N] [--rounds R]
                                   [--seed S] [--build DIR] [--live NAME=CMD ...] [--at PATH:LINE:COL ...]
"""
import argparse
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agreement_bench  # noqa: E402
import editor_bench  # noqa: E402

PRECISE = re.compile(r"precise (\d+(?:\.\d+)?) s")
TOTAL = re.compile(r"^\s*time\s+(\d+(?:\.\d+)?) s", re.M)


def index_round(nib, copy):
    shutil.rmtree(os.path.join(copy, ".nib"), ignore_errors=True)
    out = subprocess.run([nib, "index", "--no-dense"], cwd=copy, check=True, capture_output=True, text=True).stdout
    precise, total = PRECISE.search(out), TOTAL.search(out)
    if not precise or not total:
        sys.exit("bench: `nib index` printed no precise phase:\n" + out)
    projects = re.search(r"precise\s+(\d+) projects \((\d+) indexed, (\d+) cached, (\d+) failed\)", out)
    if projects and projects.group(4) != "0":
        sys.exit("bench: a project failed:\n" + out)
    return float(precise.group(1)), float(total.group(1)), projects.group(1) if projects else "?"


def first_answer(name, cmd, copy, path, text, position, language_id, timeout):
    """Seconds from the server's start to its first references answer that is not an error."""
    start = time.perf_counter()
    server = agreement_bench.TimedServer(name, cmd, copy, timeout)
    init = {"processId": os.getpid(), "rootUri": "file://" + copy, "rootPath": copy,
            "workspaceFolders": [{"uri": "file://" + copy, "name": os.path.basename(copy)}],
            "capabilities": {"textDocument": {"references": {}}, "workspace": {"configuration": True}}}
    _, r = server.request("initialize", init, timeout=timeout)
    if "error" in r:
        sys.exit(f"bench: {name} did not initialize: {r['error']}")
    server.notify("initialized", {})
    uri = "file://" + os.path.join(copy, path)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language_id, "version": 1,
                                                            "text": text}})
    params = {"textDocument": {"uri": uri}, "position": {"line": position[0], "character": position[1]},
              "context": {"includeDeclaration": True}}
    while True:
        _, r = server.request("textDocument/references", params, timeout=timeout)
        if "error" not in r or server.dead or time.perf_counter() - start > timeout:
            break
        time.sleep(0.2)
    elapsed = time.perf_counter() - start
    server.close()
    if "error" in r:
        sys.exit(f"bench: {name} answered {r['error']} at {path}:{position}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--language", required=True, choices=["typescript", "python"])
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--live", action="append", metavar="NAME=CMD", help="a live server (replaces the defaults)")
    ap.add_argument("--at", action="append", metavar="PATH:LINE:COL",
                    help="also ask at this position (1-based; a name used across the project, whose references "
                         "a live server finds only by reading the whole project)")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()

    repo = os.path.abspath(args.repo)
    nib = os.path.join(os.path.abspath(args.build), "cli", "nib")
    scratch = tempfile.mkdtemp(prefix="nib-precise-time-")
    copy = os.path.join(scratch, os.path.basename(repo))
    shutil.copytree(repo, copy, symlinks=True, ignore=shutil.ignore_patterns(".nib"))
    if not os.path.isdir(os.path.join(copy, ".git")):
        sys.exit("bench: --repo must be a git work tree")
    lives = [(n, shlex.split(c)) for n, _, c in (s.partition("=") for s in args.live)] if args.live else \
        agreement_bench.default_live(args.language, copy)
    pattern, ids_by_ext, language_id = agreement_bench.LANGUAGES[args.language][:3]
    chosen = editor_bench.sample(copy, pattern, args.files, 1, random.Random(args.seed),
                                 keep=agreement_bench.Candidates(args.language))
    if not chosen:
        sys.exit("bench: no source file of that language with enough identifiers")
    for spec in args.at or []:
        path, line, col = spec.rsplit(":", 2)
        with open(os.path.join(copy, path), encoding="utf-8", errors="replace") as f:
            chosen.append((path, f.read(), [(int(line) - 1, int(col) - 1)]))

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}")
    print(f"repository: {repo} (copy in {copy}); files: {', '.join(p for p, _, _ in chosen)}")
    precise_s, totals, live_s = [], [], {}
    for rnd in range(args.rounds):
        sides = ["nib", "live"] if rnd % 2 == 0 else ["live", "nib"]
        for side in sides:
            if side == "nib":
                p, t, projects = index_round(nib, copy)
                precise_s.append(p)
                totals.append(t)
                print(f"round {rnd + 1}: nib index --no-dense: precise {p:.2f} s of {t:.2f} s ({projects} projects)")
                continue
            for name, cmd in lives:
                for path, text, positions in chosen:
                    lang_id = ids_by_ext.get(os.path.splitext(path)[1], language_id)
                    s = first_answer(name, cmd, copy, path, text, positions[0], lang_id, args.timeout)
                    live_s.setdefault((name, f"{path}:{positions[0][0] + 1}:{positions[0][1] + 1}"), []).append(s)
                    print(f"round {rnd + 1}: {name} first references answer in {path}: {s:.2f} s")
    print("\n| side | median s | min s | max s | runs |\n| --- | --- | --- | --- | --- |")
    print(f"| nib precise phase | {statistics.median(precise_s):.2f} | {min(precise_s):.2f} | {max(precise_s):.2f} | "
          f"{len(precise_s)} |")
    print(f"| nib index (whole, --no-dense) | {statistics.median(totals):.2f} | {min(totals):.2f} | {max(totals):.2f} | "
          f"{len(totals)} |")
    for (name, where), values in live_s.items():
        print(f"| {name} first answer at {where} | {statistics.median(values):.2f} | {min(values):.2f} | "
              f"{max(values):.2f} | {len(values)} |")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
