#!/usr/bin/env python3
"""Does nib's self-measured agreement (calibrated answers) match an independent client's, and
what does the `auto` policy then give?

One repository, one language, three phases, run one after the other:

(a) Self-measurement. `<build>/cli/nib serve --provider auto` starts in the repository (cwd)
    with NIB_CALIBRATION_SAMPLES_PER_HOUR=--samples-per-hour (default 100000) in its
    environment; the repository's `.nib.conf` should say `calibration.idle-ms = 0` (checked and
    reported, not written: the worktree must stay as indexed). The client sends `initialize`
    and `initialized`, asks `nib/status` once (the counts already stored, the "before" table),
    then sends nothing for --sample-seconds (default 600) except `nib/status` every
    --poll-seconds (default 30; every message cancels the sample in flight, so polls are
    rare and counted). Requests the server sends (workspace/configuration, progress tokens)
    are answered; `window/logMessage` and `window/showMessage` are kept. The last `nib/status`
    gives the self-measured table: per language × request × category × backend, sampled,
    agreed and nib's own Wilson interval (`low`, `high`). The table is cumulative: counts stored
    in `.nib/agreement/` by earlier servers on this index version are included; the "before"
    table and the difference (this run's own samples) are printed too. Then `shutdown` and
    `exit` (the counts are saved at exit), and `nib status` (CLI) is run to show that they
    persisted (its `agreement` lines are kept). Lines appended to `.nib/backends.log` during
    the phase are kept, and those that look like errors are counted.

(b) Independent client, static answers. bench/agreement_bench.py runs on the same repository
    and language with the same build (`--provider static`, --files/--per-file/--seed, and for
    Python `--live pylsp=/usr/bin/pylsp`, the backend nib's sampler asks; TypeScript/JavaScript
    and C/C++ use agreement_bench's default server, typescript-language-server and clangd),
    with NIB_CALIBRATION_SAMPLES_PER_HOUR=0 so that no sampler runs. Its positions come from
    the text by its own seeded draw (see its docstring). Each of its requests is labelled by
    `nib/locate`: the label is "<facts> <confidence>" (e.g. "scip exact"); a null nib/locate
    result (the index found no symbol) is "none", as the sampler's category; a nib/locate
    error is "error". Every request counts, and agreement_bench counts an error or time-out on
    either side as a disagreement. The sampler's categories may carry a facet ("clang exact
    macro", "clang exact override") that nib/locate does not report: such categories are
    compared pooled with their "<facts> <confidence>" sibling and listed as labelled
    differently; categories only one side saw are listed too.
    Comparison, per request kind and category: self rate [nib's interval] vs independent rate
    [Wilson 95 %], the difference in percentage points (self − independent) and whether the two
    intervals overlap.

(c) Independent client, `auto`. agreement_bench.py again, same positions (same seed), with
    `--provider auto` and NIB_CALIBRATION_SAMPLES_PER_HOUR=0: nib serve now reads the counts
    that (a) stored and answers each category from the index only where its measured agreement
    reaches calibration.threshold (99 %) with calibration.min-samples (20) samples, from its own
    live backend otherwise. Per request kind: agreement with the independent live server (all
    requests; errors count as disagreements), the share answered from the index
    (`nib/locate`'s provider == "static"; "live" and anything else, errors included, are
    counted as shown), and agreement within each provider. A null nib/locate result (the index
    found no symbol) carries no provider; nib answers it with the index's empty answer, so it
    is shown apart and added to the share in a second column. Static answers that the policy
    meant for the backend, which failed (nib/locate's note "the live backend did not answer"),
    are counted apart as well. nib/locate is a separate request
    from the textDocument request it labels; agreement_bench reports where their locations
    differ, and so does this script.

What differs between the two clients by design (read the comparison with these in mind):
  - positions: the sampler draws a uniformly random indexed file with a live backend (of any
    language that backend serves: JavaScript files in a TypeScript repository) and a uniformly
    random code identifier in it (any length), with replacement (a small repository's
    positions recur, so nib's interval is narrower than the distinct positions warrant);
    agreement_bench draws --files files of the one
    language and --per-file identifiers of three or more characters in each. Its requests are
    clustered by file, so its Wilson interval (which assumes independent requests) is too
    narrow; categories appear in other proportions, hence the pooled "(all)" rows differ more.
  - the live server's state: each client has its own server process, whose answers can depend
    on what it loaded before (tsserver's projects, one per tsconfig, are searched for
    references only once loaded; clangd's background index; pylsp's caches). The sampler does
    not count an answer given while the backend reports indexing (clangd's background index). The sampler's backend has been
    asked thousands of positions across the repository, the independent one a few files.
  - failures: the sampler does not count a position whose backend request failed or timed out
    (nib's live.timeout-ms, default 5000) and pauses a minute; agreement_bench waits --timeout
    (60 s) and counts a failure as a disagreement.
  - columns: the sampler compares byte columns, agreement_bench the wire's (UTF-16) characters,
    both on the same sides' sets, so an equal set is equal in both.

Prints a markdown table per phase and writes everything (the raw agreement_bench JSON files
are kept next to --json) with --json. No request of either client is dropped: totals are
printed beside every rate.

Usage: bench/calibration_bench.py --repo DIR --language python|typescript|javascript|c|cpp
                                  [--build DIR] [--sample-seconds S] [--poll-seconds S]
                                  [--files N] [--per-file K] [--seed S] [--json FILE]
                                  [--skip-sampling] [--skip-independent] [--skip-auto]
       bench/calibration_bench.py --from-json FILE     (the report again, from a run's --json)
"""
import argparse
import collections
import json
import math
import os
import platform
import queue
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from agreement_bench import wilson  # noqa: E402

