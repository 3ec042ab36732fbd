#!/usr/bin/env bash
# Builds in release mode and runs the benchmarks (all four, or the one named with
# its options); figures are printed and written to bench-results/<name>.json.
#   scripts/bench.sh                       tracking, thresholds, monitor and shield
#   scripts/bench.sh thresholds --apps 2   one benchmark with its options
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
swift build -c release
if [ "$#" -eq 0 ]; then
    for benchmark in tracking thresholds monitor shield; do
        .build/release/screenward-bench "$benchmark"
    done
else
    .build/release/screenward-bench "$@"
fi
