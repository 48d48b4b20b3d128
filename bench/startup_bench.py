#!/usr/bin/env python3
"""Whole-process time of nib's query commands, as a user at a terminal meets them.

For a repository (indexed first), runs interleaved in one loop — each round one of every
command, so that the machine's drift touches all alike — `nib --version`, `nib status`,
`nib def` and `nib refs` at positions sampled from the source text by a seeded generator (not
from nib's index), `nib symbols NAME` for names taken from those positions, `nib search` for
the same names as literals, and `rg` for the same literals over the same files (ripgrep's
`--hidden --max-filesize 1M`, .git and .nib left out). Prints the median and p95 of each and
the machine. `--daemon` repeats the nib commands with a `nib daemon` serving the repository
(named as daemon-assisted in the output).

Usage: bench/startup_bench.py [--repo DIR] [--rounds N] [--seed S] [--build DIR] [--daemon]
                              [--index-args "FLAGS"]
"""
import argparse
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lsp_bench import sample_positions, source_files  # noqa: E402

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")

IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{5,}")
RG = ["rg", "--hidden", "--max-filesize", "1M", "--no-heading", "--line-number", "--color", "never",
      "--no-messages", "-g", "!.git", "-g", "!.nib", "-F"]


def positions(repo, n, rng):
    """1-based (path, line, byte column, word), as the CLI takes them."""
    picks = sample_positions(repo, source_files(repo), n, rng, ident=IDENT, ascii_only=False)
    return [(p, line + 1, col + 1, word) for p, line, col, word in picks]


def timed(cmd, cwd):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--daemon", action="store_true")
    ap.add_argument("--index-args", default="",
                    help="extra `nib index` flags for the index the commands read (e.g. \"--no-clang --no-precise\")")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    # The query commands read the structural and search views; the dense view is built only
    # when asked for (`--wait-dense` would now build it), so it is not asked for here.
    subprocess.run([nib, "index", "-q"] + args.index_args.split(), cwd=repo, check=True)
    files = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split())
    rng = random.Random(args.seed)
    pos = positions(repo, args.rounds, rng)
    kinds = ["version", "status", "def", "refs", "symbols", "search", "rg"]
    samples = {k: [] for k in kinds}
    if args.daemon:
        subprocess.run([nib, "daemon", "start"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
    try:
        for i in range(args.rounds):
            path, line, col, word = pos[i % len(pos)]
            at = f"{path}:{line}:{col}"
            cmds = {"version": [nib, "--version"], "status": [nib, "status"], "def": [nib, "def", at],
                    "refs": [nib, "refs", at], "symbols": [nib, "symbols", word], "search": [nib, "search", word], "rg": RG + [word]}
            order = kinds[i % len(kinds):] + kinds[:i % len(kinds)]
            for k in order:
                samples[k].append(timed(cmds[k], repo))
    finally:
        if args.daemon:
            subprocess.run([nib, "daemon", "stop"], cwd=repo, stdout=subprocess.DEVNULL)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"repository: {repo} ({files} files), {args.rounds} rounds, seed {args.seed}"
          + (", nib commands answered with `nib daemon` running (daemon-assisted)" if args.daemon else ""))
    print(f"{'command':<10}{'median ms':>11}{'p95 ms':>9}")
    for k in kinds:
        s = sorted(samples[k])
        print(f"{k:<10}{statistics.median(s):>11.2f}{s[int(0.95 * (len(s) - 1))]:>9.2f}")


if __name__ == "__main__":
    sys.exit(main())
