#!/usr/bin/env bash
# The README's run command. Builds Screenward (release) and runs the agent:
# - in this session, if it has a display: its Wayland compositor ($WAYLAND_DISPLAY), else its X
#   display ($DISPLAY) (arguments go to screenward-agent);
# - otherwise in a private Xvfb + openbox session with demo windows, switching the
#   focus on a script and printing what the agent measured.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
scripts/install-deps.sh
. scripts/env.sh
build_release screenward-agent screenward screenward-testwindow worklog
scripts/compile-translations.sh
bin="$repo/.build/release"

if [ -n "${WAYLAND_DISPLAY:-}" ] || { [ -n "${DISPLAY:-}" ] && xdpyinfo >/dev/null 2>&1; }; then
  exec "$bin/screenward-agent" "$@"
fi

work=$(mktemp -d /tmp/screenward-demo.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

echo "No display: starting a private Xvfb + openbox session for a demo."
start_private_x_session "$work" "$work"

# The demo's own catalog and ledger: nothing of yours is read or written.
export SCREENWARD_HOME="$work/home"
export XDG_DATA_HOME="$work/data"
export XDG_DATA_DIRS="$repo/data/demo"

mkfifo "$work/windows-in"
"$bin/screenward-testwindow" \
  --window "demo-editor.DemoEditor:Text Editor" \
  --window "demo-browser.DemoBrowser:Web Browser" \
  --window "demo-game.DemoGame:Space Game" <"$work/windows-in" >"$work/windows" 2>&1 &
pids+=($!)
exec 4>"$work/windows-in"
for _ in $(seq 100); do [ "$(wc -l <"$work/windows")" -ge 3 ] && break; sleep 0.1; done
mapfile -t windows <"$work/windows"

# On the private display, whatever Wayland display the environment names.
"$bin/screenward-agent" --display "$DISPLAY" --verbose 2>"$work/agent.log" &
agent=$!
pids+=($agent)
for _ in $(seq 100); do grep -q "tracking" "$work/agent.log" && break; sleep 0.1; done
echo "Agent running on $DISPLAY (log: $work/agent.log)."
echo

names=("Text Editor" "Web Browser" "Space Game")
plan=(0:3.0 1:2.0 2:1.5 0:1.0 1:0.5)
declare -A planned=()
echo "Scripted focus timeline:"
for step in "${plan[@]}"; do
  index=${step%%:*}
  seconds=${step##*:}
  xdotool mousemove_relative -- 1 0   # someone is at the keyboard: not idle
  xdotool windowactivate "${windows[$index]}" 2>/dev/null || true
  printf '  %-12s %4.1f s\n' "${names[$index]}" "$seconds"
  planned[$index]=$(awk -v a="${planned[$index]:-0}" -v b="$seconds" "BEGIN { print a + b }")
  sleep "$seconds"
done
echo
echo "Planned totals: Text Editor ${planned[0]} s, Web Browser ${planned[1]} s, Space Game ${planned[2]} s"
echo
"$bin/screenward" status
echo

# The Screen Time API: the talk's Worklog app, in its own processes, through the agent.
# Its monitor is installed, not run: the agent starts it when a callback is due.
echo "Worklog (WWDC22 demo) on the Screen Time API:"
"$bin/worklog" install
# Before an app gets access the agent asks, in a dialog naming the app and its program (a
# person types their password; root's real key press is enough). The demo moves to Allow
# (Tab) and presses Enter for you, once the dialog has been up for a second (Allow does
# nothing before that).
"$bin/worklog" setup &
setup=$!
if dialog=$(timeout 20 xdotool search --sync --name "Screenward: Screen Time access" | head -1) && [ -n "$dialog" ]; then
  xdotool windowactivate --sync "$dialog" 2>/dev/null || true
  sleep 1.3
  if command -v import >/dev/null; then
    import -window root "${SCREENWARD_DEMO_ACCESS_SCREENSHOT:-/tmp/screenward-demo-access.png}" 2>/dev/null || true
  fi
  xdotool key Tab Return
fi
wait "$setup"
"$bin/screenward" shields
"$bin/worklog" allow-evenings --from "$(date -d '-1 hour' +%H:%M)" --until "$(date -d '+1 hour' +%H:%M)"
for _ in $(seq 100); do "$bin/worklog" status | grep -q "social: allowed" && break; sleep 0.1; done
echo "An evening running now (registered inside it: intervalDidStart came at once, to the monitor the agent started):"
"$bin/worklog" status
"$bin/screenward" extensions
echo

# A shield on screen: the command line shields Space Game; the agent covers its window.
echo "Shielding Space Game from the command line:"
"$bin/screenward" shield add --app wmclass:DemoGame
xdotool windowactivate "${windows[2]}" 2>/dev/null || true
sleep 0.5
"$bin/screenward" shields | sed -n '/Covered now/,$p'
shot="${SCREENWARD_DEMO_SCREENSHOT:-/tmp/screenward-demo-shield.png}"
if command -v import >/dev/null && import -window root "$shot" 2>/dev/null; then
  echo "A screenshot of the screen with the shield: $shot"
fi
"$bin/screenward" shield remove --app wmclass:DemoGame >/dev/null
echo
kill -TERM "$agent"
wait "$agent" || true
echo "What the agent measured:"
"$bin/screenward" usage
echo
"$bin/screenward" usage --json