KINDS = ["definition", "references"]
BACKEND_OF = {"python": "pylsp", "typescript": "typescript-language-server",
              "javascript": "typescript-language-server", "c": "clangd", "cpp": "clangd"}
LANGUAGE_NAME = {"python": "python", "typescript": "typescript", "javascript": "javascript", "c": "c", "cpp": "cpp"}


# ---- a small LSP client with a reader thread ----------------------------------------------------

class Lsp:
    def __init__(self, cmd, cwd, env, stderr_path):
        self.stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.next_id = 0
        self.inbox = queue.Queue()
        self.lock = threading.Lock()
        self.log = []  # (seconds since start, method, type, message)
        self.server_requests = collections.Counter()
        self.started = time.perf_counter()
        self.dead = False
        threading.Thread(target=self._pump, daemon=True).start()

    def send(self, msg):
        body = json.dumps(msg).encode()
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def _pump(self):
        while True:
            try:
                msg = self._read()
            except (OSError, ValueError):
                msg = None
            if msg is None:
                self.dead = True
                self.inbox.put(None)
                return
            method = msg.get("method")
            if method and "id" in msg:
                self.server_requests[method] += 1
                result = None
                if method == "workspace/configuration":
                    result = [None] * len((msg.get("params") or {}).get("items") or [])
                try:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                except OSError:
                    pass
            elif method in ("window/logMessage", "window/showMessage"):
                p = msg.get("params") or {}
                self.log.append((round(time.perf_counter() - self.started, 1), method, p.get("type"),
                                 p.get("message")))
            elif not method:
                self.inbox.put(msg)

    def request(self, method, params, timeout=120):
        if self.dead:
            return {"error": {"code": "exited", "message": "the server exited"}}
        self.next_id += 1
        rid = self.next_id
        try:
            self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        except OSError:
            return {"error": {"code": "exited", "message": "the server exited"}}
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return {"error": {"code": "timeout", "message": f"no answer in {timeout} s"}}
            try:
                msg = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                return {"error": {"code": "exited", "message": "the server exited"}}
            if msg.get("id") == rid:
                return msg

    def notify(self, method, params):
        try:
            self.send({"jsonrpc": "2.0", "method": method, "params": params})
        except OSError:
            pass

    def close(self, timeout=60):
        r = self.request("shutdown", None, timeout=timeout)
        self.notify("exit", None)
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            rc = self.proc.wait()
        self.stderr.close()
        return r, rc


# ---- helpers -------------------------------------------------------------------------------------

def pct(x):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def cell(k, n, lo=None, hi=None):
    if not n:
        return "–"
    if lo is None:
        lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f} % [{100 * lo:.1f}–{100 * hi:.1f}]"


def status_table(resp):
    res = (resp or {}).get("result") or {}
    return res.get("agreement") or []


def key_of(row):
    return (row["language"], row["request"], row["category"], row["backend"])


def total_sampled(table):
    """Samples (positions) counted: the definition rows' sum (each position is asked both)."""
    return sum(r["sampled"] for r in table if r["request"] == "definition")


