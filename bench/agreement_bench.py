#!/usr/bin/env python3
"""How often nib's static answers agree with live language servers', asked by one independent client.

Positions come from the repository's text, not from nib's index: a seeded generator picks files
of the language and identifiers in them (editor_bench.sample, the same draw as editor_bench.py),
leaving out the language's keywords and, by a simple heuristic, identifiers inside comments and
string literals:
  python      the tokenize module: only NAME tokens count (a whole f-string is one STRING token
              in Python < 3.12, so names inside f-string braces are skipped there); on a
              tokenize error, a scanner that masks `#` comments and quoted/triple-quoted strings;
  c, cpp      a scanner masking // and /* */ comments, "..." and '...' literals (backslash
              escapes; a literal ends at the line's end) and whole #include/#import lines;
  ts, js      the same, plus `...` template literals masked whole (also their ${...} parts);
              regular-expression literals are not recognised (an identifier in one may be drawn).
Keywords: Python's keyword.kwlist (soft keywords such as `match`, `type` are names and are kept),
the C/C++ reserved words and preprocessor directives, the TS/JS reserved and contextual words
(`string`, `number`, `type`, `readonly`, ...).

For each sampled file every server (nib, `nib serve --provider P`, and each live server) gets
`didOpen` first. Then a warm-up: every server is asked for the definition at the file's first
position, again after 1 s as long as it errs or does not answer within --timeout, until it
answers or --ready-timeout passes; warm-up answers are not counted (tsserver and pyright load
the project on their first request). After the first file's warm-up, the client also waits
until every `$/progress` a live server began has ended (clangd's background index; at least
--settle seconds, at most --ready-timeout). Then, per position and per request kind
(definition, then references with includeDeclaration = true), all servers are asked one after
the other, the order rotating per request; right after nib's own answer, nib is asked
`nib/locate` for the same position and kind, whose `confidence` (and `provider`, `facts`,
`note`) label the answer. Every request counts; an error or a time-out on either side is a
disagreement and is reported.

Answers (Location, LocationLink or arrays of either; a LocationLink's targetSelectionRange) are
normalised to a set of (repository-relative path, start line, start character); a location
under node_modules/ or .git/, or not a file: URI is dropped (library and stub files), on both
sides, and the dropped ones are counted; so is a reference outside the repository, while a
definition there (a system header's declaration, a standard library's module) is kept by its
absolute real path: an answer that lacks it is not the live server's. Definitions and references
agree when the sets are equal. "Non-empty live" means the live server's set after dropping is
non-empty; "both empty" positions count as agreement and are shown apart. Reference precision
and recall are nib's against the live server's, pooled over positions where both answered:
|nib ∩ live| / |nib| and |nib ∩ live| / |live|. Each request also records the error
diagnostics each live server published for the file (`live_parse_errors`), and a row per
request kind gives the agreement on the files the live server parsed without an error: a
header that is not self-contained opened alone, or a file whose guessed command lacks include
paths, gives the live server a broken parse whose answers are not the reference they seem.

Usage: bench/agreement_bench.py --repo DIR --language python|typescript|javascript|c|cpp
                                [--files N] [--per-file K] [--seed S] [--build DIR]
                                [--live NAME=CMD ...] [--provider static] [--json FILE] [--index]
                                [--fresh-live [--fresh-index]]
"""
import argparse
import collections
import io
import json
import keyword
import math
import os
import platform
import queue
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import tokenize
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import editor_bench  # noqa: E402

