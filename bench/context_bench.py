#!/usr/bin/env python3
"""Context benchmark: does one `nib context` call find a function as well as an agent's grep-and-read loop,
and at what token cost?

For each code base (Debian source packages fetched by fetch-corpus.sh into bench/corpus/<name>):
  1. Tasks: C functions (in tracked .c files) whose definition is directly preceded by a doc comment
     (one /* ... */ block, or consecutive // lines, ending on the line just before the signature's first
     line) of at least 6 words that does not mention the function's own name, is not a note to maintainers
     (starting XXX, TODO, FIXME or HACK) and holds no code (all of '{', '}' and ';'). Candidates are sorted
     by (path, line) and N are taken evenly spaced (every len/N-th).
  2. A stripped copy in /tmp/nib-context-bench/<name> (worktree without .git and .nib, `git init`, one
     commit) in which every sampled task's doc comment lines are deleted (the rest byte-identical), so that
     neither side can match the comment itself; then `nib index -q` in the copy.
  3. Per task, the query is the comment text (whitespace collapsed):
     * nib: `nib context --intent QUERY --budget B --json` for each budget B; found@B when a returned unit
       has the target's path and its line range contains the target function's name line. The same
       requests are then sent as nib/context to one running `nib serve` (warm) and timed there; their
       answers must hold as many units as the process's.
     * grep-and-read (an agent's loop): the query's words (lowercased, [a-z0-9_], length >= 4, no English
       stopwords) ranked by document frequency over the copy (`rg -l -i -F -w`, one call per word); the
       4 rarest that occur at all are searched together (`rg --count-matches -i -F -w -e ...`), files are
       ranked by distinct words held, then occurrences, then path, and read in that order. Tokens: the
       listing rg printed plus each file read up to and including the target's (or the first 10 files when
       the target is not among them), at ceil(UTF-8 bytes / 4) -- the estimator nib uses.
  4. Prints, per code base and overall: found rates (nib at each budget, grep within 10 files), median
     tokens on the tasks both sides found and their ratio, nib context latency p50/p95 (as a process and
     through the server), the target file's
     rank in the grep listing (the rounds of reading an agent needs), and the machine.
Usage: bench/context_bench.py [--corpus NAME ...] [--tasks N] [--budgets 2000,4000,8000] [--nib PATH]
                              [--no-nib] [--show-tasks N] [--json]
"""
import argparse
import bisect
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = "/tmp/nib-context-bench"
RG = ["rg", "--hidden", "--max-filesize", "1M", "--no-messages", "--color", "never", "-g", "!.git", "-g", "!.nib"]
MAX_READS = 10
# C code bases of different shapes: small (jq), many small files (tmux, libuv), very large files
# (redis's module.c, curl), generated and legacy code (zstd).
DEFAULT_CORPORA = ["jq", "tmux", "libuv1", "redis", "curl", "zstd"]
KEYWORDS = 4
STOPWORDS = set("""
about above after again against also although among another anything because been before being below
between both cannot could does doing done down during each either else even every from further given have
having here however into itself just like many might more most much must neither never only other ours
over same should since some such than that their theirs them themselves then there these they this those
though through thus under unless until upon very what when where whether which while whom whose will with
within without would your yours
""".split())
# A note to maintainers ("XXX Split this into ...", "TODO: ...") says what to change, not what the
# function does; a comment holding code (a lexer's rules) is not a description either.
NOTE = re.compile(r"(?:XXX|TODO|FIXME|HACK)\b")
C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "do", "else", "case"}

# A comment, or a string / character literal (whose contents are blanked so that braces, quotes and
# comment markers inside them do not count).
LEXEME = re.compile(r"/\*.*?(?:\*/|\Z)|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?", re.S)
# What may stand before a function's name: return type words and '*' (attribute-like macro calls such
# as `printflike(3, 4)` are removed first).
RETURN_TYPE = re.compile(r"(?:[A-Za-z_]\w*[\s*]+)+")
ATTRIBUTE = re.compile(r"[A-Za-z_]\w*\s*\((?:[^()]|\([^()]*\))*\)")


