# Sourced by the scripts: puts Swift on PATH when it lives in /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi

# How the programs people run are built: release, with the Swift runtime and Foundation
# linked in. The binaries then run without a Swift toolchain (copied to ~/.local/bin or
# installed for every user), and the agent loads one executable instead of a dozen Swift
# libraries: its resident set with a shield shown is about 5 MiB smaller (README, benchmarks).
# By product: the test-support target needs XCTest, which has no static build.
#
# Every function, Swift's and C's, in a section of its own: the agent's link then lays
# out the code it runs in one stretch (Sources/screenward-agent/hot-functions.order,
# made by scripts/profile-agent-layout.sh), and the pages it faults in hold code it
# runs rather than its neighbours. Peak RSS with a shield shown: 58.1 -> 45.8 MiB.
# SwiftPM does not recompile Swift modules when only these flags change: a release
# folder built without them keeps its objects until removed (rm -rf .build/*/release).
# Nor, seen once, a module whose dependency gained an internal stored property: release
# builds inline across modules, and a stale object allocated the old, smaller object
# (heap corruption in screenward-bench). After such a change, build release from a
# clean folder, as CI and a fresh clone do.
release_flags=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections)
build_release() {
  local product
  for product in "$@"; do
    swift build -c release --static-swift-stdlib "${release_flags[@]}" --product "$product"
  done
}

# A private X session for the scripts (run.sh's demo, screenshots, the layout profile):
# Xvfb on a display it picks itself, then openbox, returning once openbox manages windows
# (it announces itself before that; its client list comes last). Exports DISPLAY and adds
# both processes to the caller's `pids` array. Logs go to LOGDIR/xvfb.log and
# LOGDIR/openbox.log, or nowhere without LOGDIR.
start_private_x_session() {  # work folder, [log folder]
  local work=$1 xvfb_log=/dev/null openbox_log=/dev/null fd
  if [ -n "${2:-}" ]; then xvfb_log=$2/xvfb.log openbox_log=$2/openbox.log; fi
  exec {fd}>"$work/display"
  Xvfb -displayfd "$fd" -screen 0 1280x800x24 -nolisten tcp >"$xvfb_log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
  exec {fd}>&-
  export DISPLAY=":$(head -n1 "$work/display")"
  openbox --sm-disable >"$openbox_log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do xprop -root _NET_CLIENT_LIST 2>/dev/null | grep -q "_NET_CLIENT_LIST(WINDOW)" && break; sleep 0.1; done
}