BACKENDS = os.path.join(HERE, "..", "third_party", "backends", "node_modules", ".bin")

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert
_Thread_local include define undef ifdef ifndef elif endif pragma error warning line defined""".split())
CPP_KEYWORDS = C_KEYWORDS | set("""alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t
char32_t class compl concept consteval constexpr constinit const_cast co_await co_return co_yield decltype
delete dynamic_cast explicit export false friend mutable namespace new noexcept not not_eq nullptr operator
or or_eq private protected public reinterpret_cast requires static_assert static_cast template this
thread_local throw true try typeid typename using virtual wchar_t xor xor_eq override final""".split())
TS_KEYWORDS = set("""break case catch class const continue debugger default delete do else enum export extends
false finally for function if import in instanceof new null return super switch this throw true try typeof var
void while with as implements interface let package private protected public static yield any boolean
constructor declare get set module number string symbol type from of async await readonly keyof unique infer
is never unknown undefined abstract namespace satisfies override accessor object bigint asserts
global""".split())
PY_KEYWORDS = set(keyword.kwlist)

# language: (file pattern, languageId by extension, keywords, scanner flavour)
LANGUAGES = {
    "python": (editor_bench.LANGUAGES["python"][0], {}, "python", PY_KEYWORDS, "python"),
    "typescript": (editor_bench.LANGUAGES["typescript"][0], {".tsx": "typescriptreact"}, "typescript",
                   TS_KEYWORDS, "js"),
    "javascript": (re.compile(r"\.(js|jsx|mjs|cjs)$"), {".jsx": "javascriptreact"}, "javascript", TS_KEYWORDS,
                   "js"),
    "c": (editor_bench.LANGUAGES["c"][0], {}, "c", C_KEYWORDS, "c"),
    "cpp": (editor_bench.LANGUAGES["cpp"][0], {".c": "c"}, "cpp", CPP_KEYWORDS, "c"),
}
KINDS = ["definition", "references"]


def default_live(language, repo):
    if language == "python":
        return [("pylsp", ["/usr/bin/pylsp"]),
                ("pyright", [os.path.join(BACKENDS, "pyright-langserver"), "--stdio"])]
    if language in ("typescript", "javascript"):
        return [("tsserver", [os.path.join(BACKENDS, "typescript-language-server"), "--stdio"])]
    # clangd looks for compile_commands.json in every folder above the file: point it at the
    # repository's own folder, as editor_bench.py does.
    return [("clangd", ["clangd", "--limit-references=0", "--limit-results=0", "--background-index", "--log=error",
                        "--compile-commands-dir=" + repo])]


# ---- sampling: keywords, comments and strings -------------------------------------------------

def literal_end(data, i, close, multiline):
    """Where the literal opened at i by `close` ends: after its closing quote(s), skipping
    backslash escapes; at the line's end when it may not span lines; at the data's end."""
    n = len(data)
    j = i + len(close)
    while j < n and data[j:j + len(close)] != close:
        if data[j:j + 1] == b"\\":
            j += 1
        elif data[j:j + 1] == b"\n" and not multiline:
            break
        j += 1
    return min(n, j + len(close))


def c_like_code_mask(data, flavour):
    """A bytearray, 1 where a byte is code, 0 inside a comment, a string literal or an include line."""
    n = len(data)
    mask = bytearray(b"\x01") * n
    quotes = b"\"'`" if flavour == "js" else b"\"'"
    i = 0
    while i < n:
        c = data[i:i + 1]
        if c == b"/" and data[i + 1:i + 2] == b"/":
            j = data.find(b"\n", i)
            j = n if j < 0 else j
        elif c == b"/" and data[i + 1:i + 2] == b"*":
            j = data.find(b"*/", i + 2)
            j = n if j < 0 else j + 2
        elif c and c in quotes:
            j = literal_end(data, i, c, multiline=c == b"`")
        elif flavour == "c" and c == b"#" and not data[data.rfind(b"\n", 0, i) + 1:i].strip() and \
                re.match(rb"#\s*(include|import|include_next)\b", data[i:i + 40]):
            j = data.find(b"\n", i)
            j = n if j < 0 else j
        else:
            i += 1
            continue
        mask[i:j] = bytes(j - i)
        i = j
    return mask


def python_fallback_mask(data):
    n = len(data)
    mask = bytearray(b"\x01") * n
    i = 0
    while i < n:
        c = data[i:i + 1]
        if c == b"#":
            j = data.find(b"\n", i)
            j = n if j < 0 else j
        elif c in (b"'", b'"'):
            triple = data[i:i + 3] == c * 3
            j = literal_end(data, i, c * 3 if triple else c, multiline=triple)
        else:
            i += 1
            continue
        mask[i:j] = bytes(j - i)
        i = j
    return mask


def python_name_starts(data):
    """Byte offsets where the tokenize module sees a NAME token; None when it cannot tokenize."""
    starts = [0] + [m.end() for m in re.finditer(rb"\n", data)]
    out = set()
    try:
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            if tok.type == tokenize.NAME:
                row, col = tok.start
                line_start = starts[row - 1]
                prefix = data[line_start:line_start + 4 * col + 4].decode("utf-8", "replace")[:col]
                out.add(line_start + len(prefix.encode("utf-8")))
    except (tokenize.TokenError, SyntaxError, IndexError):
        return None
    return out


class Candidates:
    """editor_bench.sample's `keep`: an identifier that is no keyword and lies in code."""

    def __init__(self, language):
        self.keywords = LANGUAGES[language][3]
        self.flavour = LANGUAGES[language][4]
        self.data = None
        self.is_code = None
        self.skipped = collections.Counter()

    def __call__(self, data, m):
        if data is not self.data:
            self.data = data
            if self.flavour == "python":
                names = python_name_starts(data)
                if names is not None:
                    self.is_code = names.__contains__
                else:
                    mask = python_fallback_mask(data)
                    self.is_code = lambda offset: bool(mask[offset])
            else:
                mask = c_like_code_mask(data, self.flavour)
                self.is_code = lambda offset: bool(mask[offset])
        if m.group().decode("ascii", "replace") in self.keywords:
            self.skipped["keyword"] += 1
            return False
        if not self.is_code(m.start()):
            self.skipped["comment/string"] += 1
            return False
        return True