def parse_signature(sig):
    """(name, offset of the name) of a C function signature (the text before its '{'), or None.
    The name is the identifier before the parameter list, the last balanced (...) group."""
    sig = sig.rstrip()
    if not sig.endswith(")"):
        return None
    depth, k = 0, len(sig) - 1
    while k >= 0:
        depth += {")": 1, "(": -1}.get(sig[k], 0)
        if depth == 0:
            break
        k -= 1
    m = re.search(r"([A-Za-z_]\w*)\s*$", sig[:max(k, 0)])
    if k < 0 or not m:
        return None
    pre = ATTRIBUTE.sub(" ", sig[:m.start()])
    if not RETURN_TYPE.fullmatch(pre.lstrip()) or "typedef" in pre.split() or "=" in sig:
        return None
    return m.group(1), m.start(1)


def tokens_of(nbytes):
    return (nbytes + 3) // 4


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def median(values):
    return statistics.median(values) if values else None


# ---------------------------------------------------------------------------------------------- tasks

def comment_text(raw):
    """The words of a comment: markers (/*, */, leading *, //) stripped, whitespace collapsed."""
    out = []
    for line in raw.split("\n"):
        line = line.strip()
        line = re.sub(r"^/\*+!?<?", "", line)
        line = re.sub(r"\*+/$", "", line)
        line = re.sub(r"^//+!?<?", "", line)
        line = re.sub(r"^\*+(?!/)", "", line)
        out.append(line)
    return " ".join(" ".join(out).split())


def functions_and_comments(text):
    """Function definitions of a C file (latin-1 decoded, so offsets are bytes) with the doc comment
    right above each. Yields (sig_line, name_line, name, (first_comment_line, last_comment_line), text),
    lines 0-based; comment is None when there is none."""
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    line_of = lambda off: bisect.bisect_right(starts, off) - 1

    code = list(text)
    block_end = {}       # last line -> (first line, raw) of a block comment alone on its lines
    line_comment = {}    # line -> raw, for a // comment alone on its line
    for m in LEXEME.finditer(text):
        s, e = m.span()
        tok = m.group()
        if tok.startswith("/*") or tok.startswith("//"):
            lo, hi = s, e
        else:
            lo, hi = s + 1, max(s + 1, e - 1)
        for k in range(lo, hi):
            if code[k] != "\n":
                code[k] = " "
        if tok.startswith("/*") or tok.startswith("//"):
            l0, l1 = line_of(s), line_of(max(s, e - 1))
            before = text[starts[l0]:s]
            after = lines[l1][e - starts[l1]:] if tok.startswith("/*") else ""
            if before.strip() == "" and after.strip() == "":
                if tok.startswith("/*"):
                    block_end[l1] = (l0, tok)
                else:
                    line_comment[l0] = tok
    code_lines = "".join(code).split("\n")

    depth, skip_until = 0, -1
    for i, cl in enumerate(code_lines):
        continued = i > 0 and lines[i - 1].rstrip("\r").endswith("\\")
        if (depth == 0 and i > skip_until and not continued and re.match(r"[A-Za-z_]", cl)):
            buf, term, j = [], None, i
            while j < len(code_lines) and j < i + 16:
                ln = code_lines[j]
                if j > i and (ln.strip() == "" or ln.lstrip().startswith("#")):
                    break
                cut = [k for k in (ln.find("{"), ln.find(";")) if k >= 0]
                if cut:
                    k = min(cut)
                    buf.append(ln[:k])
                    term = ln[k]
                    break
                buf.append(ln)
                j += 1
            if term == "{":
                sig = "\n".join(buf)
                parsed = parse_signature(sig)
                if parsed and parsed[0] not in C_KEYWORDS:
                    fn, at = parsed
                    name_line = i + sig[:at].count("\n")
                    skip_until = j
                    comment = None
                    if i - 1 in block_end:
                        l0, raw = block_end[i - 1]
                        comment = (l0, i - 1, raw)
                    elif i - 1 in line_comment:
                        l0 = i - 1
                        while l0 - 1 in line_comment:
                            l0 -= 1
                        comment = (l0, i - 1, "\n".join(line_comment[k] for k in range(l0, i)))
                    yield i, name_line, fn, comment
        depth += cl.count("{") - cl.count("}")
        if cl.startswith("}") or depth < 0:
            depth = 0


