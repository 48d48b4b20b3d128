#!/usr/bin/env bash
# Installs everything nib needs, builds it, and runs every test. This is the README's test
# command and what CI runs (.ci/run).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh"
cd "$here"
ctest --test-dir "${NIB_BUILD_DIR:-$here/build}" --output-on-failure -j "$(nproc)"
