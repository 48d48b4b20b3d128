#!/usr/bin/env python3
"""What the history view costs a build: a synthetic repository of 2,000 C files and 12,000
commits (each changing 1-3 files, its message 4-14 words drawn from 2,000 — every message says
something new, the hardest case for the translation model), indexed cold with
`index.history-commits` at each cap, then again with the walk's cache kept (a later full build).
Prints the build's history phases as `nib index` reports them: `history-walk` (the walk, beside
the extract phase) and `history` (waiting for the walk, the translation model, writing the view).

  python3 bench/history_cost_bench.py [--build DIR] [--caps 5000 10000] [--runs 2]
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys

WORK = "/tmp/nib-history-cost"


def make_repo(path, files=2000, commits=12000, seed=7):
    """The synthetic history, written by `git fast-import` (seconds, not minutes)."""
    if os.path.isdir(os.path.join(path, ".git")):
        return
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(2000)]
    verbs = ["get", "set", "make", "free", "parse", "scan", "emit", "load"]
    names = [f"{rng.choice(verbs)}_{rng.choice(words)}_{rng.choice(words)}" for _ in range(6000)]
    functions = {f"src/d{i % 40}/f{i}.c": rng.sample(names, 5) for i in range(files)}
    edits = {}
    out = []
    when = 1600000000

    def data(b):
        out.append(b"data %d\n" % len(b))
        out.append(b + b"\n")

    def commit(message, paths, first=False):
        nonlocal when
        when += 60
        out.append(b"commit refs/heads/main\ncommitter A <a@example.com> %d +0000\n" % when)
        data(message.encode())
        for p in paths:
            edits[p] = edits.get(p, 0) + (0 if first else 1)
            text = "".join(f"int {n}(int x) {{\n  return x;\n}}\n\n" for n in functions[p]) + "\n" * (edits[p] % 5)
            out.append(b"M 100644 inline %s\n" % p.encode())
            data(text.encode())
        out.append(b"\n")

    paths = list(functions)
    commit("Initial import", paths, True)
    for _ in range(commits):
        commit(" ".join(rng.choice(words) for _ in range(rng.randint(4, 14))), rng.sample(paths, rng.randint(1, 3)))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=b"".join(out), check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=path, check=True)


def phases(nib, repo):
    r = subprocess.run([nib, "index", "--no-dense"], cwd=repo, capture_output=True, text=True, check=True)
    line = next((l for l in (r.stdout + r.stderr).splitlines() if l.strip().startswith("time")), "")
    got = dict((k, float(v)) for k, v in re.findall(r"([a-z-]+) ([0-9.]+) s", line))
    total = re.search(r"time\s+([0-9.]+) s", line)
    got["total"] = float(total.group(1)) if total else 0.0
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--caps", type=int, nargs="*", default=[5000, 10000])
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    nib = os.path.join(args.build, "cli", "nib")
    repo = os.path.join(WORK, "repo")
    make_repo(repo)
    print("cap     build  runs  total s  history-walk s  history s")
    for cap in args.caps:
        with open(os.path.join(repo, ".nib.conf"), "w") as f:
            f.write(f"index.history-commits = {cap}\n")
        for kind in ("cold", "cached"):
            rows = []
            for _ in range(args.runs):
                if kind == "cold":
                    shutil.rmtree(os.path.join(repo, ".nib"), ignore_errors=True)
                else:  # the walk's cache kept, the versions gone: a full build after the first
                    shutil.rmtree(os.path.join(repo, ".nib", "versions"), ignore_errors=True)
                    current = os.path.join(repo, ".nib", "CURRENT")
                    if os.path.exists(current):
                        os.remove(current)
                rows.append(phases(nib, repo))
            best = min(rows, key=lambda r: r["total"])
            print(f"{cap:<7} {kind:<6} {args.runs:>4}  {best['total']:7.2f}  {best.get('history-walk', 0):14.2f}  "
                  f"{best.get('history', 0):9.2f}")
        os.remove(os.path.join(repo, ".nib.conf"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