def c_files(repo):
    """(path, latin-1 text) of the tracked .c files, in path order (links skipped)."""
    files = subprocess.run(["git", "ls-files", "-z", "--", "*.c"], cwd=repo, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for path in sorted(f for f in files if f):
        full = os.path.join(repo, path)
        if not os.path.isfile(full) or os.path.islink(full):
            continue
        with open(full, "rb") as f:
            yield path, f.read().decode("latin-1")


def find_tasks(repo, name):
    cands, nfuncs, stats = [], 0, {"commented": 0, "short": 0, "named": 0, "notes": 0}
    for path, text in c_files(repo):
        for sig_line, name_line, fn, comment in functions_and_comments(text):
            nfuncs += 1
            if comment is None:
                continue
            stats["commented"] += 1
            c0, c1, raw = comment
            words = comment_text(raw.encode("latin-1").decode("utf-8", "replace"))
            if len(words.split()) < 6:
                stats["short"] += 1
                continue
            if re.search(r"(?<![A-Za-z0-9_])" + re.escape(fn) + r"(?![A-Za-z0-9_])", words, re.I):
                stats["named"] += 1
                continue
            if NOTE.match(words) or all(c in words for c in "{};"):
                stats["notes"] += 1
                continue
            cands.append({"corpus": name, "path": path, "line": name_line + 1, "name": fn, "comment": words,
                          "commentLines": [c0, c1], "longestCommentLine": max(
                              (ln.strip() for ln in text.split("\n")[c0:c1 + 1]), key=len)})
    cands.sort(key=lambda t: (t["path"], t["line"]))
    return cands, nfuncs, stats


def sample(cands, n):
    if len(cands) <= n:
        return list(cands)
    return [cands[i * len(cands) // n] for i in range(n)]


# ------------------------------------------------------------------------------------- stripped copy

def build_copy(src, dest, tasks):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".git", ".nib"), symlinks=True)
    by_file = {}
    for t in tasks:
        by_file.setdefault(t["path"], []).append(t)
    for path, ts in by_file.items():
        full = os.path.join(dest, path)
        with open(full, "rb") as f:
            lines = f.read().split(b"\n")
        drop = set()
        for t in ts:
            drop.update(range(t["commentLines"][0], t["commentLines"][1] + 1))
        for t in ts:
            # The name line moves up by the number of deleted lines above it.
            t["strippedLine"] = t["line"] - 1 - sum(1 for k in drop if k < t["line"] - 1)
        with open(full, "wb") as f:
            f.write(b"\n".join(ln for k, ln in enumerate(lines) if k not in drop))
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm",
                    "stripped corpus"], cwd=dest, check=True)


def verify_copy(src, dest, tasks):
    """With grep -F: each sampled comment's longest line occurs in the copy as many times fewer as the
    deleted comments held it, and the function's name is still on its (moved) line."""
    problems = []
    removed = {}
    for t in tasks:
        with open(os.path.join(src, t["path"]), "rb") as f:
            lines = f.read().split(b"\n")
        for u in tasks:
            if u["path"] == t["path"]:
                c0, c1 = u["commentLines"]
                key = (t["path"], t["longestCommentLine"])
                removed.setdefault(key, set()).update(
                    k for k in range(c0, c1 + 1) if t["longestCommentLine"].encode("latin-1") in lines[k])
    for t in tasks:
        pat = t["longestCommentLine"].encode("latin-1")
        def count(root):
            p = subprocess.run([b"grep", b"-c", b"-F", b"-e", pat, b"--", os.path.join(root, t["path"]).encode()],
                               capture_output=True)
            return int(p.stdout.strip() or 0)
        before, after = count(src), count(dest)
        if after != before - len(removed[(t["path"], t["longestCommentLine"])]):
            problems.append(f"{t['path']}:{t['line']} {t['name']}: comment line still present "
                            f"({before} -> {after}): {t['longestCommentLine']!r}")
        p = subprocess.run(["grep", "-n", "-F", "-w", "-e", t["name"], "--", os.path.join(dest, t["path"])],
                           capture_output=True)
        hits = {int(ln.split(b":", 1)[0]) for ln in p.stdout.split(b"\n") if ln}
        if t["strippedLine"] + 1 not in hits:
            problems.append(f"{t['path']}:{t['line']} {t['name']}: not on line {t['strippedLine'] + 1} of the copy")
    return problems


