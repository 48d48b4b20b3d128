#!/usr/bin/env python3
"""Which requests two runs of bench/agreement_bench.py (--json) answer differently, and whose
answer moved: nib's or the live server's.

The runs must share positions (same --files, --per-file, --seed and sampler); requests only one
run holds are counted apart. For each request asked in both, the verdict (equal to the live
server or not) in each run, and whether nib's locations or the server's changed between them.
A change of verdict with nib's answer unchanged is the server's doing (clangd's shuffled
background index keeps a different unit's view of a header from one run to the next), which
says nothing about nib's code.

Usage: bench/agreement_diff.py BEFORE.json AFTER.json [--server clangd] [--list]
Prints the counts; --list also prints each request whose verdict or nib answer changed.
"""
import argparse
import json
import sys


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"agreement_diff: cannot read {path}: {e}")
    if "records" not in data:
        sys.exit(f"agreement_diff: {path} is no agreement_bench.py --json output (no 'records')")
    return {(r["kind"], r["path"], r["line"], r["character"]): r for r in data["records"]}


def locations(record, side):
    answer = record.get("answers", {}).get(side) or {}
    return sorted(tuple(l) for l in (answer.get("locations") or []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--server", default=None, help="the live side's name in the runs (default: the one they hold)")
    ap.add_argument("--list", action="store_true", help="print each request whose verdict or nib answer changed")
    args = ap.parse_args()
    before, after = load(args.before), load(args.after)
    common = [k for k in before if k in after]
    if not common:
        sys.exit("agreement_diff: the runs share no request (other positions: another seed or sampler?)")
    server = args.server
    if server is None:
        sides = [s for s in before[common[0]].get("answers", {}) if s != "nib"]
        if len(sides) != 1:
            sys.exit(f"agreement_diff: name the live side with --server (the runs hold {sides})")
        server = sides[0]
    counts = {"nib": 0, "server": 0, "better_nib": 0, "better_server": 0, "worse_nib": 0, "worse_server": 0}
    for key in common:
        x, y = before[key], after[key]
        nib_moved = locations(x, "nib") != locations(y, "nib")
        server_moved = locations(x, server) != locations(y, server)
        counts["nib"] += nib_moved
        counts["server"] += server_moved
        was, now = bool(x["agree"].get(server)), bool(y["agree"].get(server))
        if was != now:
            who = "nib" if nib_moved else "server"
            counts[("better_" if now else "worse_") + who] += 1
        if args.list and (was != now or nib_moved):
            verdict = "now equal" if now and not was else "no longer equal" if was and not now else "verdict unchanged"
            moved = ", ".join(s for s, m in (("nib", nib_moved), (server, server_moved)) if m) or "neither"
            print(f"{key[0]:<10} {key[1]}:{key[2] + 1}:{key[3] + 1} {x.get('word', '')}: {verdict}; moved: {moved}")
    print(f"{len(common)} requests in both runs ({len(before) - len(common)} only before, {len(after) - len(common)} only after)")
    print(f"nib's answer changed at {counts['nib']}, {server}'s at {counts['server']}")
    print(f"now equal: {counts['better_nib']} by nib's change, {counts['better_server']} by {server}'s alone")
    print(f"no longer equal: {counts['worse_nib']} by nib's change, {counts['worse_server']} by {server}'s alone")


if __name__ == "__main__":
    main()
