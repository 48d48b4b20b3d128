#!/usr/bin/env python3
"""Localization benchmark: given a commit message, which files did the commit change?

Issue 27's measurement. Real commit histories cannot be fetched on this machine kind (Debian's
source packages carry a release, not its git history), but GNU packages ship the history's
messages: their ChangeLog is generated from git (a summary line, a body, and GNU-style items
`* path (function, ...): description` naming every file and function the commit changed), or
written by hand in the same item style. That is the source of the tasks here:

  1. Commits: each ChangeLog entry (a `YYYY-MM-DD  Name  <email>` header and its tab-indented
     body) is split into commits — a paragraph that does not start with `*` after one that named
     files begins a new commit — and dated by its header.
  2. Targets: the item paths of a commit that exist in the snapshot and are source files (by
     extension); the functions named in parentheses give a function-level measure: the rank of
     the first unit among nib's top 10 that is such a function in a target file.
  3. Query: the commit's message as its author wrote it, without what names the targets — the
     item prefixes `* path (function):` and `(function):` are cut (their descriptions kept), as
     are words that are paths or file names and `Reported by`/`Fixes`/URL lines. Whitespace
     collapsed; queries of fewer than 4 words skipped.
  4. Temporal split: the newest --tasks commits with targets are the queries; every commit dated
     before the oldest query's date is the history a method may learn from, so no query's own
     commit is ever seen by what is learned. With --history, nib also indexes the snapshot behind
     a git history replayed from those older commits (history_copy says how) and mines it. The code snapshot is the released tree (it holds the queries'
     changes: every method sees the same snapshot, so the comparison stays fair, but absolute
     figures are higher than on the pre-change tree).
  5. The snapshot searched is a copy without ChangeLog* and NEWS* (they hold the queries' own
     messages). Methods, each ranking files: nib's lexical route and its default (auto) route (`nib search
     --json -k 200`, files in the order of their first unit) and a plain file-level BM25 over the
     same snapshot's text files (k1 1.2, b 0.75; identifiers split at case changes and
     underscores, words and parts both indexed, English stopwords dropped on both sides).
  6. Figures per code base: MRR (first target file's rank, over the top 10), recall@1 and
     recall@10 (a target file within the top k), the queries' count, the history's size. With
     --context, also how often `nib context --intent QUERY --budget 8000` holds a unit of a target
     file, against how often a target is among the first 10 files an agent reads after grepping
     the query's four rarest words (context_bench.py's grep-and-read loop). With --history, also
     the history's votes alone (history_votes: how far the replayed history reaches today's
     files). With --server, the
     same queries also go to one `nib serve` over stdio as `nib/search` (lexical and auto, k 200,
     one at a time, each timed from sending the request until its whole response has arrived):
     p50 and p95 per code base, and the MRR of the server's own answers.

Code bases: packages (Debian source packages, fetched by fetch-corpus.sh into a folder of their
own) whose ChangeLog holds recent commits in the GNU format. HELD_OUT (all C) was fixed before
any ranking change was made; HELD_OUT_OTHER (Java and Rust, C++, C++ and Python) was chosen on
2026-12-04 after the ranking of that day was fixed, and nothing was tuned on it. Few packages
in other languages ship such a history (most GNOME and Python ones ended theirs before their
items named files, or keep it elsewhere).

Usage: bench/localization_bench.py --corpus-dir DIR [--corpus NAME ...] [--tasks N] [--build DIR]
                                   [--json] [--show N] [--context] [--server]
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

HELD_OUT = ["coreutils", "grep", "tar", "wget", "bison", "findutils"]
HELD_OUT_OTHER = ["icedtea-web", "gobby", "pyqt5", "octave"]
TUNING = ["sed", "diffutils", "gawk", "m4", "parted", "libgcrypt20", "gpgme1.0"]
SOURCE_EXT = {".c", ".h", ".cc", ".cpp", ".hpp", ".y", ".l", ".py", ".js", ".ts", ".go", ".rs", ".java"}
HEADER = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+\S")
ITEM = re.compile(r"^\*\s+([^\s:(]+(?:,\s*[^\s:(]+)*)\s*(\(([^)]*)\))?\s*:?\s*(.*)$")
# What names a target outside the items: a leading `(function, ...):` on a continuation line, and
# any word that is a path or a file name with a source extension.
SYMBOL_PREFIX = re.compile(r"^\([^)]*\):?\s*")
PATHISH = re.compile(r"\S*/\S*|\S+\.(?:c|h|cc|cpp|hpp|y|l|py|js|ts|go|rs|java|sh|am|ac|in|texi|m4)\b:?")
NOISE = re.compile(r"^(reported by|problem reported by|fixes|see|bug|https?://|\(tiny change\)|copyright)", re.I)
STOP = set("""a an and are as at be been but by can could did do does for from had has have how if in into is it
its may might not of on or our should so such than that the their them then there these this those to too
was we were what when where which while who will with would you your also only now no yes via
""".split())


def tokens(text):
    """Lowercased words and identifier parts (camelCase and snake_case split), stopwords out."""
    out = []
    for word in re.findall(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*", text):
        parts = [p for p in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", word) if p]
        lowered = word.lower()
        if lowered not in STOP and len(lowered) > 1:
            out.append(lowered)
        if len(parts) > 1:
            out.extend(p.lower() for p in parts if p.lower() not in STOP and len(p) > 1)
    return out


def parse_changelog(text):
    """[(date, message lines, [(path, [functions])], raw lines)], newest first as the file lists
    them; the message lines leave out what names the targets, the raw lines are the commit's
    whole text (what its git commit message would say)."""
    commits = []
    date, body = None, []

    def flush():
        if date is None:
            return
        paragraphs, cur = [], []
        for line in body:
            if line.strip():
                cur.append(line.strip())
            elif cur:
                paragraphs.append(cur)
                cur = []
        if cur:
            paragraphs.append(cur)
        commit = None
        for para in paragraphs:
            starts_commit = commit is None or (not para[0].startswith("*") and commit[2])
            if starts_commit:
                commit = [date, [], [], []]
                commits.append(commit)
            if commit[3]:
                commit[3].append("")
            commit[3].extend(para)
            for line in para:
                m = ITEM.match(line)
                if m:
                    funcs = [f.strip() for f in (m.group(3) or "").split(",") if f.strip()]
                    for path in m.group(1).split(","):
                        commit[2].append((path.strip(), funcs))
                    if m.group(4):
                        commit[1].append(m.group(4))
                elif not NOISE.match(line):
                    commit[1].append(SYMBOL_PREFIX.sub("", line))
        return

    for raw in text.split("\n"):
        if HEADER.match(raw):
            flush()
            date, body = HEADER.match(raw).group(1), []
        elif date is not None:
            if raw.startswith(("\t", " ")) or not raw.strip():
                body.append(raw)
            else:
                flush()  # an unindented line that is no header ends the entries (old-log notices)
                date, body = None, []
    flush()
    return [tuple(c) for c in commits]


WORK = "/tmp/nib-loc-bench"
HISTORY_FILES = re.compile(r"(^|/)(ChangeLog|NEWS)[^/]*$")


def stripped_copy(repo, name):
    """The snapshot without the files that hold the history (ChangeLog*, NEWS*): they contain the
    queries' own messages, which no method may read. A git repository with one commit."""
    dest = os.path.join(WORK, name)
    if os.path.isdir(os.path.join(dest, ".git")):
        return dest
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.run(["git", "-C", repo, "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    for root, _, files in os.walk(dest):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), dest)
            if HISTORY_FILES.search(rel):
                os.remove(os.path.join(root, f))
    git = ["git", "-C", dest, "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "snapshot"], check=True)
    return dest


def history_copy(snapshot, name, history):
    """The stripped snapshot behind a git history replayed from the ChangeLog's commits older than
    the temporal split (`history`, newest first): an import of the snapshot, then one commit per
    ChangeLog commit, oldest first, dated by it, its message the commit's whole text, changing
    the files its items name that exist in the snapshot (a blank line added, or taken away
    again: a change that adds no words) — inside each function the item names, after the
    opening brace of its definition in the snapshot, where one is found, else at the file's
    top, where no function encloses it —, then the snapshot restored. What a history miner can
    learn from it is what the ChangeLog says — which files and functions each message's commit
    changed — and nothing about the queries, which are all newer."""
    dest = os.path.join(WORK, name + "-history-f")  # -f: edits inside the named functions
    if os.path.isdir(os.path.join(dest, ".git")):
        return dest
    files = repo_files(snapshot)
    existing = set(files)
    contents = {}

    def content(path):
        if path not in contents:
            with open(os.path.join(snapshot, path), "rb") as f:
                contents[path] = f.read()
        return contents[path]

    slots = {}  # (path, function) -> the line after which its blank line goes, or None

    def slot(path, function):
        """The line (0-based) holding the opening brace of `function`'s definition: one that
        starts at column 0 with the name before its parenthesis and is no prototype."""
        if (path, function) not in slots:
            lines = content(path).split(b"\n")
            found = None
            pattern = re.compile(rb"^(?:[A-Za-z_][\w \t*]*[ \t*])?" + re.escape(function.encode()) + rb"\s*\(")
            for i, line in enumerate(lines):
                if pattern.match(line) and not line.rstrip().endswith(b";"):
                    found = next((j for j in range(i, min(i + 15, len(lines) - 1))
                                  if lines[j].rstrip().endswith(b"{")), None)
                    if found is not None:
                        break
            slots[(path, function)] = found
        return slots[(path, function)]

    def edited(path, marks):
        """The snapshot's `path` with a blank line after each marked line (None: at the top)."""
        lines = content(path).split(b"\n")
        at = {m for m in marks if m is not None}
        out = b"\n".join(line + (b"\n" if i in at else b"") for i, line in enumerate(lines))
        return (b"\n" if None in marks else b"") + out

    os.makedirs(dest)
    git = ["git", "-C", dest]
    subprocess.run(git + ["init", "-q", "-b", "main"], check=True)
    proc = subprocess.Popen(git + ["fast-import", "--quiet"], stdin=subprocess.PIPE)
    out = proc.stdin

    def data(b):
        out.write(b"data %d\n" % len(b))
        out.write(b)
        out.write(b"\n")

    def commit(when, message, changes):
        # Each commit continues the branch (fast-import's own tip), the first starts it.
        out.write(b"commit refs/heads/main\n")
        out.write(b"committer bench <bench@localhost> %d +0000\n" % when)
        data(message.encode("utf-8", "replace"))
        for path, body in changes:
            out.write(b"M 100644 inline %s\n" % path.encode())
            data(body)

    import datetime
    def stamp(date, i):
        return int(datetime.datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc).timestamp()) + i

    replay = list(reversed(history))
    start = stamp(replay[0][0], 0) - 86400 if replay else 0
    commit(start, "import", [(p, content(p)) for p in files])
    marked = {}  # path -> its lines with a blank line after them now (None: the file's top)
    for i, (date, _, items, raw) in enumerate(replay):
        changes = []
        named = {}
        for p, fs in items:
            if p in existing:
                named.setdefault(p, set()).update(fs)
        for path in sorted(named):
            places = {slot(path, f) for f in named[path]} - {None} or {None}
            marked[path] = marked.get(path, set()) ^ places
            changes.append((path, edited(path, marked[path])))
        if changes:
            commit(stamp(date, i), "\n".join(raw) + "\n", changes)
    restore = sorted(p for p, m in marked.items() if m)
    if restore:
        # No message: a miner learns nothing from the restoring commit, which no history has.
        commit(stamp(replay[-1][0], len(replay)) + 1, "", [(p, content(p)) for p in restore])
    out.close()
    if proc.wait() != 0:
        sys.exit(f"bench: git fast-import failed for {name}")
    subprocess.run(git + ["checkout", "-q", "-f", "main"], check=True)
    return dest


def repo_files(repo):
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True, check=True).stdout
    return [p for p in out.decode("utf-8", "replace").split("\0") if p]


def make_tasks(repo, n):
    files = set(repo_files(repo))
    with open(os.path.join(repo, "ChangeLog"), encoding="utf-8", errors="replace") as f:
        commits = parse_changelog(f.read())
    tasks = []
    for date, message, items, _ in commits:
        targets = sorted({p for p, _ in items if p in files and os.path.splitext(p)[1] in SOURCE_EXT})
        query = " ".join(PATHISH.sub(" ", " ".join(message)).split())
        if not targets or len(query.split()) < 4:
            continue
        functions = sorted({f for p, fs in items if p in targets for f in fs})
        tasks.append({"date": date, "query": query, "targets": targets, "functions": functions})
        if len(tasks) == n:
            break
    cut = min(t["date"] for t in tasks) if tasks else ""
    history = [c for c in commits if c[0] < cut and c[2]]
    return tasks, cut, history


class FileBM25:
    def __init__(self, repo, k1=1.2, b=0.75):
        self.k1, self.b = k1, b
        self.tf, self.length = {}, {}
        df = Counter()
        for path in repo_files(repo):
            full = os.path.join(repo, path)
            try:
                if os.path.getsize(full) > (1 << 20):
                    continue
                with open(full, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if b"\0" in data[:8192]:
                continue
            counts = Counter(tokens(data.decode("utf-8", "replace")))
            self.tf[path] = counts
            self.length[path] = sum(counts.values())
            df.update(counts.keys())
        self.n = len(self.tf)
        self.avg = sum(self.length.values()) / max(1, self.n)
        self.idf = {t: math.log(1 + (self.n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def rank(self, query, k=10):
        q = set(tokens(query))
        scores = defaultdict(float)
        for path, counts in self.tf.items():
            norm = self.k1 * (1 - self.b + self.b * self.length[path] / self.avg)
            s = 0.0
            for t in q:
                f = counts.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores[path] = s
        return [p for p, _ in sorted(scores.items(), key=lambda e: (-e[1], e[0]))[:k]]


def nib_hits(nib, repo, query, route):
    """`nib search`'s hits for a query (k 200: enough to rank files and units)."""
    r = subprocess.run([nib, "search", "-r", route, "--json", "-k", "200", "--", query], cwd=repo,
                       capture_output=True, text=True, env=dict(os.environ, NIB_NO_AUTO_DAEMON="1"))
    if r.returncode != 0:
        return []
    return json.loads(r.stdout).get("hits", [])


def files_of(hits, k=10):
    """The first k files of a ranking of units (each file at its first unit)."""
    files = []
    for hit in hits:
        if hit["path"] not in files:
            files.append(hit["path"])
        if len(files) == k:
            break
    return files


def nib_rank(nib, repo, query, route, k=10):
    return files_of(nib_hits(nib, repo, query, route), k)


def function_score(hit_lists, tasks, k=10):
    """Function level: the rank of the first of the top k units that is a function the commit's
    items name in a target file; over the tasks whose items name functions."""
    mrr = r1 = n = 0
    for hits, task in zip(hit_lists, tasks):
        if not task["functions"]:
            continue
        n += 1
        rank = next((i + 1 for i, h in enumerate(hits[:k])
                     if h["path"] in task["targets"] and h.get("name") in task["functions"]), None)
        if rank:
            mrr += 1 / rank
            r1 += rank == 1
    return {"mrr": mrr / max(1, n), "recall@1": r1 / max(1, n), "tasks": n}


def server_ranks(nib, repo, tasks, route, k=10):
    """Each task's files as `nib serve` answers nib/search, and each request's latency (seconds)."""
    from lsp_bench import Client
    client = Client([nib, "serve"], repo)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + repo, "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    ranked, latencies = [], []
    for t in tasks:
        elapsed, msg = client.timed_request("nib/search", {"query": t["query"], "route": route, "k": 200})
        latencies.append(elapsed)
        files = []
        for hit in msg.get("result", {}).get("hits", []):
            if hit["path"] not in files and len(files) < k:
                files.append(hit["path"])
        ranked.append(files)
    client.request("shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit"})
    client.proc.wait(timeout=30)
    return ranked, latencies


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def grep_and_read(repo, query):
    """The files an agent reads after grepping the query's rarest words (context_bench.py's loop)."""
    import context_bench as cb
    words = []
    for w in re.findall(r"[A-Za-z0-9_]+", query):
        w = w.lower()
        if len(w) >= 4 and w not in cb.STOPWORDS and w not in words:
            words.append(w)
    holders = {w: {cb.rel(ln) for ln in cb.rg(repo, ["-l", "-i", "-F", "-w", "-e", w])[1].split(b"\n") if ln}
               for w in words}
    chosen = sorted((w for w in words if holders[w]), key=lambda w: (len(holders[w]), words.index(w)))[:cb.KEYWORDS]
    counts = {}
    if chosen:
        args = ["--count-matches", "-i", "-F", "-w"]
        for w in chosen:
            args += ["-e", w]
        for ln in cb.rg(repo, args)[1].split(b"\n"):
            if ln:
                path, n = ln.rsplit(b":", 1)
                counts[cb.rel(path)] = int(n)
    ranked = sorted(counts, key=lambda p: (-sum(p in holders[w] for w in chosen), -counts[p], p))
    return ranked[:cb.MAX_READS]


def context_holds(nib, repo, query, targets, budget):
    r = subprocess.run([nib, "context", "--intent=" + query, "--budget", str(budget), "--json"], cwd=repo,
                       capture_output=True, text=True, env=dict(os.environ, NIB_NO_AUTO_DAEMON="1"))
    if r.returncode != 0:
        return False
    return any(os.path.normpath(u.get("path", "")) in targets for u in json.loads(r.stdout).get("units", []))


def history_votes(repo, tasks, history, k1=1.2, b=0.75, voters=20):
    """The history alone, as nib's lexical route uses it: BM25 over the older commits' messages
    (the bench's tokens, each counted once), the best `voters` vote for the snapshot's files
    they changed (score / sqrt(files)). Per task the voted files, best first: how far the
    replayed history reaches today's files, whatever the code's text says."""
    files = set(repo_files(repo))
    docs = []
    for _, _, items, raw in history:
        changed = sorted({p for p, _ in items if p in files})
        if changed:
            docs.append((set(tokens(" ".join(raw))), changed))
    n = len(docs)
    df = Counter(t for words, _ in docs for t in words)
    avg = sum(len(words) for words, _ in docs) / max(1, n)
    ranked = []
    for task in tasks:
        query = set(tokens(task["query"]))
        scored = []
        for i, (words, _) in enumerate(docs):
            s = sum(math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in query & words)
            if s:
                scored.append((s * (k1 + 1) / (1 + k1 * (1 - b + b * len(words) / avg)), i))
        scored.sort(key=lambda e: (-e[0], e[1]))
        votes = defaultdict(float)
        for s, i in scored[:voters]:
            for f in docs[i][1]:
                votes[f] += s / math.sqrt(len(docs[i][1]))
        ranked.append([f for f, _ in sorted(votes.items(), key=lambda e: (-e[1], e[0]))])
    return ranked, n


def score(ranked_lists, tasks):
    mrr = r1 = r10 = 0.0
    for ranked, task in zip(ranked_lists, tasks):
        rank = next((i + 1 for i, p in enumerate(ranked[:10]) if p in task["targets"]), None)
        if rank:
            mrr += 1 / rank
            r1 += rank == 1
            r10 += 1
    n = max(1, len(tasks))
    return {"mrr": mrr / n, "recall@1": r1 / n, "recall@10": r10 / n}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus-dir", required=True)
    ap.add_argument("--corpus", nargs="*", default=HELD_OUT)
    ap.add_argument("--tasks", type=int, default=100)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--show", type=int, default=0, help="print the first N tasks of each code base")
    ap.add_argument("--server", action="store_true",
                    help="also: the same queries through `nib serve` (nib/search over stdio), latency p50/p95")
    ap.add_argument("--history", action="store_true",
                    help="also: nib over a git history replayed from the ChangeLog's commits older than the split")
    ap.add_argument("--context", action="store_true",
                    help="also: does `nib context --intent` (8k tokens) hold a target file, and grep-and-read's first 10 files")
    args = ap.parse_args()
    nib = os.path.join(os.path.abspath(args.build), "cli", "nib")
    results = {}
    for name in args.corpus:
        repo = os.path.join(args.corpus_dir, name)
        tasks, cut, history = make_tasks(repo, args.tasks)
        if not tasks:
            print(f"{name}: no tasks", file=sys.stderr)
            continue
        for t in tasks[: args.show]:
            print(f"  {name} {t['date']} {t['targets']} <- {t['query'][:160]}", file=sys.stderr)
        repo = stripped_copy(repo, name)
        # A no-op when the index is current for this nib (a new build's views are rebuilt).
        subprocess.run([nib, "index", "-q", "--no-dense"], cwd=repo, check=True)
        bm25 = FileBM25(repo)
        row = {"tasks": len(tasks), "cut": cut, "history": len(history), "set": "held-out" if name in HELD_OUT + HELD_OUT_OTHER else "tuning"}
        row["file-bm25"] = score([bm25.rank(t["query"]) for t in tasks], tasks)
        for route in ("lexical", "auto"):
            hits = [nib_hits(nib, repo, t["query"], route) for t in tasks]
            row["nib-" + route] = score([files_of(h) for h in hits], tasks)
            if route == "lexical":
                row["functions-nib-lexical"] = function_score(hits, tasks)
        if args.history:
            voted, reaching = history_votes(repo, tasks, history)
            row["history-votes"] = dict(score([v[:10] for v in voted], tasks), reaching=reaching,
                                        target_voted=sum(any(f in t["targets"] for f in v) for v, t in zip(voted, tasks)))
            hrepo = history_copy(repo, name, history)
            subprocess.run([nib, "index", "-q", "--no-dense"], cwd=hrepo, check=True)
            for route in ("lexical", "auto"):
                hits = [nib_hits(nib, hrepo, t["query"], route) for t in tasks]
                row[f"nib-{route}+history"] = score([files_of(h) for h in hits], tasks)
                if route == "lexical":
                    row["functions-nib-lexical+history"] = function_score(hits, tasks)
        # With --history, the server and context figures are those of the repository with its
        # history (the lexical figures above give the difference the history makes).
        served = hrepo if args.history else repo
        if args.server:
            for route in ("lexical", "auto"):
                ranked, lat = server_ranks(nib, served, tasks, route)
                row["serve-" + route] = dict(score(ranked, tasks), p50_ms=1000 * percentile(lat, 50),
                                             p95_ms=1000 * percentile(lat, 95))
        if args.context:
            row["context@8k"] = sum(context_holds(nib, served, t["query"], t["targets"], 8000) for t in tasks) / len(tasks)
            row["grep-read@10"] = sum(any(p in t["targets"] for p in grep_and_read(repo, t["query"])) for t in tasks) / len(tasks)
        results[name] = row
        if not args.json:
            print(f"{name} ({row['set']}; {row['tasks']} queries from {cut} on; {len(history)} older commits)")
            for method in ("file-bm25", "nib-lexical", "nib-auto") + (("nib-lexical+history", "nib-auto+history") if args.history else ()):
                m = row[method]
                print(f"  {method:19} MRR {m['mrr']:.3f}  recall@1 {m['recall@1']:.2f}  recall@10 {m['recall@10']:.2f}")
            if args.history:
                m = row["history-votes"]
                print(f"  history votes alone MRR {m['mrr']:.3f}  a target among the voted files {m['target_voted']}/{row['tasks']}"
                      f"  ({m['reaching']} older commits reach a file of the snapshot)")
            for method in ("functions-nib-lexical",) + (("functions-nib-lexical+history",) if args.history else ()):
                m = row[method]
                print(f"  {method:29} MRR {m['mrr']:.3f}  recall@1 {m['recall@1']:.2f}  ({m['tasks']} queries whose items name functions)")
            for route in ("lexical", "auto") if args.server else ():
                m = row["serve-" + route]
                print(f"  nib serve {route:7} MRR {m['mrr']:.3f}  nib/search p50 {m['p50_ms']:.1f} ms  p95 {m['p95_ms']:.1f} ms")
            if args.context:
                print(f"  a target file in `nib context --intent` at 8k tokens: {row['context@8k']:.2f};"
                      f" among grep-and-read's first 10 files: {row['grep-read@10']:.2f}")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    from lsp_bench import without_sampler  # noqa: E402
    without_sampler()
    main()