# ---------------------------------------------------------------------------------------- grep side

def rg(repo, args):
    t = time.monotonic()
    p = subprocess.run(RG + args + ["."], cwd=repo, capture_output=True, stdin=subprocess.DEVNULL)
    return time.monotonic() - t, p.stdout


def rel(path):
    path = path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path
    return os.path.normpath(path[2:] if path.startswith("./") else path)


def grep_side(repo, task, size_cache):
    words = []
    for w in re.findall(r"[A-Za-z0-9_]+", task["comment"]):
        w = w.lower()
        if len(w) >= 4 and w not in STOPWORDS and w not in words:
            words.append(w)
    elapsed, holders = 0.0, {}
    for w in words:
        dt, out = rg(repo, ["-l", "-i", "-F", "-w", "-e", w])
        elapsed += dt
        holders[w] = {rel(ln) for ln in out.split(b"\n") if ln}
    # The rarest words that occur somewhere (a word found nowhere tells the agent nothing); ties in
    # the order the comment has them.
    chosen = sorted((w for w in words if holders[w]), key=lambda w: (len(holders[w]), words.index(w)))[:KEYWORDS]
    listing, counts = b"", {}
    if chosen:
        args = ["--count-matches", "-i", "-F", "-w"]
        for w in chosen:
            args += ["-e", w]
        dt, listing = rg(repo, args)
        elapsed += dt
        for ln in listing.split(b"\n"):
            if ln:
                path, n = ln.rsplit(b":", 1)
                counts[rel(path)] = int(n)
    ranked = sorted(counts, key=lambda p: (-sum(p in holders[w] for w in chosen), -counts[p], p))
    rank = ranked.index(task["path"]) + 1 if task["path"] in ranked else None
    tokens = tokens_of(len(listing))
    for p in ranked[:rank if rank is not None and rank <= MAX_READS else MAX_READS]:
        if p not in size_cache:
            size_cache[p] = os.path.getsize(os.path.join(repo, p))
        tokens += tokens_of(size_cache[p])
    return {"keywords": chosen, "candidates": words, "listed": len(ranked), "rank": rank,
            "found": rank is not None and rank <= MAX_READS, "tokens": tokens,
            "listingTokens": tokens_of(len(listing)), "ms": elapsed * 1000}


# ----------------------------------------------------------------------------------------- nib side

class NibContextError(Exception):
    pass


def nib_context(nib, repo, task, budget):
    t = time.monotonic()
    p = subprocess.run([nib, "context", "--intent=" + task["comment"], "--budget", str(budget), "--json"],
                       cwd=repo, capture_output=True, stdin=subprocess.DEVNULL)
    elapsed = time.monotonic() - t
    if p.returncode != 0:
        msg = " | ".join((p.stderr or p.stdout).decode("utf-8", "replace").strip().splitlines()[-6:])
        raise NibContextError(f"`nib context` exited {p.returncode} (does this nib have the `context` "
                              f"subcommand?): {msg or '(no output)'}")
    try:
        answer = json.loads(p.stdout)
        units = answer["units"]
        used = answer["tokensUsed"]
    except (ValueError, KeyError, TypeError) as e:
        raise NibContextError(f"`nib context --json` printed no answer of the expected shape ({e!r}): "
                              f"{p.stdout[:200]!r}")
    unit_rank = None
    for k, u in enumerate(units):
        try:
            same = os.path.normpath(u["path"]) == task["path"]
            lo, hi = u["range"]["start"]["line"], u["range"]["end"]["line"]
        except (KeyError, TypeError):
            continue
        if same and lo <= task["strippedLine"] <= hi:
            unit_rank = k + 1
            break
    return {"found": unit_rank is not None, "unitRank": unit_rank, "tokensUsed": used, "units": len(units),
            "ms": elapsed * 1000}


