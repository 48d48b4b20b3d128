#!/usr/bin/env python3
"""Structural queries through the running server: nib/callers, nib/callees, nib/impact and
nib/context latency (warm), the call graph's build time (the first structural request after
start), and the same requests as whole `nib` processes for comparison.

On each code base (default: tmux and redis from bench/corpus, fetched by fetch-corpus.sh), the C
functions defined in .c files are sampled deterministically (every k-th in path order); for each
the server answers nib/callers and nib/impact by name, and nib/context with the function's name as
the symbol and its doc comment (when it has one) as the intent, at a 4000-token budget. Prints
p50/p95 per method, the graph build, and the machine.
Usage: bench/structural_bench.py [--corpus NAME ...] [--samples N] [--build DIR] [--json]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lsp_bench import Client, without_sampler  # noqa: E402
from context_bench import c_files, functions_and_comments, comment_text  # noqa: E402

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def sample_functions(repo, n):
    found = []
    for path, text in c_files(repo):
        for _, name_line, name, comment in functions_and_comments(text):
            intent = comment_text(comment[2]) if comment else ""
            found.append((path, name_line, name, intent))
    if len(found) > n:
        found = [found[i * len(found) // n] for i in range(n)]
    return found


def timed(client, method, params):
    t = time.monotonic()
    r = client.request(method, params)
    return (time.monotonic() - t) * 1000, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    corpora = args.corpus or ["tmux", "redis"]
    subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), *corpora], check=True, capture_output=True)
    report = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}", "corpora": {}}
    for name in corpora:
        repo = os.path.join(HERE, "corpus", name)
        subprocess.run([nib, "index", "-q"], cwd=repo, check=True)
        functions = sample_functions(repo, args.samples)
        client = Client([nib, "serve"], repo)
        client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        # The first structural request builds the graph.
        first_ms, first = timed(client, "nib/callers", {"symbol": functions[0][2]})
        times = {"nib/callers": [], "nib/callees": [], "nib/impact": [], "nib/context": []}
        answered = {k: 0 for k in times}
        for path, line, fn, intent in functions:
            for method, params in (("nib/callers", {"symbol": fn}), ("nib/callees", {"symbol": fn}),
                                   ("nib/impact", {"symbol": fn}),
                                   ("nib/context", {"symbols": [fn], "intent": intent, "budgetTokens": 4000})):
                ms, r = timed(client, method, params)
                times[method].append(ms)
                if "result" in r and (r["result"].get("hops") or r["result"].get("impact") or r["result"].get("units")):
                    answered[method] += 1
        client.request("shutdown", None)
        client.send({"jsonrpc": "2.0", "method": "exit"})
        # The same requests as whole processes (each builds the graph itself).
        cli = {"callers": [], "context": []}
        for path, line, fn, intent in functions[:20]:
            for what, argv in (("callers", ["callers", fn]),
                               ("context", ["context", "--symbol", fn, "--budget", "4000"] +
                                ([f"--intent={intent}"] if intent else []))):
                t = time.monotonic()
                subprocess.run([nib, *argv], cwd=repo, capture_output=True)
                cli[what].append((time.monotonic() - t) * 1000)
        report["corpora"][name] = {
            "functions": len(functions), "graphBuildMs": first_ms,
            "server": {m: {"p50": statistics.median(v), "p95": percentile(v, 95), "answered": answered[m]}
                       for m, v in times.items()},
            "cli": {m: {"p50": statistics.median(v), "p95": percentile(v, 95)} for m, v in cli.items()},
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"machine: {report['machine']}")
    for name, r in report["corpora"].items():
        print(f"\n{name}: {r['functions']} sampled functions; the first structural request (which loads or "
              f"resolves the call graph) took {r['graphBuildMs']:.0f} ms")
        print(f"{'request (running server)':<28}{'p50 ms':>9}{'p95 ms':>9}{'non-empty':>11}")
        for m, s in r["server"].items():
            print(f"{m:<28}{s['p50']:>9.3f}{s['p95']:>9.3f}{s['answered']:>11}")
        for m, s in r["cli"].items():
            print(f"{'nib ' + m + ' (process)':<28}{s['p50']:>9.1f}{s['p95']:>9.1f}")


if __name__ == "__main__":
    without_sampler()
    main()
