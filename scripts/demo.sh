#!/usr/bin/env bash
# Installs everything nib needs, builds it, fetches a real repository (tmux, from Debian's
# source packages) and runs the main job on it: index it, print the index status, and answer
# a definition and a references query. Usage: scripts/demo.sh [PACKAGE]  (default: tmux)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkg="${1:-tmux}"
"$here/scripts/setup.sh"
"$here/scripts/build.sh" >/dev/null
"$here/bench/fetch-corpus.sh" "$pkg"
repo="$here/bench/corpus/$pkg"
nib="${NIB_BUILD_DIR:-$here/build}/cli/nib"

cd "$repo"
echo
echo "\$ nib index"
"$nib" index
echo
echo "\$ nib status"
"$nib" status
# Pick a real function: the first one `nib symbols` finds for a common name part (override
# with NIB_DEMO_SYMBOL), ask for its references, then for the definition at its first use.
target=$("$nib" symbols "${NIB_DEMO_SYMBOL:-init}" -n 50 | awk '$1 == "function" { print $NF; exit }')
if [ -z "$target" ]; then
  target=$("$nib" symbols a -n 1 | awk '{ print $NF; exit }')
fi
echo
echo "\$ nib refs $target"
"$nib" refs "$target" | head -n 20
use=$("$nib" refs --no-declaration "$target" | head -n 1 | cut -d: -f1-3)
if [ -n "$use" ]; then
  echo
  echo "\$ nib def $use"
  "$nib" def "$use"
fi

# Search: every line holding the function's name (as grep would print it), then a ranked
# prose query over functions and files.
fname=$("$nib" symbols "${NIB_DEMO_SYMBOL:-init}" -n 50 | awk '$1 == "function" { print $2; exit }')
if [ -n "$fname" ]; then
  echo
  echo "\$ nib search -k 5 $fname"
  "$nib" search -k 5 "$fname" || true
fi
echo
echo "\$ nib search -k 2 'resize the terminal window'"
"$nib" search -k 2 "resize the terminal window" || true

# Structure and context: who calls the function, and one token-bounded bundle an agent would
# get for it (its source, its callers and callees, its blast radius).
if [ -n "$fname" ]; then
  echo
  echo "\$ nib callers $fname"
  "$nib" callers "$fname" | head -n 10 || true
  echo
  echo "\$ nib context --symbol $fname --budget 1200"
  "$nib" context --symbol "$fname" --budget 1200 || true
fi
