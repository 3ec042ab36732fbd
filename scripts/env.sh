# Sourced by the scripts: puts Swift on PATH when it lives in /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi

# How the programs people run are built: release, with the Swift runtime and Foundation
# linked in. The binaries then run without a Swift toolchain (copied to ~/.local/bin or
# installed for every user), and the agent loads one executable instead of a dozen Swift
# libraries: its resident set with a shield shown is about 5 MiB smaller (README, benchmarks).
# By product: the test-support target needs XCTest, which has no static build.
build_release() {
  local product
  for product in "$@"; do
    swift build -c release --static-swift-stdlib --product "$product"
  done
}
