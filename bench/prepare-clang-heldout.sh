#!/usr/bin/env bash
# Prepares the held-out C/C++ code bases of issue 24: lz4 1.9.4, pcre2 10.42, libpng 1.6.39 and
# leveldb 1.23, the Debian bookworm source packages lz4, pcre2, libpng1.6 and leveldb. nib's C and
# C++ answers are measured against clangd on these four, and they are never used for tuning, so
# that the measurement says how nib does on code it was not shaped around.
#
# Each code base becomes DEST/<package>, a git repository whose first commit is the package's
# .orig tarball (made by bench/fetch-corpus.sh). The script then builds it once, because clangd
# needs a compilation database (compile_commands.json) and the headers that the build generates:
#   lz4        bear -- make -j2 (the library and the lz4 program)
#   pcre2      ./configure --enable-jit, then bear over make and make pcre2_jit_test
#   libpng1.6  CMake into build/ with the tests and executables, then a build (it generates
#              build/pnglibconf.h); build/compile_commands.json is copied to the root
#   leveldb    CMake into build/ with the tests, without the benchmarks, static, then a build;
#              build/compile_commands.json is copied to the root
# leveldb's CMakeLists.txt wants googletest and Google benchmark as git submodules in
# third_party/, which the tarball leaves empty. The script patches it to use Debian's
# libgtest-dev, libgmock-dev and libbenchmark-dev instead: the two add_subdirectory lines become
# find_package calls, and the block that adds a warning option to the googletest targets (which
# no longer exist) is deleted. The test programs then link against -lgmock -lgtest -lbenchmark.
#
# A second commit, "bench setup", adds .nib.conf (calibration.idle-ms = 0), the compilation
# database at the root, lines in the root .gitignore for every build output (object files,
# libraries, programs, generated headers such as pcre2's src/config.h and src/pcre2.h, build/),
# and leveldb's patch; afterwards git status is empty. Every "directory" and "file" of each
# compilation database is checked to lie inside DEST/<package>.
#
# The script is idempotent: a code base whose last commit is "bench setup", with a clean status
# and a compilation database at the root, is left alone. A partly prepared one is removed and
# fetched again. Missing build tools (bear, cmake, build-essential, zlib1g-dev, libgtest-dev,
# libgmock-dev, libbenchmark-dev) are installed with apt-get, which needs root.
# Usage: bench/prepare-clang-heldout.sh [DEST]   (default: /tmp/held24)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$(realpath -m "${1:-/tmp/held24}")
packages=(lz4 pcre2 libpng1.6 leveldb)
git_c=(-c user.name=nib-bench -c user.email=bench@nib -c commit.gpgsign=false)

need=()
for p in bear cmake build-essential zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "heldout: installing ${need[*]}" >&2
  apt-get -qq update >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -qq install -y "${need[@]}" >/dev/null
fi

prepared() {
  local d=$1
  [ -d "$d/.git" ] && [ -f "$d/compile_commands.json" ] && [ -f "$d/.nib.conf" ] &&
    [ "$(git -C "$d" log -1 --format=%s 2>/dev/null)" = "bench setup" ] &&
    [ -z "$(git -C "$d" status --porcelain)" ]
}

# Appends the build outputs of one code base to its root .gitignore.
ignore() {
  { echo; echo "# nib bench setup: build outputs"; printf '%s\n' "$@"; } >> .gitignore
}

build_lz4() {
  bear -- make -j2
  ignore '*.o' '*.a' '*.so' '*.so.*' '/lz4' '/programs/lz4' '/programs/lz4c' '/programs/lz4cat' \
         '/programs/unlz4'
}

build_pcre2() {
  ./configure --enable-jit >/dev/null
  bear -- sh -c 'make -j2 && make -j2 pcre2_jit_test'
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '.dirstamp' '/Makefile' '/config.log' \
         '/config.status' '/libtool' 'stamp-h1' '/src/config.h' '/src/pcre2.h' \
         '/src/pcre2_chartables.c' '/libpcre2-*.pc' '/pcre2-config' '/pcre2grep' '/pcre2test' \
         '/pcre2_jit_test' '/pcre2posix_test'
}

