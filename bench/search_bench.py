#!/usr/bin/env python3
"""Search benchmark: nib's trigram and lexical routes against ripgrep, side by side.

Builds (once) a corpus of at least 50 MB from Debian source packages (fetch-corpus.sh) as one
git repository, indexes it, and for a fixed set of literal, regex and prose queries measures:
  * ripgrep (`rg`), one process per query, over the same tree and the same files nib indexes
    (--hidden, --max-filesize 1M, .gitignore respected);
  * nib through the running server (`nib/search` over stdio), warm, from sending the request
    until the whole response has arrived (rg: from process start until its output has);
  * nib through the CLI (`nib search`, a whole process), twice: on its own (`--no-daemon`: it opens
    the index and checks every file's stat data itself), and with a `nib daemon` serving the
    repository (the process asks the daemon, which keeps the index open and the worktree watched).
Literal and regex result sets (path, line) are compared with ripgrep's and must be identical.
Prints per-query latencies, medians, ratios, and index size / corpus size, with the machine.
Usage: bench/search_bench.py [--runs N] [--build DIR]
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
PACKAGES = ["tmux", "libuv1", "jq", "fmtlib", "git", "redis", "curl", "nginx", "lua5.4", "zstd",
            "golang-github-spf13-cobra", "golang-github-gorilla-mux", "commons-io", "junit4",
            "deb:python3-attr", "deb:python3-requests", "deb:librust-regex-dev", "deb:librust-regex-syntax-dev",
            "npm:zod@3.23.8"]
LITERALS = ["malloc", "strlen(", "return NULL;", "EXIT_FAILURE", "tty_init", "uv_loop_t", "CURLOPT_URL",
            "redisCommand", "ngx_http_request_t", "git_config", "assertEquals", "#include <stdio.h>"]
REGEXES = [r"static int [a-z_]+\(void\)", r"TODO|FIXME", r"\bstrn?cpy\(", r"func \(\w+ \*\w+\) [A-Z]\w*\(",
           r"[0-9]{4}-[0-9]{2}-[0-9]{2}"]
PROSE = ["parse configuration file", "retry failed request", "free the memory of the buffer",
         "compare two strings ignoring case", "write the log message to a file"]
RG = ["rg", "--hidden", "--max-filesize", "1M", "--no-heading", "--line-number", "--color", "never",
      "--no-messages", "-g", "!.git", "-g", "!.nib"]


# The LSP client (Content-Length framing over the server's stdio) is lsp_bench's.
from lsp_bench import Client, without_sampler  # noqa: E402

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")


def combined_corpus():
    subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), *PACKAGES], check=True)
    dest = os.path.join(HERE, "corpus", "_search")
    if not os.path.isdir(os.path.join(dest, ".git")):
        import shutil
        os.makedirs(dest, exist_ok=True)
        for item in PACKAGES:
            name = item.split(":", 1)[-1].replace("/", "-").replace("@", "-")
            src = os.path.join(HERE, "corpus", name)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(dest, name), ignore=shutil.ignore_patterns(".git", ".nib"),
                                symlinks=True)
        subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
        subprocess.run(["git", "add", "-A"], cwd=dest, check=True)
        subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "corpus"], cwd=dest,
                       check=True)
    return dest


def rg_lines(repo, args):
    t = time.monotonic()
    p = subprocess.run(RG + args + ["."], cwd=repo, capture_output=True)
    elapsed = time.monotonic() - t
    out = set()
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        path, num, _ = line.split(":", 2)
        out.add((path[2:] if path.startswith("./") else path, int(num) - 1))
    return elapsed, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = ap.parse_args()
    nib = os.path.abspath(os.path.join(args.build, "cli", "nib"))
    repo = combined_corpus()
    subprocess.run([nib, "index", "-q"], cwd=repo, check=True)
    status = json.loads(subprocess.run([nib, "status", "--json"], cwd=repo, capture_output=True, check=True).stdout)
    files = subprocess.run(RG + ["--files", "."], cwd=repo, capture_output=True).stdout.decode().split("\n")
    corpus_bytes = sum(os.path.getsize(os.path.join(repo, f)) for f in files if f and os.path.isfile(os.path.join(repo, f)))
    version = os.path.join(repo, ".nib", "versions", status["manifest"]["version"])
    def size(path):
        return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)
    view_bytes = {v: size(os.path.join(version, v)) for v in ("structural", "lexical", "trigram")}
    facts_bytes = size(os.path.join(repo, ".nib", "facts"))

    client = Client([nib, "serve"], repo)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def server(params):
        # Timed from sending the request until the whole response has arrived, as rg is timed
        # until its output has: decoding the JSON is the client's work and is not counted.
        samples, result = [], None
        for _ in range(args.runs):
            elapsed, result = client.timed_request("nib/search", params)
            samples.append(elapsed)
        return statistics.median(samples), result

    def cli(argv, daemon=False):
        samples, out = [], None
        for _ in range(args.runs):
            t = time.monotonic()
            p = subprocess.run([nib, "search", *([] if daemon else ["--no-daemon"]), *argv], cwd=repo,
                               capture_output=True)
            samples.append(time.monotonic() - t)
            out = (p.returncode, p.stdout, p.stderr)
        return statistics.median(samples), out

    subprocess.run([nib, "daemon", "stop"], cwd=repo, capture_output=True)
    subprocess.run([nib, "daemon", "start"], cwd=repo, check=True, capture_output=True)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"corpus:  {repo}: {len([f for f in files if f])} files, {corpus_bytes / 1e6:.1f} MB")
    print(f"index:   structural {view_bytes['structural'] / 1e6:.1f} MB + facts {facts_bytes / 1e6:.1f} MB, "
          f"lexical {view_bytes['lexical'] / 1e6:.1f} MB, trigram {view_bytes['trigram'] / 1e6:.1f} MB: "
          f"{(sum(view_bytes.values()) + facts_bytes) / corpus_bytes:.2f}x the corpus "
          f"(search views alone {(view_bytes['lexical'] + view_bytes['trigram']) / corpus_bytes:.2f}x)")
    print()
    print(f"{'query':<40}{'hits':>7}{'same':>6}{'rg ms':>9}{'server ms':>11}{'cli ms':>9}{'cli+d ms':>10}"
          f"{'rg/server':>11}{'rg/cli':>8}{'rg/cli+d':>10}")
    ratios_server, ratios_cli = {"literal": [], "regex": []}, {"literal": [], "regex": []}
    ratios_daemon, all_same = {"literal": [], "regex": []}, True
    for kind, queries in (("literal", LITERALS), ("regex", REGEXES)):
        for q in queries:
            rg_times = []
            for _ in range(args.runs):
                elapsed, expected = rg_lines(repo, ["-F", "-e", q] if kind == "literal" else ["-e", q])
                rg_times.append(elapsed)
            rg_t = statistics.median(rg_times)
            params = {"query": q, "route": "trigram", "regex": kind == "regex", "k": 10000000}
            srv_t, res = server(params)
            got = {(h["path"], h["range"]["start"]["line"]) for h in res["result"]["hits"]}
            same = got == expected
            all_same &= same
            argv = ["-r", "trigram", "-k", "10000000"] + (["-e"] if kind == "regex" else []) + [q]
            cli_t, cli_out = cli(argv)
            dmn_t, dmn_out = cli(argv, daemon=True)
            # The daemon's answer is the command's own, byte for byte.
            same = same and cli_out == dmn_out and cli_out[0] == 0
            all_same &= same
            ratios_server[kind].append(rg_t / srv_t)
            ratios_cli[kind].append(rg_t / cli_t)
            ratios_daemon[kind].append(rg_t / dmn_t)
            print(f"{(kind[0] + ': ' + q)[:39]:<40}{len(got):>7}{'yes' if same else 'NO':>6}{rg_t * 1000:>9.2f}"
                  f"{srv_t * 1000:>11.3f}{cli_t * 1000:>9.2f}{dmn_t * 1000:>10.2f}{rg_t / srv_t:>11.1f}"
                  f"{rg_t / cli_t:>8.1f}{rg_t / dmn_t:>10.1f}")
            if not same:
                print(f"    only rg: {sorted(expected - got)[:3]}  only nib: {sorted(got - expected)[:3]}")
    for q in PROSE:
        srv_t, res = server({"query": q, "route": "lexical", "k": 20})
        cli_t, _ = cli(["-r", "lexical", q])
        dmn_t, _ = cli(["-r", "lexical", q], daemon=True)
        top = res["result"]["hits"][0] if res["result"]["hits"] else {}
        print(f"{('bm25: ' + q)[:39]:<40}{len(res['result']['hits']):>7}{'-':>6}{'-':>9}{srv_t * 1000:>11.3f}"
              f"{cli_t * 1000:>9.2f}{dmn_t * 1000:>10.2f}{'-':>11}{'-':>8}{'-':>10}"
              f"   top: {top.get('path', '')}#{top.get('name', '')}")
    subprocess.run([nib, "daemon", "stop"], cwd=repo, capture_output=True)
    client.request("shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit"})
    print()
    for kind in ("literal", "regex"):
        print(f"{kind}: median rg/server {statistics.median(ratios_server[kind]):.1f}x, "
              f"median rg/cli {statistics.median(ratios_cli[kind]):.1f}x (no daemon), "
              f"median rg/cli {statistics.median(ratios_daemon[kind]):.1f}x (with `nib daemon`)")
    print("result sets identical to ripgrep (and daemon output identical to the command's own):",
          "all" if all_same else "NOT ALL")


if __name__ == "__main__":
    without_sampler()
    main()