def read_conf(repo):
    try:
        with open(os.path.join(repo, ".nib.conf")) as f:
            return f.read()
    except OSError:
        return None


def file_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def read_from(path, offset):
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


# nib/locate answers null only when the index found no symbol and the index answered (an empty
# answer); an answer from the backend always carries provider "live".
NULL_LOCATE = "null (index: no symbol)"

ERRORISH = re.compile(r"error|exception|traceback|fail|fatal|crash", re.I)


# ---- phase (a): self-measurement ---------------------------------------------------------------

def self_measure(args, repo, nib, out_dir):
    conf = read_conf(repo)
    idle_ok = conf is not None and re.search(r"^\s*calibration\.idle-ms\s*=\s*0\s*$", conf, re.M)
    if not idle_ok:
        print("warning: .nib.conf does not say `calibration.idle-ms = 0`; the sampler waits its default "
              "2000 ms of quiet before each sample", file=sys.stderr)
    env = dict(os.environ, NIB_CALIBRATION_SAMPLES_PER_HOUR=str(args.samples_per_hour))
    backends_log = os.path.join(repo, ".nib", "backends.log")
    log_offset = file_size(backends_log)
    cmd = [nib, "serve", "--provider", "auto"]
    stderr_path = os.path.join(out_dir, "serve-stderr.txt")
    t0 = time.perf_counter()
    s = Lsp(cmd, repo, env, stderr_path)
    init = {"processId": os.getpid(), "rootUri": "file://" + repo, "rootPath": repo,
            "workspaceFolders": [{"uri": "file://" + repo, "name": os.path.basename(repo)}],
            "capabilities": {"textDocument": {"definition": {"linkSupport": False}, "references": {}},
                             "window": {"workDoneProgress": True},
                             "workspace": {"configuration": True, "workspaceFolders": True}}}
    r = s.request("initialize", init, timeout=300)
    if "error" in r:
        sys.exit(f"bench: nib serve did not initialize: {r['error']}")
    s.notify("initialized", {})
    before = status_table(s.request("nib/status", {}))
    polls = []  # (seconds, positions sampled so far, rows)
    polls.append((round(time.perf_counter() - t0, 1), total_sampled(before), len(before)))
    start = time.perf_counter()
    deadline = start + args.sample_seconds
    last = before
    poll_errors = 0
    while True:
        left = deadline - time.perf_counter()
        if left <= 0 or s.dead:
            break
        time.sleep(min(args.poll_seconds, left))
        if time.perf_counter() >= deadline - 0.5:
            break  # the final status below counts as the last poll
        resp = s.request("nib/status", {})
        if "error" in resp:
            poll_errors += 1
            continue
        last = status_table(resp)
        polls.append((round(time.perf_counter() - t0, 1), total_sampled(last), len(last)))
        print(f"  [{polls[-1][0]:7.1f} s] positions sampled (cumulative): {polls[-1][1]}", file=sys.stderr,
              flush=True)
    final_resp = s.request("nib/status", {})
    if "error" in final_resp:
        poll_errors += 1
        final = last
    else:
        final = status_table(final_resp)
    polls.append((round(time.perf_counter() - t0, 1), total_sampled(final), len(final)))
    sampled_for = time.perf_counter() - start
    died = s.dead
    shut, rc = s.close()
    cli = subprocess.run([nib, "status"], cwd=repo, capture_output=True, text=True)
    cli_lines = [ln for ln in cli.stdout.splitlines() if ln.startswith("agreement")]
    appended = read_from(backends_log, log_offset)
    appended_lines = appended.splitlines()
    stderr_text = read_from(stderr_path, 0)
    # Stuck: three polls in a row with no new position.
    stuck = []
    for i in range(3, len(polls)):
        if polls[i][1] == polls[i - 3][1]:
            stuck.append(polls[i][0])
    return {
        "command": " ".join(cmd), "env": {"NIB_CALIBRATION_SAMPLES_PER_HOUR": str(args.samples_per_hour)},
        "nib_conf": conf, "idle_ms_0": bool(idle_ok), "seconds": round(sampled_for, 1),
        "poll_seconds": args.poll_seconds, "polls": polls, "poll_errors": poll_errors,
        "status_requests": len(polls), "server_died_during_sampling": died,
        "shutdown": shut, "exit_code": rc, "before": before, "final": final,
        "cli_status_agreement": cli_lines, "cli_status_rc": cli.returncode,
        "log_messages": s.log, "server_requests": dict(s.server_requests),
        "backends_log_appended_lines": len(appended_lines),
        "backends_log_errorish": [ln for ln in appended_lines if ERRORISH.search(ln)],
        "serve_stderr": stderr_text[-20000:], "stuck_at": stuck,
    }