# ---- the client ----------------------------------------------------------------------------------

class TimedServer(editor_bench.Server):
    """editor_bench's Server, with a reader thread so that a request can time out, answers to
    the server's own requests (workspace/configuration gets a null per item), and $/progress kept."""

    def __init__(self, name, cmd, repo, timeout):
        super().__init__(name, cmd, repo)
        self.cmd = cmd
        self.timeout = timeout
        self.inbox = queue.Queue()
        self.lock = threading.Lock()
        self.progress = set()  # tokens begun and not yet ended
        self.progress_seen = 0
        self.errors_in = {}  # uri -> errors in the server's last diagnostics of it (severity 1)
        self.dead = False
        threading.Thread(target=self._pump, daemon=True).start()

    def _send(self, msg):
        with self.lock:
            self.client.send(msg)

    def _pump(self):
        while True:
            try:
                msg = self.client.read()
            except BaseException:  # the server closed its output (Client.read raises SystemExit)
                self.dead = True
                self.inbox.put(None)
                return
            if "method" in msg:
                if "id" in msg:
                    result = None
                    if msg["method"] == "workspace/configuration":
                        result = [None] * len((msg.get("params") or {}).get("items") or [])
                    try:
                        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                    except OSError:
                        pass
                elif msg["method"] == "textDocument/publishDiagnostics":
                    params = msg.get("params") or {}
                    self.errors_in[params.get("uri")] = sum(
                        1 for d in params.get("diagnostics") or [] if d.get("severity") == 1)
                elif msg["method"] == "$/progress":
                    params = msg.get("params") or {}
                    kind = (params.get("value") or {}).get("kind")
                    token = json.dumps(params.get("token"))
                    if kind == "begin":
                        self.progress.add(token)
                        self.progress_seen += 1
                    elif kind == "end":
                        self.progress.discard(token)
                continue
            self.inbox.put(msg)

    def request(self, method, params, timeout=None):
        """(ms, response); a time-out or a dead server answers {"error": {...}} of our own."""
        timeout = self.timeout if timeout is None else timeout
        if self.dead:
            return 0.0, {"error": {"code": "exited", "message": "the server exited"}}
        self.client.next_id += 1
        rid = self.client.next_id
        t = time.perf_counter()
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        except OSError:
            self.dead = True
            return 0.0, {"error": {"code": "exited", "message": "the server exited"}}
        deadline = t + timeout
        while True:
            left = deadline - time.perf_counter()
            try:
                msg = self.inbox.get(timeout=max(left, 0)) if left > 0 else self.inbox.get_nowait()
            except queue.Empty:
                self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}})
                return timeout * 1000, {"error": {"code": "timeout", "message": f"no answer in {timeout:g} s"}}
            if msg is None:
                return (time.perf_counter() - t) * 1000, {"error": {"code": "exited", "message": "the server exited"}}
            if msg.get("id") == rid:
                return (time.perf_counter() - t) * 1000, msg

    def notify(self, method, params):
        if not self.dead:
            try:
                self._send({"jsonrpc": "2.0", "method": method, "params": params})
            except OSError:
                self.dead = True


