#!/usr/bin/env python3
"""Cold-index benchmark: nib against the bare tree-sitter parse floor, ctags and GNU Global.

Fetches a real corpus (Debian source and binary packages, an npm package; see
fetch-corpus.sh), combines it into one git repository, and measures in one run, side by side:

  * nib index (cold: no .nib folder, all cores) — wall and CPU time, files/s, MB/s,
    index size / source size — twice: the structural and search views alone
    (`--no-clang --no-precise`, what the parse floor compares with), and the default build
    (with the clang view where a compilation database exists and the precise view's SCIP
    indexers; the dense view is built only when asked for);
  * the bare tree-sitter parse of the same files with the same grammars and threads
    (nib_parse_floor) — the floor for a structural index;
  * universal-ctags (`ctags -R`) and GNU Global (`gtags`) over the same tree;
  * the whole-process time of the query commands (status, def, refs, symbols), median of N.

Prints a table with absolute figures and ratios, and the machine it ran on.
Usage: bench/index_bench.py [--build DIR] [--runs N] [--corpus ITEM ...]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPUS = [
    "tmux", "libuv1", "jq", "fmtlib",                       # C, C++
    "deb:python3-attr", "deb:python3-requests",             # Python
    "golang-github-spf13-cobra", "golang-github-gorilla-mux",  # Go
    "deb:librust-regex-dev", "deb:librust-regex-syntax-dev",   # Rust
    "commons-io", "junit4",                                 # Java
    "npm:zod@3.23.8",                                       # TypeScript / JavaScript
]


def run(cmd, cwd=None, capture=True):
    start = time.monotonic()
    before = os.times()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    after = os.times()
    wall = time.monotonic() - start
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    return wall, cpu, proc.stdout


def best_of(n, fn):
    results = [fn() for _ in range(n)]
    return min(results, key=lambda r: r[0])


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except OSError:
                pass
    return total


def combine(items, dest):
    """One git repository with every fetched package as a top-level folder."""
    if os.path.isdir(os.path.join(dest, ".git")):
        return
    corpus = os.path.join(HERE, "corpus")
    os.makedirs(dest, exist_ok=True)
    for item in items:
        name = item.split(":", 1)[-1].replace("/", "-").replace("@", "-")
        src = os.path.join(corpus, name)
        if not os.path.isdir(src):
            continue
        shutil.copytree(src, os.path.join(dest, name), ignore=shutil.ignore_patterns(".git", ".nib"), symlinks=True)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True)
    subprocess.run(["git", "-c", "user.name=nib-bench", "-c", "user.email=bench@nib", "-c", "commit.gpgsign=false",
                    "commit", "-qm", "combined corpus"], cwd=dest, check=True)


def measure(repo, nib, floor, threads, runs, tmp):
    """Cold nib index, parse floor, ctags and gtags over one repository, best of `runs`."""
    def nib_cold(*extra):
        shutil.rmtree(os.path.join(repo, ".nib"), ignore_errors=True)
        wall, cpu, out = run([nib, "index", "--json", *extra], cwd=repo)
        return wall, cpu, json.loads(out)

    def parse_floor():
        return run([floor, repo, str(threads)])

    def ctags():
        return run(["ctags", "-R", "-f", os.path.join(tmp, "tags"), "--exclude=.git", "--exclude=.nib", "."], cwd=repo)

    def gtags():
        db = os.path.join(tmp, "gtags")
        shutil.rmtree(db, ignore_errors=True)
        os.makedirs(db)
        return run(["gtags", "--skip-unreadable", "-q", db], cwd=repo)

    views_wall, views_cpu, views_report = best_of(runs, lambda: nib_cold("--no-clang", "--no-precise"))
    nib_wall, nib_cpu, report = best_of(runs, nib_cold)
    floor_wall, floor_cpu, floor_out = best_of(runs, parse_floor)
    ctags_wall, ctags_cpu, _ = best_of(runs, ctags)
    gtags_wall, gtags_cpu, _ = best_of(runs, gtags)
    return {
        "report": report, "nib": (nib_wall, nib_cpu), "floor": (floor_wall, floor_cpu),
        "views_report": views_report, "views": (views_wall, views_cpu),
        "ctags": (ctags_wall, ctags_cpu), "gtags": (gtags_wall, gtags_cpu),
        "ctags_size": os.path.getsize(os.path.join(tmp, "tags")), "gtags_size": dir_size(os.path.join(tmp, "gtags")),
        "floor_fields": dict(zip(floor_out.split()[0::2], floor_out.split()[1::2])),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--runs", type=int, default=3, help="cold-index repetitions (best is reported)")
    ap.add_argument("--query-runs", type=int, default=30)
    ap.add_argument("--corpus", nargs="*", default=DEFAULT_CORPUS)
    ap.add_argument("--per-package", action="store_true",
                    help="also measure each package on its own (gtags compares fairly on C, C++ and Java trees)")
    args = ap.parse_args()

    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    floor = os.path.abspath(os.path.join(args.build, "bench", "nib_parse_floor"))
    for tool in (nib, floor):
        if not os.path.exists(tool):
            sys.exit(f"bench: {tool} is missing; build first (scripts/build.sh)")
    for tool in ("ctags", "gtags"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} is missing; run scripts/setup.sh")

    subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), *args.corpus], check=True)
    repo = os.path.join(HERE, "corpus", "_combined")
    combine(args.corpus, repo)
    threads = os.cpu_count()

    tmp = tempfile.mkdtemp(prefix="nib-bench-")
    m = measure(repo, nib, floor, threads, args.runs, tmp)
    report = m["report"]
    nib_wall, nib_cpu = m["nib"]
    views_wall, views_cpu = m["views"]
    floor_wall, floor_cpu = m["floor"]
    ctags_wall, ctags_cpu = m["ctags"]
    gtags_wall, gtags_cpu = m["gtags"]
    ctags_size, gtags_size = m["ctags_size"], m["gtags_size"]
    floor_fields = m["floor_fields"]

    # Query commands: whole-process time, median over repeated runs at real positions.
    _, _, sym_out = run([nib, "symbols", "init", "-n", "20"], cwd=repo)
    target = next((l.split()[-1] for l in sym_out.splitlines() if l.startswith("function")), None)
    queries = {"status": [nib, "status"], "symbols": [nib, "symbols", "init"]}
    if target:
        queries["def"] = [nib, "def", target]
        queries["refs"] = [nib, "refs", target]
    query_ms = {}
    for name, cmd in queries.items():
        samples = [run(cmd, cwd=repo)[0] for _ in range(args.query_runs)]
        query_ms[name] = (statistics.median(samples) * 1000, sorted(samples)[int(0.95 * (len(samples) - 1))] * 1000)

    src = report["sourceBytes"]
    mb = src / 1e6
    print(f"machine: {platform.machine()}, {threads} cores, {platform.platform()}")
    print(f"corpus:  {repo}  ({report['files']} source files, {mb:.1f} MB; {', '.join(args.corpus)})")
    print(f"nib:     {report['definitions']} definitions, {report['occurrences']} occurrences")
    print()
    print(f"{'tool':<36}{'wall s':>9}{'cpu s':>9}{'files/s':>10}{'MB/s':>8}{'size/source':>13}{'nib/tool wall':>15}")
    rows = [
        ("nib index --no-clang --no-precise", views_wall, views_cpu, m["views_report"]["indexBytes"] / src),
        ("nib index (cold, default)", nib_wall, nib_cpu, report["indexBytes"] / src),
        ("tree-sitter parse floor", floor_wall, floor_cpu, None),
        ("ctags -R", ctags_wall, ctags_cpu, ctags_size / src),
        ("gtags", gtags_wall, gtags_cpu, gtags_size / src),
    ]
    for name, wall, cpu, size in rows:
        ratio = views_wall / wall
        size_text = f"{size:.2f}" if size is not None else "-"
        print(f"{name:<36}{wall:>9.3f}{cpu:>9.3f}{report['files'] / wall:>10.0f}{mb / wall:>8.1f}{size_text:>13}{ratio:>15.2f}")
    print()
    print(f"structural + search views / parse floor:  {views_wall / floor_wall:.2f}x wall, {views_cpu / floor_cpu:.2f}x cpu "
          f"(floor parsed {floor_fields.get('files')} files; the last column above divides this build's wall time)")
    print(f"default build (clang, precise views) / parse floor: {nib_wall / floor_wall:.2f}x wall")
    print(f"structural + search views / gtags:        {views_wall / gtags_wall:.2f}x wall")
    print(f"structural + search views / ctags -R:     {views_wall / ctags_wall:.2f}x wall")
    print()
    print("query command, whole process (median / p95 ms over %d runs):" % args.query_runs)
    for name, (p50, p95) in query_ms.items():
        print(f"  nib {name:<8} {p50:6.2f} / {p95:6.2f}")
    if args.per_package:
        print()
        print(f"{'package':<30}{'MB':>6}{'nib s':>8}{'floor s':>9}{'gtags s':>9}{'ctags s':>9}"
              f"{'nib/floor':>11}{'nib/gtags':>11}{'nib/ctags':>11}")
        for item in args.corpus:
            name = item.split(":", 1)[-1].replace("/", "-").replace("@", "-")
            pkg = os.path.join(HERE, "corpus", name)
            if not os.path.isdir(pkg):
                continue
            p = measure(pkg, nib, floor, threads, args.runs, tmp)
            nw, fw, gw, cw = p["nib"][0], p["floor"][0], p["gtags"][0], p["ctags"][0]
            print(f"{name:<30}{p['report']['sourceBytes'] / 1e6:>6.1f}{nw:>8.3f}{fw:>9.3f}{gw:>9.3f}{cw:>9.3f}"
                  f"{nw / fw:>11.2f}{nw / gw:>11.2f}{nw / cw:>11.2f}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