def delta_table(before, final):
    b = {key_of(r): r for r in before}
    out = []
    for r in final:
        prev = b.get(key_of(r), {"sampled": 0, "agreed": 0})
        out.append({"key": key_of(r), "sampled": r["sampled"] - prev["sampled"], "agreed": r["agreed"] - prev["agreed"]})
    return out


# ---- phases (b) and (c): the independent client -------------------------------------------------

def run_agreement_bench(args, repo, provider, json_path, stdout_path):
    cmd = [sys.executable, os.path.join(HERE, "agreement_bench.py"), "--repo", repo, "--language", args.language,
           "--files", str(args.files), "--per-file", str(args.per_file), "--seed", str(args.seed),
           "--build", args.build, "--provider", provider, "--json", json_path, "--timeout", str(args.timeout)]
    if args.language == "python":
        cmd += ["--live", "pylsp=/usr/bin/pylsp"]
    if args.fresh_live:
        cmd += ["--fresh-live"]
    for spec in args.live or []:
        cmd += ["--live", spec]
    env = dict(os.environ, NIB_CALIBRATION_SAMPLES_PER_HOUR="0")
    t = time.perf_counter()
    with open(stdout_path, "w") as out:
        p = subprocess.run(cmd, cwd=repo, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - t
    if p.returncode != 0:
        print(read_from(stdout_path, 0)[-3000:], file=sys.stderr)
        sys.exit(f"bench: agreement_bench.py --provider {provider} exited with {p.returncode}")
    with open(json_path) as f:
        data = json.load(f)
    return cmd, seconds, data


def label_of(locate):
    if "error" in locate:
        return "error"
    if locate.get("confidence") == "null result":
        return "none"
    # nib/locate names the category the policy decided by (the sampler's own) when nib has one;
    # older nib builds and live answers only say which facts answered and how certain they were.
    if locate.get("category"):
        return locate["category"]
    return f"{locate.get('facts') or '?'} {locate.get('confidence') or '?'}"


def independent_counts(data, live):
    """{(kind, label): [agreed, n]} and per kind totals."""
    counts = collections.defaultdict(lambda: [0, 0])
    for r in data["records"]:
        a = bool(r["agree"][live])
        c = counts[(r["kind"], label_of(r["locate"]))]
        c[0] += a
        c[1] += 1
    return counts


def compare(final, data, live, language, backend):
    indep = independent_counts(data, live)
    rows, notes = [], []
    self_rows = {(r["request"], r["category"]): r for r in final
                 if r["language"] == language and r["backend"] == backend}
    other_self = [r for r in final if not (r["language"] == language and r["backend"] == backend)]
    if other_self:
        notes.append("self-measured rows of other languages/backends (not compared): " +
                     ", ".join(f"{r['language']} {r['request']} {r['category']} ({r['backend']}) {r['agreed']}/{r['sampled']}"
                               for r in other_self))
    used = set()
    # A nib whose nib/locate names categories is compared category by category; an older one's
    # labels ("<facts> <confidence>") pool the sampler's categories that share them.
    fine = any(len(lab.split()) > 2 for (_, lab) in indep)

    def pooled(c):
        return c if fine or c == "none" else " ".join(c.split()[:2])

    for kind in KINDS:
        labels = sorted({lab for (k, lab) in indep if k == kind} | {pooled(c) for (k, c) in self_rows if k == kind})
        for lab in labels:
            ia, in_ = indep.get((kind, lab), (0, 0))
            members = [c for (k, c) in self_rows if k == kind and pooled(c) == lab]
            sa = sum(self_rows[(kind, c)]["agreed"] for c in members)
            sn = sum(self_rows[(kind, c)]["sampled"] for c in members)
            used.update((kind, c) for c in members)
            if len(members) == 1 and members[0] == lab:
                r = self_rows[(kind, lab)]
                slo, shi = r["low"], r["high"]
                self_cell = cell(sa, sn, slo, shi)
            else:
                slo, shi = wilson(sa, sn) if sn else (float("nan"), float("nan"))
                self_cell = cell(sa, sn)
            if len(members) > 1 or (members and members[0] != lab):
                notes.append(f"{kind} '{lab}': nib/locate cannot tell apart the sampler's categories "
                             f"{', '.join(repr(m) for m in members)}; compared pooled")
            ilo, ihi = wilson(ia, in_) if in_ else (float("nan"), float("nan"))
            diff = 100 * (sa / sn - ia / in_) if sn and in_ else None
            overlap = None
            if sn and in_:
                overlap = not (shi < ilo or ihi < slo)
            if not sn:
                notes.append(f"{kind} '{lab}': only the independent client saw it ({in_} requests)")
            if not in_:
                notes.append(f"{kind} '{lab}': only the sampler saw it ({sn} samples)")
            rows.append({"request": kind, "category": lab, "self_members": members, "self_agreed": sa,
                         "self_sampled": sn, "self_low": slo, "self_high": shi, "self_cell": self_cell,
                         "indep_agreed": ia, "indep_n": in_, "indep_low": ilo, "indep_high": ihi,
                         "indep_cell": cell(ia, in_), "diff_points": diff, "intervals_overlap": overlap})
    for kind in KINDS:
        ia = sum(v[0] for (k, _), v in indep.items() if k == kind)
        in_ = sum(v[1] for (k, _), v in indep.items() if k == kind)
        sa = sum(r["agreed"] for (k, _), r in self_rows.items() if k == kind)
        sn = sum(r["sampled"] for (k, _), r in self_rows.items() if k == kind)
        rows.append({"request": kind, "category": "(all)", "self_agreed": sa, "self_sampled": sn,
                     "self_cell": cell(sa, sn), "indep_agreed": ia, "indep_n": in_, "indep_cell": cell(ia, in_),
                     "diff_points": 100 * (sa / sn - ia / in_) if sn and in_ else None,
                     "note": "pooled over categories: the two clients draw categories in different proportions"})
        rows.append(reweighted(kind, rows, indep))
    return rows, notes


def reweighted(kind, rows, indep):
    """What the self-measurement predicts the independent client measures: each category's
    self-measured rate weighted by the independent client's share of requests in it. Requests in
    categories the sampler never saw are left out of both sides and counted."""
    predicted, covered_agreed, covered = 0.0, 0, 0
    for r in rows:
        if r["request"] != kind or r["category"].startswith("(") or not r["self_sampled"] or not r["indep_n"]:
            continue
        predicted += r["indep_n"] * r["self_agreed"] / r["self_sampled"]
        covered_agreed += r["indep_agreed"]
        covered += r["indep_n"]
    total = sum(v[1] for (k, _), v in indep.items() if k == kind)
    rate = predicted / covered if covered else None
    return {"request": kind, "category": "(all, reweighted)", "self_agreed": None, "self_sampled": covered,
            "self_cell": f"{100 * rate:.1f} % predicted" if rate is not None else "–",
            "indep_agreed": covered_agreed, "indep_n": covered, "indep_cell": cell(covered_agreed, covered),
            "diff_points": 100 * (rate - covered_agreed / covered) if covered else None,
            "note": f"each category's self-measured rate at the independent client's mix; "
                    f"{total - covered} of {total} requests in categories the sampler did not see"}


def auto_summary(data, live):
    out = {}
    for kind in KINDS:
        recs = [r for r in data["records"] if r["kind"] == kind]
        by_provider = collections.defaultdict(lambda: [0, 0])
        by_provider_label = collections.defaultdict(lambda: [0, 0])
        for r in recs:
            prov = NULL_LOCATE if r["locate"].get("confidence") == "null result" else \
                ("locate error" if "error" in r["locate"] else r["locate"].get("provider") or "no provider")
            c = by_provider[prov]
            c[0] += bool(r["agree"][live])
            c[1] += 1
            d = by_provider_label[(prov, label_of(r["locate"]))]
            d[0] += bool(r["agree"][live])
            d[1] += 1
        agreed = sum(bool(r["agree"][live]) for r in recs)
        nib_errors = sum("error" in r["answers"]["nib"] for r in recs)
        live_errors = sum("error" in r["answers"][live] for r in recs)
        differ = sum(bool(r["locate"].get("locations_differ")) for r in recs)
        # Static answers the policy wanted from the backend, which failed (nib/locate's note says so).
        fallback = sum(r["locate"].get("provider") == "static" and "live backend did not answer" in
                       (r["locate"].get("note") or "") for r in recs)
        out[kind] = {"n": len(recs), "agreed": agreed, "static": by_provider.get("static", [0, 0])[1],
                     "null_locate": by_provider.get(NULL_LOCATE, [0, 0])[1],
                     "by_provider": {k: v for k, v in by_provider.items()},
                     "by_provider_label": {f"{p} / {lab}": v for (p, lab), v in by_provider_label.items()},
                     "nib_errors": nib_errors, "live_errors": live_errors, "locate_locations_differ": differ,
                     "static_after_backend_failure": fallback}
    return out


# ---- output ------------------------------------------------------------------------------------

def print_report(args, repo, a, cmp_rows, cmp_notes, b_info, c_info, auto, live, timings):
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"repository: {repo}; language {args.language}; build {args.build}")
    if a:
        print(f"\n### (a) self-measured: `{a['command']}`, NIB_CALIBRATION_SAMPLES_PER_HOUR="
              f"{args.samples_per_hour}, idle {a['seconds']} s, nib/status every {args.poll_seconds} s "
              f"({a['status_requests']} status requests)\n")
        print(f".nib.conf says calibration.idle-ms = 0: {'yes' if a['idle_ms_0'] else 'NO'}")
        deltas = {d["key"]: d for d in delta_table(a["before"], a["final"])}
        print("\n| language | request | category | backend | sampled | agreed | rate [nib's interval] "
              "| of which this run |")
        print("|---|---|---|---|---|---|---|---|")
        for r in sorted(a["final"], key=lambda r: (r["request"], -r["sampled"])):
            d = deltas[key_of(r)]
            print(f"| {r['language']} | {r['request']} | {r['category']} | {r['backend']} | {r['sampled']} | "
                  f"{r['agreed']} | {cell(r['agreed'], r['sampled'], r['low'], r['high'])} | "
                  f"{d['agreed']}/{d['sampled']} |")
        print(f"\npositions sampled: {total_sampled(a['before'])} stored before, {total_sampled(a['final'])} "
              f"after ({total_sampled(a['final']) - total_sampled(a['before'])} this run, "
              f"{(total_sampled(a['final']) - total_sampled(a['before'])) / max(a['seconds'], 1) * 60:.1f} a minute)")
        print(f"- polls (s, cumulative positions): {a['polls']}")
        if a["stuck_at"]:
            print(f"- no new sample over three polls, at {a['stuck_at']} s")
        print(f"- nib status (CLI) after exit: {len(a['cli_status_agreement'])} agreement lines "
              f"(rc {a['cli_status_rc']})")
        for ln in a["cli_status_agreement"]:
            print(f"  - `{ln}`")
        print(f"- window/logMessage|showMessage: {len(a['log_messages'])}")
        for m in collections.Counter(str(x[3])[:160] for x in a["log_messages"]).most_common(8):
            print(f"  - ×{m[1]} {m[0]}")
        print(f"- .nib/backends.log: {a['backends_log_appended_lines']} lines appended, "
              f"{len(a['backends_log_errorish'])} look like errors")
        for m in collections.Counter(ln[:160] for ln in a["backends_log_errorish"]).most_common(5):
            print(f"  - ×{m[1]} {m[0]}")
        print(f"- server died during sampling: {a['server_died_during_sampling']}; exit code {a['exit_code']}; "
              f"poll errors {a['poll_errors']}")
    if cmp_rows is not None:
        print(f"\n### (b) self-measured vs independent (agreement_bench.py --provider static, {live}; "
              f"{b_info['n']} requests, {b_info['seconds']:.0f} s)\n")
        print("| request | category | self-measured [nib's interval] | independent [Wilson 95 %] "
              "| self − independent (points) | intervals overlap |")
        print("|---|---|---|---|---|---|")
        for r in cmp_rows:
            d = "–" if r["diff_points"] is None else f"{r['diff_points']:+.1f}"
            ov = {None: "–", True: "yes", False: "**no**"}[r.get("intervals_overlap")]
            print(f"| {r['request']} | {r['category']} | {r['self_cell']} | {r['indep_cell']} | {d} | {ov} |")
        print()
        for n in cmp_notes:
            print(f"- {n}")
        print(f"- agreement_bench: nib errors {b_info['nib_errors']}, {live} errors {b_info['live_errors']}, "
              f"nib/locate errors {b_info['locate_errors']}, nib/locate's locations differ from nib's answer at "
              f"{b_info['locate_differ']}")
    if auto is not None:
        print(f"\n### (c) `auto` policy (agreement_bench.py --provider auto, counts of (a), {live}; "
              f"{c_info['n']} requests, {c_info['seconds']:.0f} s)\n")
        print("| request | n | agreement with live [Wilson 95 %] | answered from the index (provider static) "
              "| + no symbol (null nib/locate: index answered empty) "
              "| agreement, provider static | agreement, no symbol | agreement, from live | other | errors nib / live "
              "| locate ≠ answer |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for kind in KINDS:
            s = auto[kind]
            st = s["by_provider"].get("static", [0, 0])
            lv = s["by_provider"].get("live", [0, 0])
            nl = s["by_provider"].get(NULL_LOCATE, [0, 0])
            other = {k: v[1] for k, v in s["by_provider"].items() if k not in ("static", "live", NULL_LOCATE)}
            share = f"{st[1]}/{s['n']} = {100 * st[1] / s['n']:.1f} %" if s["n"] else "–"
            both = st[1] + nl[1]
            share2 = f"{both}/{s['n']} = {100 * both / s['n']:.1f} %" if s["n"] else "–"
            print(f"| {kind} | {s['n']} | {cell(s['agreed'], s['n'])} | {share} | {share2} | {cell(*st)} | "
                  f"{cell(*nl)} | {cell(*lv)} | {other or '–'} | {s['nib_errors']} / {s['live_errors']} "
                  f"| {s['locate_locations_differ']} |")
        print()
        for kind in KINDS:
            print(f"- {kind}: of the {auto[kind]['static']} static answers, "
                  f"{auto[kind]['static_after_backend_failure']} were meant for the backend, which did not answer "
                  "(nib/locate's note)")
        for kind in KINDS:
            print(f"- {kind} by provider / nib/locate label (a live answer's label is \"? exact\": nib/locate "
                  f"clears facts then): " +
                  ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(auto[kind]["by_provider_label"].items())))
    print(f"\nwall time: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))


def report_again(args):
    with open(args.from_json) as f:
        saved = json.load(f)
    language = LANGUAGE_NAME[saved["language"]]
    backend = BACKEND_OF[saved["language"]]
    args.build, args.language = saved["build"], saved["language"]
    a, final = saved["self"], saved["self_table"]
    if a:
        args.samples_per_hour = a["env"]["NIB_CALIBRATION_SAMPLES_PER_HOUR"]
        args.poll_seconds = a["poll_seconds"]
    cmp_rows = cmp_notes = b_info = auto = c_info = None
    live = None
    if saved.get("independent_static"):
        b_info = saved["independent_static"]
        with open(b_info["json"]) as f:
            b_data = json.load(f)
        live = next(iter(b_data["live"]))
        cmp_rows, cmp_notes = compare(final, b_data, live, language, backend)
    if saved.get("independent_auto"):
        c_info = saved["independent_auto"]
        with open(c_info["json"]) as f:
            c_data = json.load(f)
        live = live or next(iter(c_data["live"]))
        auto = auto_summary(c_data, live)
    print_report(args, saved["repo"], a, cmp_rows, cmp_notes, b_info, c_info, auto, live, saved["timings"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", help="an indexed git repository (required unless --from-json)")
    ap.add_argument("--language", choices=sorted(BACKEND_OF), help="(required unless --from-json)")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--sample-seconds", type=float, default=600, help="idle time for the sampler (default 600)")
    ap.add_argument("--poll-seconds", type=float, default=30, help="seconds between nib/status polls (default 30)")
    ap.add_argument("--samples-per-hour", type=int, default=100000)
    ap.add_argument("--files", type=int, default=12, help="agreement_bench --files (default 12)")
    ap.add_argument("--per-file", type=int, default=8, help="agreement_bench --per-file (default 8)")
    ap.add_argument("--seed", type=int, default=7, help="agreement_bench --seed (default 7)")
    ap.add_argument("--timeout", type=float, default=60, help="agreement_bench --timeout (default 60)")
    ap.add_argument("--fresh-live", action="store_true",
                    help="agreement_bench --fresh-live: its live server starts afresh for every sampled file")
    ap.add_argument("--live", action="append", metavar="NAME=CMD", help="agreement_bench --live (repeatable)")
    ap.add_argument("--json", help="write everything here (agreement_bench's JSON files go next to it)")
    ap.add_argument("--skip-sampling", action="store_true", help="no phase (a): compare the stored counts")
    ap.add_argument("--skip-independent", action="store_true", help="no phase (b)")
    ap.add_argument("--skip-auto", action="store_true", help="no phase (c)")
    ap.add_argument("--from-json", metavar="FILE", help="print the report again from an earlier run's --json "
                    "(its agreement_bench files included); runs nothing")
    args = ap.parse_args()
    if args.from_json:
        return report_again(args)
    if not args.repo or not args.language:
        ap.error("--repo and --language are required")
    args.build = os.path.abspath(args.build)
    repo = os.path.abspath(args.repo)
    nib = os.path.join(args.build, "cli", "nib")
    if not os.path.isdir(os.path.join(repo, ".nib")):
        sys.exit(f"bench: {repo} is not indexed (run `nib index` there)")
    base = os.path.splitext(os.path.abspath(args.json))[0] if args.json else \
        os.path.join("/tmp", f"calibration-{os.path.basename(repo)}-{os.getpid()}")
    out_dir = base + ".files"
    os.makedirs(out_dir, exist_ok=True)
    language = LANGUAGE_NAME[args.language]
    backend = BACKEND_OF[args.language]
    timings = {}
    t_all = time.perf_counter()

    a = None
    if not args.skip_sampling:
        t = time.perf_counter()
        a = self_measure(args, repo, nib, out_dir)
        timings["(a) sampling"] = time.perf_counter() - t
        final = a["final"]
    else:
        # The stored counts, read by a server that does not sample.
        s = Lsp([nib, "serve", "--provider", "auto"], repo, dict(os.environ, NIB_CALIBRATION_SAMPLES_PER_HOUR="0"),
                os.path.join(out_dir, "serve-stderr-status.txt"))
        s.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}}, 300)
        s.notify("initialized", {})
        final = status_table(s.request("nib/status", {}))
        s.close()

    live = "pylsp" if args.language == "python" and not args.live else None

    def independent(provider, phase):
        """agreement_bench.py under `provider`, timed as `phase`: (command, seconds, data, files)."""
        t = time.perf_counter()
        files = {"stdout": "%s/agreement-%s.txt" % (out_dir, provider), "json": "%s/agreement-%s.json" % (out_dir, provider)}
        cmd, seconds, data = run_agreement_bench(args, repo, provider, files["json"], files["stdout"])
        timings[phase] = time.perf_counter() - t
        return cmd, seconds, data, files

    cmp_rows = cmp_notes = b_info = None
    if not args.skip_independent:
        cmd, seconds, b_data, files = independent("static", "(b) independent, static")
        live = live or next(iter(b_data["live"]))
        cmp_rows, cmp_notes = compare(final, b_data, live, language, backend)
        recs = b_data["records"]
        b_info = dict(files, command=cmd, seconds=seconds, n=len(recs),
                      nib_errors=sum("error" in r["answers"]["nib"] for r in recs),
                      live_errors=sum("error" in r["answers"][live] for r in recs),
                      locate_errors=sum("error" in r["locate"] for r in recs),
                      locate_differ=sum(bool(r["locate"].get("locations_differ")) for r in recs))
    auto = c_info = None
    if not args.skip_auto:
        cmd, seconds, c_data, files = independent("auto", "(c) independent, auto")
        live = live or next(iter(c_data["live"]))
        auto = auto_summary(c_data, live)
        c_info = dict(files, command=cmd, seconds=seconds, n=len(c_data["records"]))
    timings["total"] = time.perf_counter() - t_all
    print_report(args, repo, a, cmp_rows, cmp_notes, b_info, c_info, auto, live, timings)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"repo": repo, "language": args.language, "build": args.build, "argv": sys.argv,
                       "self": a, "self_table": final, "compare": cmp_rows, "compare_notes": cmp_notes,
                       "independent_static": b_info, "independent_auto": c_info, "auto": auto,
                       "timings": timings}, f, indent=1, default=str)
        print(f"\neverything: {args.json} (agreement_bench output under {out_dir})")


if __name__ == "__main__":
    main()