# ---- normalising answers ------------------------------------------------------------------------

def normalize(result, repo_real, outside=False):
    """(set of (path, line, character) in the repository, number of locations dropped).

    With `outside` (definitions), a location outside the repository is kept by its absolute real
    path (a system header's declaration) rather than dropped; node_modules/ and .git/ still are."""
    items = [] if result is None else result if isinstance(result, list) else [result]
    out, dropped = set(), 0
    for item in items:
        if not isinstance(item, dict):
            dropped += 1
            continue
        uri = item.get("targetUri") or item.get("uri") or ""
        rng = item.get("targetSelectionRange") or item.get("range") or item.get("targetRange") or {}
        parsed = urllib.parse.urlparse(uri)
        if parsed.scheme != "file" or "start" not in rng:
            dropped += 1
            continue
        real = os.path.realpath(urllib.parse.unquote(parsed.path))
        rel = os.path.relpath(real, repo_real)
        beyond = rel.startswith("..") or os.path.isabs(rel)
        # Inside the repository only its own folders count (a checkout under a folder named
        # node_modules keeps its files).
        parts = (real if beyond else rel).split(os.sep)
        if (beyond and not outside) or {"node_modules", ".git", ".nib"} & set(parts):
            dropped += 1
            continue
        out.add((real if beyond else rel, rng["start"]["line"], rng["start"]["character"]))
    return out, dropped


def answer_record(ms, response, repo_real, outside=False):
    rec = {"ms": round(ms, 3)}
    if "error" in response:
        rec["error"] = response["error"]
        return rec
    locations, dropped = normalize(response.get("result"), repo_real, outside)
    rec.update(result=response.get("result"), locations=sorted(locations), dropped=dropped)
    return rec


# ---- statistics ---------------------------------------------------------------------------------

def wilson(k, n, z=1.96):
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def pct(k, n):
    return f"{100 * k / n:.1f} %" if n else "–"


def agree_cell(k, n):
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {pct(k, n)} [{100 * lo:.1f}–{100 * hi:.1f}]" if n else "–"


def ok(rec):
    return "error" not in rec


def same(a, b):
    return ok(a) and ok(b) and a["locations"] == b["locations"]


def summarize(records, kind, live):
    rows = [r for r in records if r["kind"] == kind]
    s = collections.Counter()
    labels = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        nib, other = r["answers"]["nib"], r["answers"][live]
        agree = same(nib, other)
        s["n"] += 1
        s["agree"] += agree
        s["nib_errors"] += not ok(nib)
        s["live_errors"] += not ok(other)
        s["live_timeouts"] += not ok(other) and other["error"].get("code") == "timeout"
        s["nib_dropped"] += nib.get("dropped", 0)
        s["live_dropped"] += other.get("dropped", 0)
        if ok(nib) and ok(other):
            n_set, l_set = set(map(tuple, nib["locations"])), set(map(tuple, other["locations"]))
            s["both_empty"] += not n_set and not l_set
            s["common"] += len(n_set & l_set)
            s["nib_total"] += len(n_set)
            s["live_total"] += len(l_set)
        if ok(other) and other["locations"]:
            s["nonempty"] += 1
            s["nonempty_agree"] += agree
        label = r["locate"].get("confidence") or ("error" if "error" in r["locate"] else "none")
        labels[label][0] += agree
        labels[label][1] += 1
        s["exact_differs"] += label == "exact" and not agree
    return s, labels


