#!/usr/bin/env bash
# Configures and builds nib into build/ (RelWithDebInfo). Run scripts/setup.sh first on a new
# machine (scripts/test.sh and scripts/demo.sh do both).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="${NIB_BUILD_DIR:-$here/build}"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" -j "$(nproc)"
