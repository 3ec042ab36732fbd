#!/usr/bin/env bash
# Runs every test: unit tests and the integration tests against real Xvfb + openbox
# sessions (each test starts its own). Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
swift build --build-tests
swift test --skip-build "$@"
