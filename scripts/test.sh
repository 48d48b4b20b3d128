#!/usr/bin/env bash
# Installs everything nib needs, builds it, and runs every test. This is the README's test
# command and what CI runs (.ci/run). After the suite, a brief slice of the fuzz targets whose
# build is quick (scripts/fuzz.sh; the extractor's target, which instruments every grammar, runs
# in full fuzz runs only); NIB_FUZZ_SECONDS=0 skips it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh"
cd "$here"
ctest --test-dir "${NIB_BUILD_DIR:-$here/build}" --output-on-failure -j "$(nproc)"
seconds=${NIB_FUZZ_SECONDS:-10}
if [ "$seconds" -gt 0 ]; then
  "$here/scripts/fuzz.sh" "$seconds" framing lsp_codec mcp_codec file_facts clang_facts manifest views scip
fi