def server_side(nib, repo, tasks, budgets):
    """The same requests as nib/context through one running `nib serve` (warm: the index and the
    call graph are opened by the first request, which is not timed). Each answer must include the
    same units as the process's, or the bench stops: the two paths share one Engine."""
    sys.path.insert(0, HERE)
    from lsp_bench import Client  # noqa: E402
    client = Client([nib, "serve"], repo)
    try:
        client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.request("nib/context", {"intent": tasks[0]["comment"], "budgetTokens": budgets[0]})
        for task in tasks:
            for b in budgets:
                t = time.monotonic()
                r = client.request("nib/context", {"intent": task["comment"], "budgetTokens": b})
                ms = (time.monotonic() - t) * 1000
                units = (r.get("result") or {}).get("units")
                if units is None:
                    sys.exit(f"bench: nib/context through the server failed: {str(r)[:300]}")
                if len(units) != task["nib"][str(b)]["units"]:
                    sys.exit(f"bench: nib/context through the server returned {len(units)} units, the process "
                             f"{task['nib'][str(b)]['units']} ({task['path']}:{task['line']} at {b})")
                task["nib"][str(b)]["serverMs"] = ms
        client.request("shutdown", None)
        client.send({"jsonrpc": "2.0", "method": "exit"})
    finally:
        client.proc.stdin.close()
        client.proc.wait(timeout=30)


# -------------------------------------------------------------------------------------------- report

def summarize(tasks, budgets, with_nib):
    s = {"tasks": len(tasks)}
    n = len(tasks) or 1
    g = [t["grep"] for t in tasks]
    s["grepFound"] = sum(x["found"] for x in g) / n
    s["grepListed"] = sum(x["rank"] is not None for x in g) / n
    s["grepRankMedian"] = median([x["rank"] for x in g if x["rank"] is not None])
    s["grepRankMedianFound"] = median([x["rank"] for x in g if x["found"]])
    s["grepTokensMedianFound"] = median([x["tokens"] for x in g if x["found"]])
    s["grepMsMedian"] = median([x["ms"] for x in g])
    if with_nib:
        s["nib"] = {}
        for b in budgets:
            r = [t["nib"][str(b)] for t in tasks]
            both = [t for t in tasks if t["nib"][str(b)]["found"] and t["grep"]["found"]]
            nib_tok = median([t["nib"][str(b)]["tokensUsed"] for t in both])
            grep_tok = median([t["grep"]["tokens"] for t in both])
            ms = [x["ms"] for x in r]
            s["nib"][str(b)] = {
                "found": sum(x["found"] for x in r) / n,
                "tokensUsedMedian": median([x["tokensUsed"] for x in r]),
                "bothFound": len(both),
                "nibTokensMedianBoth": nib_tok,
                "grepTokensMedianBoth": grep_tok,
                "grepOverNib": grep_tok / nib_tok if both and nib_tok else None,
                "msP50": percentile(ms, 50) if ms else None,
                "msP95": percentile(ms, 95) if ms else None,
            }
        allms = [t["nib"][str(b)]["ms"] for t in tasks for b in budgets]
        s["nibMsP50"] = percentile(allms, 50) if allms else None
        s["nibMsP95"] = percentile(allms, 95) if allms else None
        server = [t["nib"][str(b)]["serverMs"] for t in tasks for b in budgets if "serverMs" in t["nib"][str(b)]]
        s["serverMsP50"] = percentile(server, 50) if server else None
        s["serverMsP95"] = percentile(server, 95) if server else None
    return s


