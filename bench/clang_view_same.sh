#!/usr/bin/env bash
# Whether two builds of nib write the same clang view of a repository: each builds a cold index
# (`nib index --force --full --no-dense --no-precise --wait`, made-up units included) with the
# given number of threads, the view is dumped as sorted text with symbols named by their USRs
# (nib_clang_view_dump), and the dumps are compared. For changes to nib-clang or the merge that
# must not change an answer; the clang phase's step times (NIB_LOG=debug) are printed beside.
# Exits 1 when the views differ (the first differing lines are printed), 2 on bad usage.
# Usage: bench/clang_view_same.sh REPO BUILD_A BUILD_B [THREADS]
#   BUILD_A, BUILD_B: build folders holding cli/nib (a copy of build/ made before a change, and
#   build/ itself); THREADS defaults to 1 (one worker session: the same units share it).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
repo=$(realpath "$1"); a=$(realpath "$2"); b=$(realpath "$3"); threads=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
dump=$here/../build/bench/nib_clang_view_dump
[ -x "$dump" ] || { echo "clang_view_same: build nib_clang_view_dump first (ninja -C build nib_clang_view_dump)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
for build in "$a" "$b"; do
  n=$((n + 1))
  rm -rf "$repo/.nib"
  steps=$(cd "$repo" && NIB_LOG=debug "$build/cli/nib" index --force --full --no-dense --no-precise --wait \
            --threads "$threads" 2>&1 | grep -o 'database [0-9.]* s.*write [0-9.]* s' || true)
  view=$(find "$repo/.nib/versions" -path '*/clang/data.mdb' -printf '%T@ %h\n' | sort -n | tail -1 | cut -d' ' -f2)
  [ -n "$view" ] || { echo "clang_view_same: $build wrote no clang view" >&2; exit 2; }
  "$dump" "$view" > "$out/$n.txt"
  echo "$build: $(wc -l < "$out/$n.txt") facts; $steps"
done
if cmp -s "$out/1.txt" "$out/2.txt"; then
  echo "same clang view"
else
  echo "the clang views differ ($(diff "$out/1.txt" "$out/2.txt" | grep -c '^[<>]') lines):"
  diff "$out/1.txt" "$out/2.txt" | head -20
  exit 1
fi
