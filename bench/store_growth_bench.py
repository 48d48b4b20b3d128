#!/usr/bin/env python3
"""Disk growth of an index updated edit after edit (issue 29, item 7).

Copies a repository to a scratch folder, indexes it, then runs N cycles of: append a small
function to K source files chosen by a seeded generator, `nib index` (a delta version, or a full
build once the delta would list too many files; the dense view's follow-up runs in the
background as it does for a user), and `git commit -a` every C cycles. Every 10 cycles it
records the size of .nib (du: allocated blocks, hard links counted once) and of its parts.
At the end it waits for the dense follow-up, then indexes a copy of the final worktree from
scratch and prints both sizes and their ratio (the goal: at most 1.5).

Usage: bench/store_growth_bench.py --repo DIR [--cycles 200] [--files 3] [--commit-every 10]
       [--seed S] [--build DIR]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = (".c", ".h", ".cc", ".cpp", ".py", ".go", ".rs", ".java", ".ts", ".js")


def du_kib(path):
    if not os.path.exists(path):
        return 0
    return int(subprocess.run(["du", "-sk", path], capture_output=True, text=True, check=True).stdout.split()[0])


def wait_for_follow_up(nib, repo, limit=900):
    """Waits until the current version's dense view is no longer pending (its follow-up ran)."""
    deadline = time.time() + limit
    while time.time() < deadline:
        r = subprocess.run([nib, "status", "--json"], cwd=repo, capture_output=True, text=True)
        views = json.loads(r.stdout).get("views", []) if r.returncode == 0 else []
        if not any(v.get("name") == "dense" and v.get("status") == "pending" for v in views):
            return
        time.sleep(0.5)
    sys.exit("the dense view's follow-up did not finish")


def append_function(path, cycle, rng):
    ext = os.path.splitext(path)[1]
    name = f"nib_growth_{cycle}_{rng.randrange(1 << 30)}"
    if ext == ".py":
        text = f"\n\ndef {name}(x):\n    return x + {cycle}\n"
    elif ext == ".go":
        text = f"\nfunc {name}(x int) int {{ return x + {cycle} }}\n"
    elif ext == ".rs":
        text = f"\nfn {name}(x: i32) -> i32 {{ x + {cycle} }}\n"
    elif ext in (".ts", ".js", ".java"):
        text = f"\n// {name}: appended by the growth bench, cycle {cycle}\n"
    else:
        text = f"\nstatic int {name}(int x) {{ return x + {cycle}; }}\n"
    with open(path, "a") as fh:
        fh.write(text)


def parts(nib_dir):
    return {d: du_kib(os.path.join(nib_dir, d)) for d in ("facts", "vectors", "clang-cache", "versions")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--cycles", type=int, default=200)
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--commit-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = ap.parse_args()
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    scratch = tempfile.mkdtemp(prefix="nib-growth-")
    try:
        work = os.path.join(scratch, "edited")
        shutil.copytree(os.path.abspath(args.repo), work, symlinks=True, ignore=shutil.ignore_patterns(".nib"))
        nib_dir = os.path.join(work, ".nib")
        files = [f for f in subprocess.run(["git", "ls-files"], cwd=work, capture_output=True, text=True,
                                           check=True).stdout.split() if f.endswith(SOURCES)]
        if len(files) < args.files:
            sys.exit("too few source files to edit")
        rng = random.Random(args.seed)
        subprocess.run([nib, "index", "-q"], cwd=work, check=True)
        wait_for_follow_up(nib, work)
        start = du_kib(nib_dir)
        print(f"repository {args.repo}: {len(files)} source files; fresh index {start / 1024:.1f} MiB", flush=True)
        peak = start
        t0 = time.time()
        for cycle in range(1, args.cycles + 1):
            for f in rng.sample(files, args.files):
                append_function(os.path.join(work, f), cycle, rng)
            subprocess.run([nib, "index", "-q"], cwd=work, check=True)
            if args.commit_every and cycle % args.commit_every == 0:
                subprocess.run(["git", "commit", "-qam", f"growth cycle {cycle}"], cwd=work, check=True)
            if cycle % 10 == 0:
                size = du_kib(nib_dir)
                peak = max(peak, size)
                p = " ".join(f"{k} {v / 1024:.1f}" for k, v in parts(nib_dir).items())
                print(f"cycle {cycle:4d}: .nib {size / 1024:6.1f} MiB ({p}) {time.time() - t0:.0f} s", flush=True)
        wait_for_follow_up(nib, work)
        final = du_kib(nib_dir)
        fresh = os.path.join(scratch, "fresh")
        shutil.copytree(work, fresh, symlinks=True, ignore=shutil.ignore_patterns(".nib"))
        subprocess.run([nib, "index", "-q"], cwd=fresh, check=True)
        wait_for_follow_up(nib, fresh)
        fresh_size = du_kib(os.path.join(fresh, ".nib"))
        print(f"after {args.cycles} cycles: .nib {final / 1024:.1f} MiB (peak {peak / 1024:.1f}); "
              f"fresh index of the final state {fresh_size / 1024:.1f} MiB; ratio {final / fresh_size:.2f} "
              f"(peak {peak / fresh_size:.2f})")
        print("  edited:", " ".join(f"{k} {v / 1024:.1f}" for k, v in parts(nib_dir).items()))
        print("  fresh: ", " ".join(f"{k} {v / 1024:.1f}" for k, v in parts(os.path.join(fresh, ".nib")).items()))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
