#!/usr/bin/env python3
"""The cost curve of a cold build against the repository's size (issue 28).

Takes a large git repository (the Linux kernel's Debian source package fetched by
`bench/fetch-corpus.sh linux` is the intended one), draws seeded random samples of its files
of growing size (1k, 5k, 20k, all by default), lays each out as a repository of its own
(hard links: nothing copied) with one commit, and measures on each, one after the other:

  * `nib index --no-dense --no-clang --no-precise` from cold (no .nib; the structural and
    search views the parse floor compares with): wall time, peak RSS of the build
    (GNU time's maximum resident set size of the process tree it waits for), the index's size
    on disk against the indexed source, and the phases' times;
  * the bare tree-sitter parse of the same files on all cores (nib_parse_floor): the floor;
  * with --dense, `nib index --wait-dense` again from cold: the dense view inline, its own time
    and peak RSS.

Prints one row per size and the machine it ran on. Figures are whole processes.
Usage: bench/scale_bench.py --repo DIR [--sizes N ...] [--build DIR] [--seed S] [--dense]
"""
import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from index_bench import dir_size  # noqa: E402  (the same on-disk size as the cold-index bench)


def git(args, cwd):
    subprocess.run(["git", "-c", "user.name=nib-bench", "-c", "user.email=bench@nib", "-c", "commit.gpgsign=false"]
                   + args, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tracked_files(repo):
    out = subprocess.run(["git", "ls-files", "-z"], cwd=repo, check=True, capture_output=True).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def lay_out(repo, files, dest):
    """A repository at `dest` holding `files` of `repo` (hard links where possible), committed."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for rel in files:
        src, dst = os.path.join(repo, rel), os.path.join(dest, rel)
        if os.path.islink(src) or not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    git(["init", "-q"], dest)
    git(["add", "-A"], dest)
    git(["commit", "-qm", "sample"], dest)


def timed(cmd, cwd):
    """Wall seconds, peak RSS in MiB (GNU time, the process tree it waits for) and stdout."""
    fmt = "NIB_TIME %e %M"
    p = subprocess.run(["/usr/bin/time", "-f", fmt] + cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    line = [l for l in p.stderr.splitlines() if l.startswith("NIB_TIME ")][-1].split()
    return float(line[1]), int(line[2]) / 1024.0, p.stdout


def measure(sample_dir, nib, floor, dense):
    row = {}
    shutil.rmtree(os.path.join(sample_dir, ".nib"), ignore_errors=True)
    wall, rss, out = timed([nib, "index", "--no-dense", "--no-clang", "--no-precise", "--json"], sample_dir)
    report = json.loads(out)
    row.update(wall=wall, rss=rss, report=report, index=dir_size(os.path.join(sample_dir, ".nib")))
    row["floor"], _, _ = timed([floor, sample_dir, str(os.cpu_count())], sample_dir)
    if dense:
        shutil.rmtree(os.path.join(sample_dir, ".nib"), ignore_errors=True)
        row["dense_wall"], row["dense_rss"], _ = timed([nib, "index", "--wait-dense", "--no-clang", "--json"],
                                                       sample_dir)
        row["dense_index"] = dir_size(os.path.join(sample_dir, ".nib"))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="a large git repository to sample files from")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 5000, 20000, 0],
                    help="files per sample; 0 means every tracked file")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dense", action="store_true", help="also build with the dense view inline")
    ap.add_argument("--work", default=None, help="where the samples are laid out (default: beside --repo)")
    args = ap.parse_args()

    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    floor = os.path.abspath(os.path.join(args.build, "bench", "nib_parse_floor"))
    for tool in (nib, floor):
        if not os.access(tool, os.X_OK):
            sys.exit("missing %s: build the project first" % tool)
    repo = os.path.abspath(args.repo)
    files = tracked_files(repo)
    # Hard links need the same file system: samples go beside the repository by default.
    work = args.work or tempfile.mkdtemp(prefix="nib-scale-", dir=os.path.dirname(repo))
    rng = random.Random(args.seed)
    order = files[:]
    rng.shuffle(order)

    print("machine: %s, %d cores, %s" % (platform.machine(), os.cpu_count(), platform.platform()))
    print("repository: %s (%d tracked files), seed %d" % (repo, len(files), args.seed))
    header = ("files", "indexed", "source MiB", "index MiB", "index/src", "build s", "floor s", "build/floor",
              "peak RSS MiB", "phases")
    if args.dense:
        header += ("dense build s", "dense peak RSS MiB", "dense index MiB")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for size in args.sizes:
        n = len(files) if size == 0 or size > len(files) else size
        sample_dir = os.path.join(work, "sample-%d" % n)
        started = time.time()
        lay_out(repo, sorted(order[:n]), sample_dir)
        print("(laid out %d files in %.0f s)" % (n, time.time() - started), file=sys.stderr)
        row = measure(sample_dir, nib, floor, args.dense)
        r = row["report"]
        src = r.get("sourceBytes", 0) / 2**20
        idx = row["index"] / 2**20
        phases = ", ".join("%s %.1f" % (k, v) for k, v in r.get("phases", {}).items()) if isinstance(
            r.get("phases"), dict) else ""
        cells = [str(n), str(r.get("files", "?")), "%.1f" % src, "%.1f" % idx, "%.2f" % (idx / src if src else 0),
                 "%.1f" % row["wall"], "%.1f" % row["floor"], "%.2f" % (row["wall"] / row["floor"]),
                 "%.0f" % row["rss"], phases]
        if args.dense:
            cells += ["%.1f" % row["dense_wall"], "%.0f" % row["dense_rss"], "%.1f" % (row["dense_index"] / 2**20)]
        print("| " + " | ".join(cells) + " |", flush=True)
    shutil.rmtree(work, ignore_errors=True) if not args.work else None


if __name__ == "__main__":
    main()