def fmt(v, kind="n"):
    if v is None:
        return "-"
    if kind == "%":
        return f"{100 * v:.0f}%"
    if kind == "x":
        return f"{v:.1f}x"
    if kind == "ms":
        return f"{v:.0f}"
    if kind == "ms1":
        return f"{v:.1f}"
    return f"{v:g}" if isinstance(v, float) and v != int(v) else f"{int(v)}"


def print_report(names, summaries, budgets, with_nib):
    cols = names + ["all"]
    rows = [("tasks", "tasks", "n")]
    if with_nib:
        for b in budgets:
            rows.append((f"nib found @{b}", ("nib", str(b), "found"), "%"))
    rows += [("grep found within 10 files", "grepFound", "%"),
             ("grep target file listed at all", "grepListed", "%"),
             ("grep rounds: target rank, median", "grepRankMedian", "n"),
             ("grep rounds when found, median", "grepRankMedianFound", "n"),
             ("grep tokens to target, median", "grepTokensMedianFound", "n")]
    if with_nib:
        for b in budgets:
            rows += [(f"both found @{b}", ("nib", str(b), "bothFound"), "n"),
                     (f"  nib tokensUsed @{b}, median", ("nib", str(b), "nibTokensMedianBoth"), "n"),
                     (f"  grep tokens (same tasks), median", ("nib", str(b), "grepTokensMedianBoth"), "n"),
                     (f"  grep / nib tokens", ("nib", str(b), "grepOverNib"), "x")]
        for b in budgets:
            rows += [(f"nib context @{b} p50 / p95 ms", ("nib", str(b), ("msP50", "msP95")), "ms")]
        rows += [("nib context all p50 / p95 ms", ("nibMsP50", "nibMsP95"), "ms"),
                 ("nib/context (server) p50 / p95 ms", ("serverMsP50", "serverMsP95"), "ms1")]
    rows += [("grep (rg calls) ms, median", "grepMsMedian", "ms")]

    def get(s, key):
        if isinstance(key, tuple) and key[0] == "nib":
            s = s["nib"][key[1]]
            key = key[2]
        if isinstance(key, tuple):
            return [s.get(k) for k in key]
        return s.get(key)

    width = max(len(r[0]) for r in rows) + 2
    print(f"{'':<{width}}" + "".join(f"{c:>14}" for c in cols))
    for label, key, kind in rows:
        cells = []
        for c in cols:
            v = get(summaries[c], key)
            cells.append(" / ".join(fmt(x, kind) for x in v) if isinstance(v, list) else fmt(v, kind))
        print(f"{label:<{width}}" + "".join(f"{x:>14}" for x in cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", metavar="NAME",
                    help="a code base under bench/corpus (repeatable; default: " + ", ".join(DEFAULT_CORPORA) + ")")
    ap.add_argument("--tasks", type=int, default=40, help="tasks per code base (default 40)")
    ap.add_argument("--budgets", default="2000,4000,8000", help="token budgets for nib context")
    ap.add_argument("--nib", default=os.path.join(HERE, "..", "build", "cli", "nib"))
    ap.add_argument("--no-nib", action="store_true", help="measure the grep side only")
    ap.add_argument("--show-tasks", type=int, default=5, metavar="N", help="sample tasks printed per code base")
    ap.add_argument("--json", action="store_true", help="print everything as JSON instead of tables")
    args = ap.parse_args()
    names = args.corpus or DEFAULT_CORPORA
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    nib = os.path.abspath(args.nib)
    if not os.access(nib, os.X_OK):
        sys.exit(f"bench: no nib binary at {nib} (build it, or pass --nib)")
    if not shutil.which("rg"):
        sys.exit("bench: ripgrep (rg) is not installed")
    missing = [n for n in names if not os.path.isdir(os.path.join(HERE, "corpus", n, ".git"))]
    if missing:
        subprocess.run([os.path.join(HERE, "fetch-corpus.sh"), *missing], check=True)
    out = sys.stderr if args.json else sys.stdout
    say = lambda *a: print(*a, file=out, flush=True)
    machine = {"machine": platform.machine(), "cores": os.cpu_count(), "platform": platform.platform(),
               "python": platform.python_version()}
    say(f"machine: {machine['machine']}, {machine['cores']} cores, {machine['platform']}")
    say(f"nib:     {nib}")

    with_nib, nib_error = not args.no_nib, None
    results = {}
    for name in names:
        src = os.path.join(HERE, "corpus", name)
        cands, nfuncs, stats = find_tasks(src, name)
        tasks = sample(cands, args.tasks)
        dest = os.path.join(WORK, name)
        build_copy(src, dest, tasks)
        problems = verify_copy(src, dest, tasks)
        if problems:
            sys.exit("bench: stripped copy is wrong:\n  " + "\n  ".join(problems))
        t = time.monotonic()
        p = subprocess.run([nib, "index", "-q"], cwd=dest, capture_output=True, text=True)
        index_s = time.monotonic() - t
        if p.returncode != 0:
            sys.exit(f"bench: nib index failed in {dest} ({p.returncode}): {p.stderr.strip()[:500]}")
        say()
        say(f"{name}: {nfuncs} C function definitions, {stats['commented']} with a doc comment right above, "
            f"{len(cands)} usable ({stats['short']} under 6 words, {stats['named']} naming the function, "
            f"{stats['notes']} notes or code); "
            f"{len(tasks)} tasks\n  stripped copy {dest} (comments verified gone with grep -F), "
            f"indexed in {index_s:.1f} s")
        for task in (sample(tasks, args.show_tasks) if args.show_tasks else []):
            c = task["comment"]
            say(f"  {task['path']}:{task['line']} {task['name']}: \"{c if len(c) <= 110 else c[:107] + '...'}\"")

        sizes = {}
        for k, task in enumerate(tasks):
            task["grep"] = grep_side(dest, task, sizes)
            if with_nib:
                task["nib"] = {}
                for b in budgets:
                    try:
                        task["nib"][str(b)] = nib_context(nib, dest, task, b)
                    except NibContextError as e:
                        nib_error = str(e)
                        with_nib = False
                        say(f"\nbench: ERROR: nib context is not usable ({nib}): {nib_error}\n"
                            f"bench: reporting the grep side only.")
                        break
            if sys.stderr.isatty():
                print(f"\r  {name}: {k + 1}/{len(tasks)} tasks", end="", file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            print(file=sys.stderr)
        if with_nib:
            server_side(nib, dest, tasks, budgets)
        results[name] = {"source": src, "copy": dest, "functions": nfuncs, "candidates": len(cands), **stats,
                         "indexSeconds": index_s, "tasks": tasks}

    summaries = {n: summarize(results[n]["tasks"], budgets, with_nib) for n in names}
    summaries["all"] = summarize([t for n in names for t in results[n]["tasks"]], budgets, with_nib)
    if args.json:
        for r in results.values():
            for t in r["tasks"]:
                if not with_nib:
                    t.pop("nib", None)
        json.dump({"machine": machine, "nib": nib, "budgets": budgets, "maxReads": MAX_READS,
                   "keywords": KEYWORDS, "nibContextError": nib_error, "corpora": results,
                   "summary": summaries}, sys.stdout, indent=1)
        print()
    else:
        say()
        print_report(names, summaries, budgets, with_nib)
        say()
        say("found: nib -- a returned unit holds the function's name line; grep -- the target's file is among the "
            "first 10 read.\ntokens: ceil(bytes / 4); grep tokens = the rg listing + each file read up to the "
            "target's; medians\nof the tasks both sides found; grep / nib is the ratio of those medians.")
    if nib_error:
        sys.exit(2)


if __name__ == "__main__":
    from lsp_bench import without_sampler  # noqa: E402
    without_sampler()
    main()
