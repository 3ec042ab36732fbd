#!/usr/bin/env bash
# Runs every test: unit tests and the integration tests against real Xvfb + openbox
# sessions (each test starts its own). Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
swift build --build-tests

# The whole log goes by as usual; when something failed, its failures are said again at
# the end, where a CI page that shows only the last lines of a long log still shows them.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build "$@" 2>&1 | tee "$log" || status=$?
# The whole suite (no arguments): then the time-bound tests again at chosen clock times and
# zones (scripts/test-clocks.sh), so that no test depends on the hour it runs at.
clocks=0
if [ $# -eq 0 ]; then
  scripts/test-clocks.sh 2>&1 | tee -a "$log" || clocks=$?
fi
if [ "$status" -ne 0 ] || [ "$clocks" -ne 0 ]; then
  echo
  echo "screenward: the tests failed (exit $status; at chosen clocks: exit $clocks); what failed, again:"
  grep -E "(: error: |^Test Case '.*' failed )" "$log" | cut -c1-700 | tail -n 60 || echo "(no XCTest failure lines: see the log above)"
  # Which clocks those of the second part failed at (scripts/test-clocks.sh's own summary).
  sed -n '/^screenward: time-bound tests failed at a chosen clock:/,$p' "$log"
  [ "$status" -ne 0 ] || status=$clocks
fi
exit "$status"
