#!/usr/bin/env bash
# Runs every test: unit tests and the integration tests against real Xvfb + openbox
# sessions (each test starts its own), the time-bound tests again at chosen clocks, and
# the Debian package installed into a clean Debian 12, then into a booted Debian 12 desktop where a
# managed child logs in. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
# The format (swift-format, 120 columns) is checked first; the tests run either way, and a
# format that is not the project's fails the run at the end.
format=0
scripts/check-format.sh || format=$?
swift build --build-tests
# The translations, where the programs of the build folder read them (.build/locale).
scripts/compile-translations.sh

# The whole log goes by as usual; when something failed, its failures are said again at
# the end, where a CI page that shows only the last lines of a long log still shows them.
log=$(mktemp)
prebuild_log=$(mktemp)
# The package the package test builds, which the desktop test then installs (one release build).
packages=$(mktemp -d /var/tmp/screenward-test-packages.XXXXXX)
trap 'rm -f "$log" "$prebuild_log"; rm -rf "$packages"' EXIT
# The whole suite, as root, ends with the package test, whose release build takes minutes on
# its own: it is made meanwhile, at the lowest priority, on the processors the suite leaves idle
# (most of its time is spent waiting on X servers and daemons); the package's own build is then
# only a check. Its output is shown if it failed (the package test's build says why again).
prebuild=""
if [ $# -eq 0 ] && [ "$(id -u)" -eq 0 ]; then
  (nice -n 19 bash -c '. scripts/env.sh && build_release screenward-agent screenward-multicall') \
    >"$prebuild_log" 2>&1 &
  prebuild=$!
fi
status=0
if [ $# -eq 0 ]; then
  # The test program itself (what `swift test --skip-build` runs), so that SwiftPM's lock on
  # .build, which the release build above holds while it builds, does not hold the suite back.
  .build/debug/ScreenwardPackageTests.xctest 2>&1 | tee "$log" || status=$?
else
  swift test --skip-build "$@" 2>&1 | tee "$log" || status=$?
fi
# The whole suite (no arguments): then the time-bound tests again at chosen clock times and
# zones (scripts/test-clocks.sh), so that no test depends on the hour it runs at.
clocks=0
package=0
desktop=0
if [ $# -eq 0 ]; then
  scripts/test-clocks.sh 2>&1 | tee -a "$log" || clocks=$?
  if [ -n "$prebuild" ] && ! wait "$prebuild"; then
    echo "screenward: the package's release build, made during the suite, failed:"
    tail -n 40 "$prebuild_log"
  fi
  # And the Debian package, built and installed into a clean Debian 12 (scripts/test-package.sh).
  scripts/test-package.sh --keep-package "$packages" 2>&1 | tee -a "$log" || package=$?
  # And that package on a booted Debian 12 desktop, where a managed child logs in at the
  # greeter (scripts/test-desktop.sh). Without a package from the package test it builds its
  # own, unless the package test failed (its build would most likely fail again).
  deb=$(find "$packages" -name 'screenward_*.deb' | head -n1)
  if [ -n "$deb" ]; then
    scripts/test-desktop.sh --package "$deb" 2>&1 | tee -a "$log" || desktop=$?
  elif [ "$package" -eq 0 ]; then
    scripts/test-desktop.sh 2>&1 | tee -a "$log" || desktop=$?
  else
    echo "test-desktop.sh: FAILED: not run, the package test built no package" | tee -a "$log"
    desktop=1
  fi
fi
if [ "$status" -ne 0 ] || [ "$clocks" -ne 0 ] || [ "$package" -ne 0 ] || [ "$desktop" -ne 0 ]; then
  echo
  echo "screenward: the tests failed (exit $status; at chosen clocks: exit $clocks; the package: exit $package;" \
    "the desktop: exit $desktop);"
  echo "what failed, again:"
  grep -E "(: error: |^Test Case '.*' failed )" "$log" | cut -c1-700 | tail -n 60 || echo "(no XCTest failure lines: see the log above)"
  # Which clocks those of the second part failed at (scripts/test-clocks.sh's own summary).
  sed -n '/^screenward: time-bound tests failed at a chosen clock:/,$p' "$log"
  grep -E "^(  FAILED|test-package.sh: FAILED|test-desktop.sh: FAILED)" "$log" || true
  [ "$status" -ne 0 ] || status=$clocks
  [ "$status" -ne 0 ] || status=$package
  [ "$status" -ne 0 ] || status=$desktop
fi
if [ "$format" -ne 0 ]; then
  echo "screenward: the format is not the project's (scripts/check-format.sh, at the start of this log)"
  [ "$status" -ne 0 ] || status=$format
fi
exit "$status"
