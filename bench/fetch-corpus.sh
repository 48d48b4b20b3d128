#!/usr/bin/env bash
# Fetches real code into bench/corpus/<name> and turns each into a git repository (one commit),
# so that nib indexes it as a commit. Each argument is one of:
#   PACKAGE        a Debian source package (its .orig tarball), e.g. tmux
#   deb:PACKAGE    the files of a Debian binary package, e.g. deb:python3-attr (Python
#                  modules) or deb:librust-regex-dev (a Rust crate's sources)
#   npm:NAME@VER   an npm package's published files, e.g. npm:zod@3.23.8
#   heldout        the code bases of the precise-view measurements (Debian source packages):
#                  TypeScript node-sinclair-typebox node-parse5 node-cheerio (held out) and
#                  node-js-sdsl (tuned on), JavaScript node-express node-commander (held out)
#                  and node-js-yaml (tuned on), Python jinja2 rich construct (held out) and toolz
#                  (tuned on) — all tuned on since the sixteenth session
#   heldout27      the sixteenth session's fresh set: TypeScript node-change-case node-cronstrue
#                  node-memfs, Python python-h11 httpcore astroid
#   heldout28      and its second TypeScript set: node-yargs node-got node-zrender
#   heldout26      a fresh set for the calibrated answers (issue 26): TypeScript node-regexpp
#                  node-cosmiconfig, Python ply python-ldap3 (this mirror holds only some
#                  .orig tarballs: each was checked to download)
#   heldout29      the twenty-second session's fresh TypeScript set, chosen and measured by a
#                  helper before any answer was read: node-jose node-css-select node-webpack-merge
#   heldout30      the twenty-seventh session's fresh TypeScript set, chosen before any change:
#                  node-esprima node-ip-address node-timeago.js
#   heldout31      two more, the spares of that choice, added when a change made two of
#                  timeago.js's answers worse (before reading them): node-smart-buffer
#                  node-route-recognizer
# Uses a private apt source list pointing at the machine's own Debian mirror (type deb-src);
# the machine's apt configuration is not touched.
# Usage: bench/fetch-corpus.sh [ITEM ...]   (default: tmux)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest="${NIB_CORPUS_DIR:-$here/corpus}"
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(tmux)
heldout=(node-sinclair-typebox node-parse5 node-js-sdsl node-cheerio node-express node-commander node-js-yaml
         jinja2 rich toolz construct)
heldout27=(node-change-case node-cronstrue node-memfs python-h11 httpcore astroid)
heldout28=(node-yargs node-got node-zrender)
heldout26=(node-regexpp node-cosmiconfig ply python-ldap3)
heldout29=(node-jose node-css-select node-webpack-merge)
heldout30=(node-esprima node-ip-address node-timeago.js)
heldout31=(node-smart-buffer node-route-recognizer)
expanded=()
for pkg in "${packages[@]}"; do
  case "$pkg" in
    heldout) expanded+=("${heldout[@]}") ;;
    heldout27) expanded+=("${heldout27[@]}") ;;
    heldout28) expanded+=("${heldout28[@]}") ;;
    heldout26) expanded+=("${heldout26[@]}") ;;
    heldout29) expanded+=("${heldout29[@]}") ;;
    heldout30) expanded+=("${heldout30[@]}") ;;
    heldout31) expanded+=("${heldout31[@]}") ;;
    *) expanded+=("$pkg") ;;
  esac
done
packages=("${expanded[@]}")

mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
src=/etc/apt/sources.list.d/debian.sources
if [ -f "$src" ]; then
  sed -n '/^Types: deb$/,/^$/p' "$src" | head -n 6 \
    | sed 's/^Types: deb$/Types: deb-src/; s/^Suites: .*/Suites: bookworm/' > "$work/src.sources"
else
  echo "Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main" > "$work/src.sources"
fi
o=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work" -o Dir::State::Lists="$work/lists"
   -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${o[@]}" -qq update >/dev/null

failed=0
for pkg in "${packages[@]}"; do
  n="${pkg#*:}"; n="${n//\//-}"; n="${n//@/-}"
  if [ -d "$dest/$n/.git" ]; then
    echo "corpus: $pkg already present" >&2
    continue
  fi
  echo "corpus: fetching $pkg" >&2
  name="${pkg#*:}"; name="${name//\//-}"; name="${name//@/-}"
  case "$pkg" in
    deb:*)
      if ! (cd "$work" && apt-get download -qq "${pkg#deb:}" >/dev/null 2>&1); then
        echo "corpus: warning: cannot download $pkg; skipped" >&2; failed=$((failed + 1)); continue
      fi
      rm -rf "$dest/$name" && mkdir -p "$dest/$name"
      dpkg-deb -x "$work"/*.deb "$dest/$name/"; rm -f "$work"/*.deb
      (cd "$dest/$name" && git init -q && git add -A && \
       git -c user.name=nib-bench -c user.email=bench@nib -c commit.gpgsign=false commit -qm "$pkg")
      continue ;;
    npm:*)
      if ! (cd "$work" && npm pack --silent "${pkg#npm:}" >/dev/null 2>&1); then
        echo "corpus: warning: cannot download $pkg; skipped" >&2; failed=$((failed + 1)); continue
      fi
      rm -rf "$dest/$name" && mkdir -p "$dest/$name"
      tar -xzf "$work"/*.tgz -C "$dest/$name" --strip-components=1; rm -f "$work"/*.tgz
      (cd "$dest/$name" && git init -q && git add -A && \
       git -c user.name=nib-bench -c user.email=bench@nib -c commit.gpgsign=false commit -qm "$pkg")
      continue ;;
  esac
  # Only the .orig tarball is used: a mirror that lacks the Debian packaging (.debian.tar.*)
  # fails the download as a whole but still leaves a complete, checksummed .orig tarball.
  if ! (cd "$work" && apt-get "${o[@]}" -qq source --download-only "$pkg" >/dev/null 2>&1) \
     && ! ls "$work"/*.orig.tar.* >/dev/null 2>&1; then
    echo "corpus: warning: cannot download the source of $pkg; skipped" >&2
    rm -f "$work"/*.debian.tar.* "$work"/*.dsc "$work"/*.asc "$work"/*.orig-*.tar.* 2>/dev/null || true
    failed=$((failed + 1))
    continue
  fi
  tarball=$(ls "$work"/*.orig.tar.* 2>/dev/null | head -n 1 || true)
  if [ -z "$tarball" ]; then
    echo "corpus: warning: no .orig tarball for $pkg; skipped" >&2
    failed=$((failed + 1))
    continue
  fi
  rm -rf "$dest/$pkg" && mkdir -p "$dest/$pkg"
  tar -xf "$tarball" -C "$dest/$pkg" --strip-components=1
  rm -f "$work"/*.orig.tar.* "$work"/*.orig-*.tar.* "$work"/*.debian.tar.* "$work"/*.dsc "$work"/*.asc 2>/dev/null || true
  (cd "$dest/$pkg" && git init -q && git add -A && \
   git -c user.name=nib-bench -c user.email=bench@nib -c commit.gpgsign=false commit -qm "$pkg (Debian bookworm source)")
done
[ "$failed" -lt "${#packages[@]}" ] || { echo "corpus: nothing could be fetched" >&2; exit 1; }