def print_tables(records, lives, args, repo):
    print(f"\n### {args.language}: nib (`--provider {args.provider}`) against live servers\n")
    print("| request | live server | n | agreement [95 % Wilson] | agreement, non-empty live | both empty "
          "| ref precision / recall | errors nib / live (time-outs) | by nib/locate confidence (agree/n) |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for kind in KINDS:
        for live in lives:
            s, labels = summarize(records, kind, live)
            pr = "–"
            if kind == "references":
                p = f"{100 * s['common'] / s['nib_total']:.1f} %" if s["nib_total"] else "–"
                rc = f"{100 * s['common'] / s['live_total']:.1f} %" if s["live_total"] else "–"
                pr = f"{p} / {rc}"
            by_label = ", ".join(f"{k} {a}/{n}" for k, (a, n) in sorted(labels.items()))
            print(f"| {kind} | {live} | {s['n']} | {agree_cell(s['agree'], s['n'])} | "
                  f"{agree_cell(s['nonempty_agree'], s['nonempty'])} | {s['both_empty']} | {pr} | "
                  f"{s['nib_errors']} / {s['live_errors']} ({s['live_timeouts']}) | {by_label} |")
            notes.append(f"{kind} vs {live}: labelled exact but differs: {s['exact_differs']}; locations dropped "
                         f"(outside the repository): nib {s['nib_dropped']}, {live} {s['live_dropped']}")
        if len(lives) >= 2:
            rows = [r for r in records if r["kind"] == kind]
            either = sum(any(same(r["answers"]["nib"], r["answers"][lv]) for lv in lives) for r in rows)
            print(f"| {kind} | nib equals either server | {len(rows)} | {agree_cell(either, len(rows))} "
                  f"| | | | | |")
            for i, a in enumerate(lives):
                for b in lives[i + 1:]:
                    k = sum(same(r["answers"][a], r["answers"][b]) for r in rows)
                    nonempty = [r for r in rows if ok(r["answers"][b]) and r["answers"][b]["locations"]]
                    kn = sum(same(r["answers"][a], r["answers"][b]) for r in nonempty)
                    both_empty = sum(ok(r["answers"][a]) and ok(r["answers"][b]) and not r["answers"][a]["locations"]
                                     and not r["answers"][b]["locations"] for r in rows)
                    print(f"| {kind} | {a} vs {b} (servers agree) | {len(rows)} | {agree_cell(k, len(rows))} "
                          f"| {agree_cell(kn, len(nonempty))} ({b} non-empty) | {both_empty} | | | |")
    # The same agreement on the files each live server parsed without an error diagnostic: where
    # it reported errors (a header that is not self-contained opened alone, a guessed command
    # missing include paths), its answers come from a broken parse.
    for kind in KINDS:
        for live in lives:
            rows = [r for r in records if r["kind"] == kind]
            clean = [r for r in rows if (r.get("live_parse_errors") or {}).get(live) == 0]
            k = sum(r["agree"][live] for r in clean)
            print(f"| {kind} | {live}, files it parsed without errors | {len(clean)} | {agree_cell(k, len(clean))} "
                  f"| | | | | {len(rows) - len(clean)} requests in files with {live} errors (or none published) |")
    print()
    for line in notes:
        print(f"- {line}")
    differs = sum(1 for r in records if r["locate"].get("locations_differ"))
    print(f"- nib/locate's locations differ from nib's textDocument answer at {differs} of {len(records)} requests")


# ---- the run ------------------------------------------------------------------------------------

def wait_ready(servers, uri, position, ready_timeout):
    """Warm-up: ask each server the definition at position until it answers (not counted)."""
    params = {"textDocument": {"uri": uri}, "position": {"line": position[0], "character": position[1]}}
    for s in servers:
        start = time.perf_counter()
        while True:
            ms, r = s.request("textDocument/definition", params)
            if "error" not in r or s.dead or time.perf_counter() - start > ready_timeout:
                break
            time.sleep(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="a git repository")
    ap.add_argument("--language", required=True, choices=sorted(LANGUAGES))
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--per-file", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--live", action="append", metavar="NAME=CMD",
                    help="a live server (repeatable; replaces the language's defaults)")
    ap.add_argument("--provider", default="static", help="nib serve --provider (default static)")
    ap.add_argument("--json", help="write every request with every answer here")
    ap.add_argument("--index", action="store_true", help="run `nib index` first (else the repository is indexed)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per request (default 60)")
    ap.add_argument("--ready-timeout", type=float, default=300,
                    help="seconds a live server may take to get ready (default 300)")
    ap.add_argument("--fresh-live", action="store_true",
                    help="start each live server afresh for every sampled file (clangd's background index loads "
                         "from its cache): what it parsed for earlier files — clangd keeps the references of every "
                         "file it opened, and a header opened alone replaces its index's view of that header — then "
                         "does not change its answers for later ones")
    ap.add_argument("--fresh-index", action="store_true",
                    help="with --fresh-live, also delete clangd's on-disk index (REPO/.cache/clangd) before each start: "
                         "its background index keeps each header's view from the unit its shuffled queue indexed first, "
                         "so with the cache kept one draw decides every sampled file's answers in a run")
    ap.add_argument("--settle", type=float, default=3, help="seconds to wait for $/progress to begin (default 3)")
    args = ap.parse_args()

    repo = os.path.abspath(args.repo)
    repo_real = os.path.realpath(repo)
    nib = os.path.join(os.path.abspath(args.build), "cli", "nib")
    pattern, ids_by_ext, language_id = LANGUAGES[args.language][:3]
    if args.live:
        lives = []
        for spec in args.live:
            name, _, cmd = spec.partition("=")
            if not name or not cmd:
                sys.exit(f"bench: --live wants NAME=CMD, not {spec!r}")
            lives.append((name, shlex.split(cmd)))
    else:
        lives = default_live(args.language, repo)
    for name, cmd in lives:
        if not shutil.which(cmd[0]):
            sys.exit(f"bench: {cmd[0]} ({name}) is not found")
    if len({name for name, _ in lives} | {"nib"}) != len(lives) + 1:
        sys.exit("bench: live server names must differ from each other and from 'nib'")
    if args.index:
        subprocess.run([nib, "index", "-q", "--wait"], cwd=repo, check=True)  # complete views (made-up units too), no dense view

    keep = Candidates(args.language)
    chosen = editor_bench.sample(repo, pattern, args.files, args.per_file, random.Random(args.seed), keep=keep)
    if not chosen:
        sys.exit("bench: no source file of that language with enough identifiers")

    if args.fresh_index and not args.fresh_live:
        sys.exit("agreement_bench: --fresh-index needs --fresh-live")

    def forget_live_index():
        if args.fresh_index:
            shutil.rmtree(os.path.join(repo, ".cache", "clangd"), ignore_errors=True)

    forget_live_index()
    servers = [TimedServer("nib", [nib, "serve", "--provider", args.provider], repo, args.timeout)]
    servers += [TimedServer(name, cmd, repo, args.timeout) for name, cmd in lives]
    init = {"processId": os.getpid(), "rootUri": "file://" + repo, "rootPath": repo,
            "workspaceFolders": [{"uri": "file://" + repo, "name": os.path.basename(repo)}],
            "capabilities": {"textDocument": {"definition": {"linkSupport": False}, "references": {},
                                              "synchronization": {"didSave": False}},
                             "window": {"workDoneProgress": True},
                             "workspace": {"configuration": True, "workspaceFolders": True}}}
    def initialize(s):
        ms, r = s.request("initialize", init, timeout=args.ready_timeout)
        if "error" in r:
            sys.exit(f"bench: {s.name} did not initialize: {r['error']}")
        s.notify("initialized", {})

    for s in servers:
        initialize(s)

    records = []
    turn = 0
    started = time.perf_counter()
    for file_no, (path, text, positions) in enumerate(chosen):
        uri = "file://" + os.path.join(repo, path)
        lang_id = ids_by_ext.get(os.path.splitext(path)[1], language_id)
        if args.fresh_live and file_no > 0:
            for i, (name, cmd) in enumerate(lives, start=1):
                servers[i].close()
            forget_live_index()
            for i, (name, cmd) in enumerate(lives, start=1):
                servers[i] = TimedServer(name, cmd, repo, args.timeout)
                initialize(servers[i])
        for s in servers:
            s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": lang_id, "version": 1,
                                                                 "text": text}})
        wait_ready(servers, uri, positions[0], args.ready_timeout)
        if file_no == 0 or args.fresh_live:  # background work the servers announced (clangd's index, tsserver's project)
            time.sleep(args.settle)
            deadline = time.perf_counter() + args.ready_timeout
            while any(s.progress for s in servers[1:]) and time.perf_counter() < deadline:
                time.sleep(0.5)
        lines = text.split("\n")
        for line, col in positions:
            word = re.match(r"[A-Za-z0-9_]*", lines[line][col:]).group()
            for kind in KINDS:
                params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}
                if kind == "references":
                    params["context"] = {"includeDeclaration": True}
                rec = {"path": path, "line": line, "character": col, "word": word, "kind": kind, "answers": {}}
                order = servers[turn % len(servers):] + servers[:turn % len(servers)]
                turn += 1
                for s in order:
                    ms, r = s.request("textDocument/" + kind, params)
                    rec["answers"][s.name] = answer_record(ms, r, repo_real, kind != "references")
                    if "error" in r:
                        s.errors += 1
                    if s.name == "nib":
                        lp = {"textDocument": {"uri": uri}, "position": params["position"], "request": kind,
                              "includeDeclaration": True}
                        ms, r = s.request("nib/locate", lp)
                        if "error" in r:
                            rec["locate"] = {"error": r["error"]}
                        elif r.get("result") is None:
                            rec["locate"] = {"confidence": "null result"}
                        else:
                            res = r.get("result") or {}
                            rec["locate"] = {k: res.get(k) for k in ("confidence", "provider", "facts", "policy",
                                                                   "backend", "note", "fresh", "partial",
                                                                   "category", "reason")}
                            locs, _ = normalize(res.get("locations"), repo_real, kind != "references")
                            rec["locate"]["locations"] = sorted(locs)
                            mine = rec["answers"]["nib"]
                            rec["locate"]["locations_differ"] = ok(mine) and sorted(locs) != mine["locations"]
                rec["agree"] = {name: same(rec["answers"]["nib"], rec["answers"][name]) for name, _ in lives}
                # Whether each live server could parse the file: its own error diagnostics (None: it
                # published none), so that answers from a broken parse can be told apart.
                rec["live_parse_errors"] = {s.name: s.errors_in.get(uri) for s in servers if s.name != "nib"}
                records.append(rec)
        for s in servers:
            s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    elapsed = time.perf_counter() - started
    for s in servers:
        s.close()

    lives_names = [name for name, _ in lives]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"repository: {repo}; {len(chosen)} {args.language} files opened, {args.per_file} positions each, "
          f"seed {args.seed}; {len(records)} requests per server ({elapsed:.1f} s)")
    print(f"nib: {nib} serve --provider {args.provider}")
    if args.fresh_live:
        print("live servers started afresh for every sampled file (--fresh-live)" +
              (", clangd's on-disk index deleted before each (--fresh-index)" if args.fresh_index else ""))
    for name, cmd in lives:
        print(f"live {name}: {' '.join(cmd)}")
    print(f"sampling skipped {keep.skipped['keyword']} keyword and {keep.skipped['comment/string']} "
          "comment/string identifiers in the files it read")
    print_tables(records, lives_names, args, repo)
    for s in servers:
        errors = collections.Counter()
        for r in records:
            a = r["answers"][s.name]
            if "error" in a:
                errors[f"{a['error'].get('code')}: {str(a['error'].get('message'))[:100]}"] += 1
        if s.name == "nib":
            for r in records:
                if "error" in r["locate"]:
                    errors[f"nib/locate {r['locate']['error'].get('code')}: "
                           f"{str(r['locate']['error'].get('message'))[:100]}"] += 1
        for msg, count in errors.most_common(5):
            print(f"- {s.name} error ×{count}: {msg}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"repo": repo, "language": args.language, "seed": args.seed, "files": args.files,
                       "per_file": args.per_file, "provider": args.provider,
                       "live": {name: cmd for name, cmd in lives}, "records": records}, f, indent=1)
        print(f"\nevery request with its answers: {args.json}")


if __name__ == "__main__":
    # No agreement sampler in the servers this bench starts: under `--provider auto` its counts
    # would move the policy in the middle of the run (calibration_bench.py measures it apart).
    os.environ.setdefault("NIB_CALIBRATION_SAMPLES_PER_HOUR", "0")
    main()