build_libpng() {
  cmake -S . -B build -DPNG_TESTS=ON -DPNG_EXECUTABLES=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  cmake --build build -j2
  [ -f build/pnglibconf.h ] || { echo "heldout: libpng: no build/pnglibconf.h" >&2; exit 1; }
  cp build/compile_commands.json compile_commands.json
  ignore '/build/'
}

build_leveldb() {
  # Debian's googletest and benchmark instead of the empty third_party submodules.
  sed -i \
    -e 's|^\(\s*\)add_subdirectory("third_party/googletest")|\1find_package(GTest REQUIRED)  # nib bench: Debian libgtest-dev, libgmock-dev|' \
    -e 's|^\(\s*\)add_subdirectory("third_party/benchmark")|\1find_package(benchmark REQUIRED)  # nib bench: Debian libbenchmark-dev|' \
    -e '/# GoogleTest triggers a missing field initializers warning./,/endif(LEVELDB_HAVE_NO_MISSING_FIELD_INITIALIZERS)/d' \
    CMakeLists.txt
  grep -q 'find_package(GTest REQUIRED)' CMakeLists.txt && ! grep -q 'third_party/' CMakeLists.txt ||
    { echo "heldout: leveldb: the CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake -S . -B build -DLEVELDB_BUILD_TESTS=ON -DLEVELDB_BUILD_BENCHMARKS=OFF -DBUILD_SHARED_LIBS=OFF \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  cmake --build build -j2
  cp build/compile_commands.json compile_commands.json
  ignore '/build/'
}

# Fails unless every entry's directory and file lie inside the code base.
check_cdb() {
  python3 - "$1" <<'EOF'
import json, os, sys
root = os.path.realpath(sys.argv[1])
entries = json.load(open(os.path.join(root, "compile_commands.json")))
if not entries:
    sys.exit("heldout: %s: empty compilation database" % root)
for e in entries:
    d = os.path.realpath(e["directory"])
    f = os.path.realpath(os.path.join(d, e["file"]))
    for p in (d, f):
        if p != root and not p.startswith(root + os.sep):
            sys.exit("heldout: %s: entry outside the code base: %s" % (root, p))
print("heldout: %s: %d entries" % (os.path.basename(root), len(entries)), file=sys.stderr)
EOF
}

mkdir -p "$dest"
for pkg in "${packages[@]}"; do
  d="$dest/$pkg"
  if prepared "$d"; then
    echo "heldout: $pkg already prepared" >&2
    continue
  fi
  if [ -e "$d" ]; then
    echo "heldout: $pkg partly prepared; fetching it again" >&2
    rm -rf "$d"
  fi
  NIB_CORPUS_DIR="$dest" "$here/fetch-corpus.sh" "$pkg"
  [ -d "$d/.git" ] || { echo "heldout: cannot fetch $pkg" >&2; exit 1; }
  echo "heldout: building $pkg" >&2
  (
    cd "$d"
    case "$pkg" in
      lz4) build_lz4 ;;
      pcre2) build_pcre2 ;;
      libpng1.6) build_libpng ;;
      leveldb) build_leveldb ;;
    esac
  ) > "$dest/$pkg.build.log" 2>&1 || { echo "heldout: $pkg: build failed, see $dest/$pkg.build.log" >&2; exit 1; }
  check_cdb "$d"
  echo 'calibration.idle-ms = 0' > "$d/.nib.conf"
  # Only the setup's own files may show up; anything else is a build output missing from .gitignore.
  stray=$(git -C "$d" status --porcelain | grep -v -x -e '?? .nib.conf' -e '?? compile_commands.json' \
            -e ' M .gitignore' -e '?? .gitignore' -e ' M CMakeLists.txt' || true)
  if [ -n "$stray" ]; then
    echo "heldout: $pkg: unexpected changes after the build:" >&2; echo "$stray" >&2; exit 1
  fi
  git -C "$d" add -A
  git -C "$d" "${git_c[@]}" commit -qm "bench setup"
  if [ -n "$(git -C "$d" status --porcelain)" ]; then
    echo "heldout: $pkg: git status is not empty after the setup commit" >&2; exit 1
  fi
done
