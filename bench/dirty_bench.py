#!/usr/bin/env python3
"""Whole-process query commands on a dirty worktree: what answering for the worktree as it is
costs at the CLI (issue 22).

For a repository indexed first, edits N source files chosen by a seeded generator (a comment
and a declaration appended: the files' facts change), then runs interleaved rounds — each round
one of every command — of `nib def`, `nib refs` and `nib symbols` (positions and names sampled
from the source text, not from the index), as whole processes without a daemon, for N = 0
(nothing changed) and N = --changed. The alternative strategy is measured in the same rounds:
`nib index` (which publishes a delta version of the changed files) followed by the query, with
the worktree changed again before each round so that every update has work to do.
`--daemon` adds the same queries answered by a `nib daemon` (named daemon-assisted). Every
answer of the overlay path is checked to be labelled overlaid (or fresh when N = 0), never
partial. The edits are reverted at the end (git checkout of the edited files).

Usage: bench/dirty_bench.py --repo DIR [--changed 50] [--rounds 15] [--seed S] [--build DIR] [--daemon]
"""
import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lsp_bench import percentile, source_files  # noqa: E402
from startup_bench import positions  # noqa: E402

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")


def timed(cmd, cwd):
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--changed", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--daemon", action="store_true")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    env = dict(os.environ, NIB_NO_DENSE_FOLLOW_UP="1")
    if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo, capture_output=True,
                      text=True).stdout.strip():
        sys.exit("the worktree has changes; the bench edits files and reverts them with git checkout")
    subprocess.run([nib, "index", "-q"], cwd=repo, check=True, env=env)
    rng = random.Random(args.seed)
    pos = positions(repo, args.rounds, rng)
    tracked = set(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split())
    candidates = sorted(f for f in source_files(repo) if f in tracked and f.endswith((".c", ".py", ".ts", ".js", ".go", ".rs", ".cpp", ".h")))
    edited = rng.sample(candidates, min(args.changed, len(candidates)))
    originals = {f: open(os.path.join(repo, f), "rb").read() for f in edited}
    counter = [0]

    def edit():
        counter[0] += 1
        for f in edited:
            with open(os.path.join(repo, f), "wb") as out:
                out.write(originals[f] + b"\n/* nib bench edit %d */\n" % counter[0])

    def revert():
        for f in edited:
            with open(os.path.join(repo, f), "wb") as out:
                out.write(originals[f])

    times = {}
    bad = []

    def record(name, ms):
        times.setdefault(name, []).append(ms)

    def query(kind, p, extra=()):
        path, line, col, word = p
        if kind == "symbols":
            return [nib, "symbols", *extra, word]
        return [nib, kind, *extra, "%s:%d:%d" % (path, line, col)]

    def check(kind, r, expect):
        if kind == "symbols" or r.returncode != 0:
            return
        f = json.loads(r.stdout).get("freshness", {})
        ok = f.get("overlaid") is True if expect == "overlaid" else f.get("fresh") is True
        if not ok or f.get("partial") is not False:
            bad.append((kind, expect, f))

    daemon = False
    try:
        for i, p in enumerate(pos):
            kinds = ["def", "refs", "symbols"]
            rng.shuffle(kinds)
            for kind in kinds:
                revert()
                ms, r = timed(query(kind, p, ["--no-daemon", "--json"] if kind != "symbols" else ["--no-daemon"]), repo)
                record("%s, nothing changed" % kind, ms)
                check(kind, r, "fresh")
                edit()
                ms, r = timed(query(kind, p, ["--no-daemon", "--json"] if kind != "symbols" else ["--no-daemon"]), repo)
                record("%s, %d changed, overlaid" % (kind, len(edited)), ms)
                check(kind, r, "overlaid")
                edit()  # new content: the update has work to do
                t = time.perf_counter()
                subprocess.run([nib, "index", "-q"], cwd=repo, env=env, stdout=subprocess.DEVNULL)
                ms2, r = timed(query(kind, p, ["--no-daemon"]), repo)
                record("%s, %d changed, nib index first" % (kind, len(edited)), (time.perf_counter() - t) * 1000)
                # Back to the first version's worktree for the next round.
                revert()
                subprocess.run([nib, "index", "-q"], cwd=repo, env=env, stdout=subprocess.DEVNULL)
        if args.daemon:
            subprocess.run([nib, "daemon", "start"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
            daemon = True
            for p in pos:
                for kind in ["def", "refs", "symbols"]:
                    revert()
                    time.sleep(0.05)
                    record("%s, nothing changed, daemon-assisted" % kind, timed(query(kind, p), repo)[0])
                    edit()
                    timed(query(kind, p), repo)  # the daemon lays the edit over its index once
                    record("%s, %d changed, daemon-assisted (overlay warm)" % (kind, len(edited)), timed(query(kind, p), repo)[0])
    finally:
        revert()
        if daemon:
            subprocess.run([nib, "daemon", "stop"], cwd=repo, stdout=subprocess.DEVNULL)
        subprocess.run([nib, "index", "-q"], cwd=repo, env=env, stdout=subprocess.DEVNULL)
    files = len(tracked)
    print("repository %s: %d files; %d edited (seed %d); %d rounds; %s, %d cores" %
          (os.path.basename(repo), files, len(edited), args.seed, len(pos), platform.machine(), os.cpu_count()))
    for name, v in times.items():
        print("  %-52s median %7.1f ms   p95 %7.1f ms" % (name, statistics.median(v), percentile(v, 0.95)))
    if bad:
        print("answers not labelled as expected: %d (first: %s)" % (len(bad), bad[0]))
        sys.exit(1)


if __name__ == "__main__":
    main()
