#!/usr/bin/env bash
# Runs the time-bound tests again at chosen clock times and time zones, to show that none of
# them depends on the hour, the date or the zone it runs at. scripts/test.sh runs it after the
# whole suite; it can also run alone (after `swift build --build-tests`):
#
#   scripts/test-clocks.sh                 every clock below, every time-bound test class
#   scripts/test-clocks.sh RulesTests      every clock, the classes or modules named
#
# The clock is moved by Tests/Clock/test_clock.c, built here with the toolchain's clang and
# preloaded (LD_PRELOAD) into the test program: it and every process it starts (Xvfb, the
# agent, the daemon, the command line, runuser's children) see the real wall clock shifted by
# one fixed offset, so they agree with each other and time goes on at its usual pace; the
# monotonic clock is left alone. (Debian's libfaketime does the same, but under it Swift
# programs see no command-line arguments.) Each test class starts at the clock's local time,
# in the clock's zone (TZ; the child-mode rig gives its daemon that zone as the system's).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

# ZONE and a local time: HH:MM:SS (today there) or YYYY-MM-DD HH:MM:SS.
clocks=(
  # 30 s before midnight, 14 hours ahead of UTC: tests that cross into the next day (those
  # about one day's use start after it), and the local date is not UTC's.
  "Pacific/Kiritimati|23:59:30"
  # just before nine in the evening (a bedtime) in a zone with half an hour, behind UTC.
  "America/St_Johns|20:59:40"
  # 30 s before the spring change of daylight saving time: the day has 23 hours and 02:00
  # to 03:00 does not exist.
  "Europe/Berlin|2027-03-28 01:59:30"
)

# The test classes whose subject involves the calendar or the clock: days, schedules, limits,
# downtimes, reports, usage "today". A new test of that kind belongs here (docs/testing.md).
classes=(
  ScreenwardCoreTests DeviceActivityTests ScreenTimeAPITests
  RulesTests TrayTests TalkAppsTests ScreenTimeAgentTests ExtensionLaunchTests PickerTests ReportTests EnforcementTests
)
# Child mode's: in the first clock's zone (their daemon takes it for the system's), once, at
# the real time.
# The moved clock cannot reach into a managed session: the daemon starts agents, extensions
# and notifications with clean environments, and refuses apps started with LD_PRELOAD, both
# on purpose. Its rules are the same code as the agent's, which the classes above run moved.
zone_only=(ManagedRulesTests ManagedExtensionTests ChildAttackTests)
if [ $# -gt 0 ]; then
  requested=("$@")
  classes=()
  kept_zone_only=()
  for class in "${requested[@]}"; do
    if [[ " ${zone_only[*]} " == *" $class "* ]]; then kept_zone_only+=("$class"); else classes+=("$class"); fi
  done
  zone_only=("${kept_zone_only[@]}")
fi

clock_library=.build/test-clock/libscreenward-test-clock.so
mkdir -p "$(dirname "$clock_library")"
compiler=$(command -v clang || command -v cc || true)
if [ -z "$compiler" ]; then
  echo "screenward: no C compiler (clang from the Swift toolchain, or cc) to build the test clock" >&2
  exit 1
fi
"$compiler" -shared -fPIC -O2 -Wall -Werror -o "$clock_library" Tests/Clock/test_clock.c
clock_library="$(pwd)/$clock_library"
# First, that the clock keeps every kind of wait for a wall-clock instant, a year back and a
# year ahead (a wait it misses ends at once, or hangs: hence the timeout).
clock_check=.build/test-clock/test-clock-check
"$compiler" -O2 -Wall -Werror -pthread -o "$clock_check" Tests/Clock/test_clock_check.c
for year in -31536000 31536000; do
  if ! LD_PRELOAD="$clock_library" SCREENWARD_TEST_CLOCK_OFFSET="$year" timeout 30 "$clock_check"; then
    echo "screenward: the test clock does not keep waits for a wall-clock instant (offset $year s): fix Tests/Clock/test_clock.c" >&2
    exit 1
  fi
done

# The test program itself, run directly under the preloaded clock: each entry
# above, a module or a class, becomes its test cases' "Module.Class" specifiers.
tests=.build/debug/ScreenwardPackageTests.xctest
if [ ! -x "$tests" ]; then
  echo "screenward: $tests is not built: run swift build --build-tests first" >&2
  exit 1
fi
listing=$("$tests" --list-tests | grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/' | cut -d/ -f1 | sort -u)
specifiers() {
  echo "$listing" | awk -F. -v name="$1" '$1 == name || $2 == name' | paste -sd, -
}

# Each clock's classes run in order, and the clocks side by side (each test starts its own
# X server, agent and folders, so they share nothing; most of their time is waiting). Each
# lane's output is kept apart and shown whole, lane after lane, once all have ended.
run_clock() {
  local zone="$1" when="$2" failures="$3"
  shift 3
  local class cases target offset label
  for class in "$@"; do
    cases=$(specifiers "$class")
    # The offset that puts "now" at the clock's local time, taken just before the class starts.
    target=$(TZ="$zone" date -d "$when" +%s)
    offset=$((target - $(date +%s)))
    local moved=(LD_PRELOAD="$clock_library" SCREENWARD_TEST_CLOCK_OFFSET="$offset") class_zone="$zone"
    label="$class at $when in $zone"
    if [[ " ${zone_only[*]} " == *" $class "* ]]; then
      moved=()
      class_zone="${clocks[0]%%|*}"
      label="$class in $class_zone at the real time"
      echo "=== screenward: $label"
    else
      echo "=== screenward: $label (clock moved by ${offset} s)"
    fi
    if ! env TZ="$class_zone" "${moved[@]}" "$tests" "$cases" 2>&1; then
      echo "$label" >> "$failures"
    fi
  done
}

for class in "${classes[@]}" "${zone_only[@]}"; do
  if [ -z "$(specifiers "$class")" ]; then
    echo "screenward: no test module or class is named $class" >&2
    exit 2
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pids=()
lanes=0
for clock in "${clocks[@]}"; do
  if [ "${#classes[@]}" -gt 0 ]; then
    run_clock "${clock%%|*}" "${clock#*|}" "$work/failed" "${classes[@]}" > "$work/lane-$lanes.log" 2>&1 &
    pids+=($!)
    lanes=$((lanes + 1))
  fi
done
# Child mode's classes in a lane of their own, one after another: their rigs share the
# machine's session names and processes, so two of them never run at once.
if [ "${#zone_only[@]}" -gt 0 ]; then
  run_clock "${clocks[0]%%|*}" "${clocks[0]#*|}" "$work/failed" "${zone_only[@]}" > "$work/lane-$lanes.log" 2>&1 &
  pids+=($!)
  lanes=$((lanes + 1))
fi
for pid in "${pids[@]}"; do wait "$pid" || true; done
for ((lane = 0; lane < lanes; lane++)); do cat "$work/lane-$lane.log"; done
status=0
if [ -s "$work/failed" ]; then
  status=1
  echo
  echo "screenward: time-bound tests failed at a chosen clock:"
  sed 's/^/  /' "$work/failed"
fi
exit "$status"
