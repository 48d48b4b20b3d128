#!/usr/bin/env python3
"""Freshness costs on a corpus of >= 10k files (the search benchmark's 110 MB tree, built by
search_bench.py / fetch-corpus.sh; --copies N makes a corpus of N copies of it side by side):
  * `nib index` when nothing changed (the up-to-date check);
  * `nib index` after a one-file edit: a delta version (the last full build's views shared, the
    changed file read, hashed and extracted) and, for comparison, a full update (`--full`: facts of
    every other file reused, every view rewritten), against a cold build from scratch (no stored
    facts); whether each declares what a rebuild does (`nib verify`);
  * the per-request freshness check with 0, 50, 200 and 500 dirty files: a `nib status` process
    (stat comparison, hashing the dirty files), one answered by a running `nib daemon`, and through the running server the first
    request after the change and a warm one (the comparison is reused until inotify reports
    an event).
Each edit appends a line no earlier run wrote, so its facts are extracted, not found stored.
Usage: bench/freshness_bench.py [--runs N] [--build DIR] [--skip-cold] [--copies N]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lsp_bench import Client, without_sampler  # noqa: E402

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")


def timed(argv, cwd):
    t = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return (time.monotonic() - t) * 1000, p


def make_copies(source, copies):
    repo = os.path.join(HERE, "corpus", f"_fresh{copies}")
    if os.path.isdir(os.path.join(repo, ".git")):
        return repo
    os.makedirs(repo, exist_ok=True)
    files = subprocess.run(["git", "ls-files"], cwd=source, capture_output=True, text=True, check=True).stdout.split("\n")
    for i in range(copies):
        for f in filter(None, files):
            src, dst = os.path.join(source, f), os.path.join(repo, f"copy{i}", f)
            if os.path.islink(src) or not os.path.isfile(src):
                continue
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.email=bench@nib", "-c", "user.name=bench", "commit", "-qm", "corpus"], cwd=repo, check=True)
    return repo


def first_lines(text):
    lines = text.strip().split("\n")
    return lines[0].split(":")[0] if lines[0].startswith("identical") else "\n    ".join(lines[:6])


def edit(repo, path):
    with open(os.path.join(repo, path), "a") as f:
        f.write(f"\n// nib freshness bench edit {time.time_ns()}\n")


def index_json(nib, repo, *extra):
    ms, p = timed([nib, "index", "--json", *extra], repo)
    if p.returncode != 0:
        sys.exit(p.stderr)
    return ms, json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--skip-cold", action="store_true", help="leave out the cold build from scratch")
    ap.add_argument("--copies", type=int, default=1, help="copies of the search corpus side by side (3: ~38k files)")
    args = ap.parse_args()
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    source = os.path.join(HERE, "corpus", "_search")
    if not os.path.isdir(os.path.join(source, ".git")):
        sys.exit("run bench/search_bench.py once first: it builds the corpus at " + source)
    repo = source if args.copies <= 1 else make_copies(source, args.copies)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    # Measured without the call graph (which `nib index` resolves once structural queries used it).
    for version in os.listdir(os.path.join(repo, ".nib", "versions")) if os.path.isdir(os.path.join(repo, ".nib")) else []:
        graph = os.path.join(repo, ".nib", "versions", version, "structural", "callgraph.bin")
        if os.path.exists(graph):
            os.remove(graph)
    subprocess.run([nib, "index", "-q"], cwd=repo, check=True)
    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split()
    sources = [f for f in files if f.endswith((".c", ".py", ".go", ".java", ".rs", ".ts", ".js"))]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"corpus:  {repo}: {len(files)} files")

    nochange = [timed([nib, "index"], repo)[0] for _ in range(args.runs)]
    print(f"\nnib index, nothing changed:        median {statistics.median(nochange):8.1f} ms")

    target = sources[len(sources) // 2]
    edit(repo, target)
    delta_ms, report = index_json(nib, repo)
    print(f"nib index, one file edited:        {delta_ms:8.1f} ms   delta over {report['delta']['base'] if report.get('delta') else '-'}"
          f" ({report.get('delta', {}) and report['delta']['files']} file(s), {report['extracted']} extracted; {target})")
    verify_ms, v = timed([nib, "verify"], repo)
    print(f"nib verify of the delta:           {verify_ms:8.1f} ms   {first_lines(v.stdout)}")
    edit(repo, target)
    full_ms, report = index_json(nib, repo, "--full")
    print(f"nib index --full, one file edited: {full_ms:8.1f} ms   ({report['extracted']} extracted, every view rewritten)")
    verify_ms, v = timed([nib, "verify"], repo)
    print(f"nib verify of the full update:     {verify_ms:8.1f} ms   {first_lines(v.stdout)}")
    if not args.skip_cold:
        shutil.rmtree(os.path.join(repo, ".nib"))
        cold_ms, _ = timed([nib, "index", "-q"], repo)
        print(f"cold build from scratch:           {cold_ms:8.1f} ms   rebuild / delta update = {cold_ms / delta_ms:.1f}x, "
              f"rebuild / full update = {cold_ms / full_ms:.1f}x")
    subprocess.run(["git", "checkout", "-q", "--", target], cwd=repo, check=True)
    subprocess.run([nib, "index", "-q"], cwd=repo, check=True)

    client = Client([nib, "serve"], repo)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    query = {"query": "tty_init", "route": "trigram", "k": 100}
    client.request("nib/search", query)
    check = os.path.abspath(os.path.join(args.build, "bench", "nib_freshness_check"))
    print("\nThe check in one process (bench/freshness_check.cpp, median / p95 ms): a fresh comparison (no cache),")
    print("one with the hash cache, and after one more save with the watcher's folder (what the server does);")
    print("then whole requests: `nib status --no-daemon` processes, `nib status` processes answered by a running")
    print("`nib daemon` (median of the calls after the first), and through `nib serve` nib/status right after the")
    print("change (comparison + overlay of the dirty files), a warm nib/status and a warm trigram search.")
    subprocess.run([nib, "daemon", "start", "--idle-minutes", "10"], cwd=repo, check=True, capture_output=True)
    print(f"\n{'dirty':<7}{'fresh':>14}{'cached':>14}{'after save':>14}{'nib status':>12}{'+daemon':>9}{'srv first':>11}"
          f"{'srv status':>12}{'srv search':>12}")
    for n in (0, 50, 200, 500):
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
        for f in sources[:n]:
            with open(os.path.join(repo, f), "a") as fh:
                fh.write("\n// dirty\n")
        c = json.loads(subprocess.run([check, repo, str(max(args.runs, 20)), sources[n]], capture_output=True, text=True,
                                      check=True).stdout)
        with open(os.path.join(repo, sources[n]), "a") as fh:
            fh.write("\n// dirty\n")
        status = statistics.median(timed([nib, "status", "--json", "--no-daemon"], repo)[0] for _ in range(args.runs))
        daemon = [timed([nib, "status", "--json"], repo)[0] for _ in range(args.runs + 1)]
        daemon = statistics.median(daemon[1:])
        t = time.monotonic()
        client.request("nib/status", None)
        first = (time.monotonic() - t) * 1000
        warm_status, warm = [], []
        for _ in range(args.runs):
            t = time.monotonic()
            client.request("nib/status", None)
            warm_status.append((time.monotonic() - t) * 1000)
            t = time.monotonic()
            client.request("nib/search", query)
            warm.append((time.monotonic() - t) * 1000)
        print(f"{n:<7}{c['freshMedianMs']:>7.1f} /{c['freshP95Ms']:>5.1f}{c['cachedMedianMs']:>7.1f} /{c['cachedP95Ms']:>5.1f}"
              f"{c['afterSaveMedianMs']:>7.2f} /{c['afterSaveP95Ms']:>5.2f}{status:>12.1f}{daemon:>9.1f}{first:>11.1f}"
              f"{statistics.median(warm_status):>12.2f}{statistics.median(warm):>12.2f}")
    client.request("shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit"})
    subprocess.run([nib, "daemon", "stop"], cwd=repo, capture_output=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)


if __name__ == "__main__":
    without_sampler()
    main()
