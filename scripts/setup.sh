#!/usr/bin/env bash
# Installs everything nib needs to build, test and run on a fresh Debian 12 machine.
# Idempotent: packages already present are skipped by apt, npm ci is re-run only when the lock
# changed. Run as root (or with sudo available).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

apt_packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates
  # libraries (see DESIGN.md §6)
  libclang-14-dev clang-14 libtree-sitter-dev libfaiss-dev liblmdb-dev nlohmann-json3-dev
  libgit2-dev catch2 libfasttext-dev libxxhash-dev liblz4-dev libblas-dev liblapack-dev libcli11-dev
  libre2-dev libmd-dev libcurl4-openssl-dev libmimalloc-dev
  # SCIP (the precise view's input and `nib export scip`): scip.proto compiled by protoc
  protobuf-compiler libprotobuf-dev
  # the fuzz build (scripts/fuzz.sh): clang-14's OpenMP, which FAISS's CMake package asks for,
  # and its sanitizer and libFuzzer runtimes (only recommended by clang-14, which apt skips here)
  libomp-14-dev libclang-rt-14-dev
  # OpenBLAS (the OpenMP build, as FAISS runs on OpenMP) takes over libblas.so.3 through
  # Debian's alternatives: with the reference BLAS, FAISS's IVF training took 300 of the 334 s
  # that indexing qemu took, 8.8 s with OpenBLAS
  libopenblas0-openmp
  # live backends and real clients used by tests and benchmarks
  clangd python3-pylsp neovim emacs-nox elpa-eglot
  # headless Chromium renders the benchmark's HTML report in a test
  chromium
  # comparison tools for bench/
  universal-ctags global ripgrep
  # pgrep, for the test that a background dense follow-up ends (minimal images lack procps)
  procps
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# Node.js may come from another source (NodeSource ships npm inside its nodejs package, which
# conflicts with Debian's npm): only ask Debian for it when the commands are absent.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Pinned tree-sitter grammars (ABI 14, see dependency-notes.md). --ignore-scripts: no native
# build runs; CMake compiles each grammar's parser.c itself.
stamp="$here/third_party/grammars/node_modules/.nib-lock-stamp"
if ! cmp -s "$here/third_party/grammars/package-lock.json" "$stamp" 2>/dev/null; then
  echo "setup: fetching pinned tree-sitter grammars (npm ci)" >&2
  (cd "$here/third_party/grammars" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$here/third_party/grammars/package-lock.json" "$stamp"
fi

# The pinned TypeScript language server nib proxies (typescript-language-server 5.3.0 with
# typescript 5.9.3: 6.x needs Node 22), pyright (the second Python live backend) and the SCIP
# indexers of the precise view (scip-typescript, scip-python). nib finds them there when none
# is on PATH.
stamp="$here/third_party/backends/node_modules/.nib-lock-stamp"
if ! cmp -s "$here/third_party/backends/package-lock.json" "$stamp" 2>/dev/null; then
  echo "setup: fetching the pinned language servers and SCIP indexers (npm ci)" >&2
  (cd "$here/third_party/backends" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$here/third_party/backends/package-lock.json" "$stamp"
fi

# The VS Code extension's language client and its packager (@vscode/vsce 2.x: 3.x and later
# need Node 22), pinned by the extension's lock; its tests run the command code under Node and
# package the .vsix.
stamp="$here/editors/vscode/node_modules/.nib-lock-stamp"
if ! cmp -s "$here/editors/vscode/package-lock.json" "$stamp" 2>/dev/null; then
  echo "setup: fetching the VS Code extension's dependencies (npm ci)" >&2
  (cd "$here/editors/vscode" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$here/editors/vscode/package-lock.json" "$stamp"
fi

# The official MCP TypeScript SDK client for the `nib mcp` test (tests/mcp, pinned by its lock).
stamp="$here/tests/mcp/node_modules/.nib-lock-stamp"
if ! cmp -s "$here/tests/mcp/package-lock.json" "$stamp" 2>/dev/null; then
  echo "setup: fetching the MCP SDK test client (npm ci)" >&2
  (cd "$here/tests/mcp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$here/tests/mcp/package-lock.json" "$stamp"
fi
