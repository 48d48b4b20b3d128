#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang-14, AddressSanitizer and UBSan into
# build-fuzz/, and runs each for SECONDS (default 60) from its committed seeds
# (fuzz/corpus/<target>/, read only; what the run finds goes to build-fuzz/corpus/<target>/).
# A crash, a sanitizer report, a leak or a hang (an input over 10 s) fails the run and leaves
# the input in build-fuzz/artifacts/: turn it into a regression test.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: framing lsp_codec mcp_codec file_facts
#        clang_facts manifest extractor views scip; all by default)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(framing lsp_codec mcp_codec file_facts clang_facts manifest extractor views scip)
build="$here/build-fuzz"
jobs=$(nproc)
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DNIB_FUZZ=ON -DNIB_BUILD_TESTS=OFF -DNIB_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null
mkdir -p "$build/artifacts"
# The extractor's seeds are the golden fixture sources, each behind the byte that picks its
# language (fuzz_extractor.cpp's order), made here rather than committed twice.
mkdir -p "$here/fuzz/corpus/extractor"
seeds="$build/seeds/extractor"
mkdir -p "$seeds"
i=0
for ext in c cpp py js ts tsx go rs java; do
  for f in "$here"/tests/fixtures/golden/*."$ext"; do
    [ -e "$f" ] || continue
    { printf "\\$(printf '%03o' "$i")"; cat "$f"; } > "$seeds/$(basename "$f")"
  done
  i=$((i + 1))
done
status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$here/fuzz/corpus/$t"
  echo "fuzz_$t: ${seconds}s"
  if ! "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" "$here/fuzz/corpus/$t" \
      $([ "$t" = extractor ] && echo "$seeds") \
      >"$build/fuzz_$t.log" 2>&1; then
    echo "fuzz_$t FAILED: see $build/fuzz_$t.log and $build/artifacts/" >&2
    tail -n 30 "$build/fuzz_$t.log" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz_$t.log" | sed "s/^/  /" || true
done
exit $status
