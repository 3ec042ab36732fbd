#!/usr/bin/env bash
# Builds in release mode and runs the tracking benchmark in a private Xvfb + openbox
# session; figures are printed and written to bench-results/tracking.json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
swift build -c release
.build/release/screenward-bench tracking "$@"
