#!/usr/bin/env bash
# Makes the README's shield screenshots (docs/screenshots/) in a private Xvfb + openbox
# session: a few windows, and a shield over them from screenward-shieldview.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
swift build --product screenward-shieldview
swift build --product screenward-testwindow
bin=.build/debug
work=$(mktemp -d /tmp/screenward-shots.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start_private_x_session "$work"

# Something to blur: three overlapping windows where the shield goes.
mkfifo "$work/windows-in"
"$bin/screenward-testwindow" --window "doc.Document:Document - chapter 3" --window "notes.Notes:Notes" \
  --window "paint.Paint:Paint" <"$work/windows-in" >"$work/windows" 2>/dev/null &
pids+=($!)
exec 4>"$work/windows-in"
for _ in $(seq 100); do [ "$(wc -l <"$work/windows")" -ge 3 ] && break; sleep 0.1; done
mapfile -t windows <"$work/windows"
xdotool windowsize "${windows[0]}" 700 420 windowmove "${windows[0]}" 200 130
xdotool windowsize "${windows[1]}" 420 300 windowmove "${windows[1]}" 640 330
xdotool windowsize "${windows[2]}" 380 260 windowmove "${windows[2]}" 260 400
sleep 0.5

frame=900x560+190+120
shoot() {  # name, shieldview arguments...
  local name=$1
  shift
  mkfifo "$work/$name-in"
  "$bin/screenward-shieldview" --frame "$frame" "$@" <"$work/$name-in" >"$work/$name-out" 2>/dev/null &
  local view=$!
  exec 5>"$work/$name-in"
  for _ in $(seq 100); do grep -q "^shown" "$work/$name-out" 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  import -window root -crop "$frame" +repage "docs/screenshots/$name.png"
  echo quit >&5
  exec 5>&-
  wait "$view" 2>/dev/null || true
  echo "docs/screenshots/$name.png"
}
shoot shield-default --app-name Document
shoot shield-custom --app-name Document --configuration docs/screenshots/shield-custom.json
