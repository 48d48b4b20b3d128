#!/usr/bin/env python3
"""Static against live on real code bases, through `nib bench live-vs-static`.

For each corpus (fetched by bench/fetch-corpus.sh when missing) this makes a scratch copy,
gives C/C++ code a compilation database (CMake's, copied to the root, where clangd and nib look),
indexes it, runs the benchmark (which draws identifiers from the files' text, never from nib's
index, and sends the same requests, interleaved, to `nib serve --provider static` and to clangd /
pylsp / typescript-language-server over stdio) and prints the tables as Markdown, with the
machine noted.

With --runs N the live side runs N times on the same index, each time with clangd's background
index cache removed first. clangd indexes translation units in a random order
(`std::shuffle` seeded from `std::random_device` in its BackgroundIndex) and keeps, for a file
more than one unit reads, the view of whichever unit wrote it last; so a few of its answers
change from run to run (its cache is `.nib/clangd/.cache`: nib points clangd there). The
agreement table then gives each run's match rate, their mean, how
many requests clangd answered differently between runs, and the match rate on the requests it
answered the same way every time.

usage: python3 bench/live_bench.py [--corpus NAME ...] [--samples N] [--seed S] [--runs N] [--json FILE]
       NAME: libuv1 (C), fmtlib and googletest (C++), python3-requests (Python),
             rxjs-7.8.1 (TypeScript)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

# Whole-process figures of commands on their own: no `nib daemon` started behind the bench's
# back by a query on a large repository (one the bench starts itself is named as such).
os.environ.setdefault("NIB_NO_AUTO_DAEMON", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
NIB = os.environ.get("NIB", os.path.join(REPO, "build", "cli", "nib"))
SCRATCH = os.environ.get("NIB_LIVE_BENCH_DIR", "/tmp/nib-live-bench")

CORPORA = {
    "libuv1": {"item": "libuv1", "languages": "c", "cmake": ["-DLIBUV_BUILD_TESTS=ON"]},
    # Debian's tarball has no bundled gtest: the tests have no compile commands (clangd then
    # indexes the library alone, and answers about test files with fallback flags).
    "fmtlib": {"item": "fmtlib", "languages": "cpp", "cmake": ["-DFMT_TEST=OFF", "-DFMT_DOC=OFF"]},
    # The copy Debian installs with googletest's sources (gtest and gmock, their own tests).
    "googletest": {"item": "/usr/src/googletest", "languages": "cpp", "cmake": ["-Dgtest_build_tests=ON", "-Dgmock_build_tests=ON"]},
    "python3-requests": {"item": "deb:python3-requests", "languages": "python"},
    "rxjs-7.8.1": {"item": "npm:rxjs@7.8.1", "languages": "typescript"},
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def prepare(name):
    spec = CORPORA[name]
    src = os.path.join(HERE, "corpus", name)
    if not os.path.isdir(os.path.join(src, ".git")):
        if spec["item"].startswith("/"):
            # A source tree on this machine: one commit of it.
            shutil.copytree(spec["item"], src, symlinks=True)
            run(["git", "init", "-q"], cwd=src)
            run(["git", "add", "-A"], cwd=src)
            run(["git", "-c", "user.name=bench", "-c", "user.email=bench@nib", "commit", "-qm", "import"], cwd=src)
        else:
            run([os.path.join(HERE, "fetch-corpus.sh"), spec["item"]])
    dst = os.path.join(SCRATCH, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(SCRATCH, exist_ok=True)
    run(["cp", "-a", src, dst])
    with open(os.path.join(dst, ".git", "info", "exclude"), "a") as f:
        f.write("compile_commands.json\n.cache/\n")
    if "cmake" in spec:
        build = dst + "-cmake"
        shutil.rmtree(build, ignore_errors=True)
        run(["cmake", "-S", dst, "-B", build, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_BUILD_TYPE=Debug"]
            + spec["cmake"], stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(build, "compile_commands.json"), os.path.join(dst, "compile_commands.json"))
    run([NIB, "index", "-q", "--no-dense", dst])
    return dst


def clang_stats(root):
    """The clang index's build figures from the manifest (empty without a compilation database)."""
    out = subprocess.run([NIB, "status", "--json", root], check=True, stdout=subprocess.PIPE, text=True).stdout
    return {k: v for k, v in json.loads(out)["stats"].items() if k.startswith("clang.")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", nargs="+", default=list(CORPORA))
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=1, help="run the live side this many times (see above)")
    ap.add_argument("--json", help="write every corpus's full answer here")
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    for name in args.corpus:
        if name not in CORPORA:
            sys.exit("unknown corpus %s (known: %s)" % (name, ", ".join(CORPORA)))
    results, runs = {}, {}
    for name in args.corpus:
        root = prepare(name)
        runs[name] = []
        for k in range(args.runs):
            # clangd's index cache: without it every run starts cold, as the first did.
            shutil.rmtree(os.path.join(root, ".nib", "clangd", ".cache"), ignore_errors=True)
            print("live_bench: %s (run %d of %d)" % (name, k + 1, args.runs), file=sys.stderr, flush=True)
            out = subprocess.run([NIB, "bench", "live-vs-static", "--root", root, "--samples", str(args.samples),
                                  "--seed", str(args.seed), "--languages", CORPORA[name]["languages"], "--json"],
                                 check=True, stdout=subprocess.PIPE, text=True).stdout
            runs[name].append(json.loads(out))
        results[name] = runs[name][0]
        results[name]["clang"] = clang_stats(root)
        results[name]["laterRuns"] = runs[name][1:]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)

    first = next(iter(results.values()))
    print("machine: %s; seed %d, %d positions per code base (identifiers drawn from the files' text)\n"
          % (first["machine"], args.seed, args.samples))
    print("| code base | method | requests | match [95 %% interval] | live empty / failed | precision | recall "
          "| static p50 / p95 ms (nib serve, stdio) | live p50 / p95 ms | in-engine p50 ms | live/static warm | cold |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, r in results.items():
        for row in r["rows"]:
            ratio = lambda v, n: "%.0f× (%d)" % (v, n) if n else "–"
            print("| %s %s | %s | %d | %.1f%% [%.1f, %.1f] | %d / %d | %.1f%% | %.1f%% | %.2f / %.2f | %.1f / %.1f "
                  "| %.3f | %s | %s |" % (
                      name, row["language"], row["method"], row["requests"], 100 * row["matchRate"], 100 * row["low"],
                      100 * row["high"], row["liveEmpty"], row["liveFailed"], 100 * row["precision"],
                      100 * row["recall"], row["staticP50Ms"], row["staticP95Ms"], row["liveP50Ms"], row["liveP95Ms"],
                      row["inEngineP50Ms"], ratio(row["ratioWarm"], row["warmMatched"]),
                      ratio(row["ratioCold"], row["coldMatched"])))
    if args.runs > 1:
        print_agreement(runs)
    print("\nBy the index answer's category:\n")
    print("| code base | language | method | category | match |")
    print("| --- | --- | --- | --- | --- |")
    for name, r in results.items():
        for c in r["categories"]:
            print("| %s | %s | %s | %s | %d/%d [%.1f, %.1f] |" % (name, c["language"], c["method"], c["category"],
                                                                 c["matched"], c["requests"], 100 * c["low"],
                                                                 100 * c["high"]))
    print("\nThe clang index (cold: no cached translation units) next to clangd's background index:\n")
    print("| code base | TUs | failed | clang index s | per TU s (mean / max) | clangd background index s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, r in results.items():
        c = r.get("clang", {})
        if not c.get("clang.units"):
            continue
        units = int(c["clang.units"])
        bg = [l["backgroundIndexMs"] for l in r["languages"] if l["backgroundIndexMs"] >= 0]
        print("| %s | %d | %s | %.1f | %.2f / %.2f | %s |" % (
            name, units, c.get("clang.failed", "0"), float(c["clang.seconds"]),
            float(c.get("clang.unit-seconds", 0)) / max(int(c.get("clang.indexed", 1)), 1), float(c["clang.max-unit-seconds"]),
            "%.1f" % (bg[0] / 1000) if bg else "–"))
    print("\n| code base | backend | files | static first answer ms | live start / first answer ms "
          "| background index s | static / live peak RSS MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, r in results.items():
        for l in r["languages"]:
            bg = "%.1f" % (l["backgroundIndexMs"] / 1000) if l["backgroundIndexMs"] >= 0 else "–"
            print("| %s | %s | %d | %.1f | %.0f / %.0f | %s | %.0f / %.0f |" % (
                name, l["backend"], l["files"], r["staticFirstAnswerMs"], l["liveStartMs"], l["liveFirstAnswerMs"], bg,
                r["staticPeakRssKiB"] / 1024, l["livePeakRssKiB"] / 1024))


def print_agreement(runs):
    """Match rates over several runs of the live side, and on the requests clangd answered alike."""
    print("\nAgreement over %d runs of the live side (the index's answers are the same every run):\n"
          % len(next(iter(runs.values()))))
    print("| code base | method | match per run | mean | requests clangd answered differently "
          "| match where it answered alike |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, rs in runs.items():
        methods = []
        for q in rs[0]["requests"]:
            if (q["language"], q["method"]) not in methods:
                methods.append((q["language"], q["method"]))
        for language, method in methods:
            per_run, answers = [], {}
            for r in rs:
                qs = [q for q in r["requests"] if q["language"] == language and q["method"] == method]
                per_run.append(100.0 * sum(q["matched"] for q in qs) / len(qs) if qs else 0.0)
                for q in qs:
                    key = (q["path"], q["line"], q["column"])
                    answers.setdefault(key, []).append(q)
            stable = [v for v in answers.values()
                      if len(v) == len(rs) and all(q["liveAnswered"] for q in v)
                      and len({q["liveDigest"] for q in v}) == 1]
            changed = sum(1 for v in answers.values()
                          if any(q["liveAnswered"] for q in v) and len({q["liveDigest"] for q in v}) > 1)
            stable_match = 100.0 * sum(v[0]["matched"] for v in stable) / len(stable) if stable else 0.0
            print("| %s %s | %s | %s | %.1f%% | %d | %.1f%% (%d) |" % (
                name, language, method, " / ".join("%.1f%%" % x for x in per_run),
                sum(per_run) / len(per_run), changed, stable_match, len(stable)))


if __name__ == "__main__":
    main()
