#!/usr/bin/env bash
# Checks application identity on real programs from Debian's archive, beyond the small
# ones CI tests (Tests/X11SessionTests/RealApplicationsTests.swift): browsers, LibreOffice,
# GTK 4, Java, Wine. Each program runs alone in a private Xvfb + openbox session with the
# real agent and the system's desktop entries; the table says which id the agent gave its
# focused window, whether its usage was filed under the expected id, and whether the window
# is covered once that id is shielded. Exits 1 when any program does not resolve to its
# menu entry or is not covered.
#
# Not run in CI: it installs about half a gigabyte (Firefox ESR, Chromium, LibreOffice, Wine).
#
#   scripts/check-applications.sh [--no-install] [--session-bus] [name...]
#
#   --no-install    use what is installed; a missing program is a failed row
#   --session-bus   give each program a private session bus (GTK then sets
#                   _GTK_APPLICATION_ID); by default there is none, as under a bare X server
#   name...         only these rows (see the table below), e.g. mousepad wine-notepad
#
# Nothing of the user running it is touched: programs get a private HOME, XDG directories,
# Wine prefix and browser profiles, and only the private X display.
set -euo pipefail
cd "$(dirname "$0")/.."

install=yes
session_bus=no
only=()
for argument in "$@"; do
  case "$argument" in
    --no-install) install=no ;;
    --session-bus) session_bus=yes ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-applications: unknown option $argument" >&2; exit 2 ;;
    *) only+=("$argument") ;;
  esac
done

# name | toolkit | packages | expected desktop id | command (words split on spaces)
programs=(
  "mousepad|GTK 3|mousepad|org.xfce.mousepad.desktop|mousepad"
  "gnome-text-editor|GTK 4|gnome-text-editor|org.gnome.TextEditor.desktop|gnome-text-editor"
  "xterm|Xaw|xterm|debian-xterm.desktop|xterm"
  "uxterm|Xaw|xterm|debian-uxterm.desktop|uxterm"
  "sopwith|SDL 2|sopwith|sopwith.desktop|/usr/games/sopwith"
  "featherpad|Qt 5|featherpad|featherpad.desktop|featherpad"
  "firefox-esr|Firefox (GTK 3)|firefox-esr|firefox-esr.desktop|firefox-esr --new-instance about:blank"
  "chromium|Chromium|chromium|chromium.desktop|chromium --no-first-run --password-store=basic about:blank"
  "libreoffice-writer|LibreOffice (VCL)|libreoffice-writer|libreoffice-writer.desktop|libreoffice --writer"
  "libreoffice-calc|LibreOffice (VCL)|libreoffice-calc|libreoffice-calc.desktop|libreoffice --calc"
  "jedit|Java 17 (Swing)|jedit|jedit.desktop|jedit"
  "wine-notepad|Wine 8|wine wine64|wine-Programs-Notepad.desktop|wine notepad"
)

selected=()
for row in "${programs[@]}"; do
  name=${row%%|*}
  if [ ${#only[@]} -eq 0 ] || printf '%s\n' "${only[@]}" | grep -qx "$name"; then selected+=("$row"); fi
done
[ ${#selected[@]} -gt 0 ] || { echo "check-applications: no such program: ${only[*]}" >&2; exit 2; }

if [ "$install" = yes ]; then
  scripts/install-deps.sh
  packages=()
  for row in "${selected[@]}"; do
    IFS='|' read -r _ _ wanted _ _ <<<"$row"
    for package in $wanted; do
      dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || packages+=("$package")
    done
  done
  if [ ${#packages[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${packages[@]}"
  fi
fi

. scripts/env.sh
if [ -z "${SCREENWARD_BIN:-}" ]; then
  swift build --product screenward-agent >&2
  swift build --product screenward >&2
  SCREENWARD_BIN=.build/debug
fi
bin=$(cd "$SCREENWARD_BIN" && pwd)

work=$(mktemp -d /tmp/screenward-check.XXXXXX)
groups=()  # process groups this script started, ended by their id
end_groups() {
  for group in "${groups[@]}"; do kill -TERM -- "-$group" 2>/dev/null || true; done
  sleep 1
  for group in "${groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null || true; done
  groups=()
}
cleanup() {
  end_groups
  [ -d "$work/wine" ] && WINEPREFIX="$work/wine" wineserver -k 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "check-applications: stopped at line $LINENO: $BASH_COMMAND" >&2' ERR

# Starts a command in its own process group (setsid), logging to $1; sets $started.
start() {
  local log=$1
  shift
  setsid "$@" >"$log" 2>&1 </dev/null &
  started=$!
  groups+=("$started")
}

# Waits up to $1 seconds for a command to succeed.
wait_for() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.3
  done
}

json_value() {  # key: the first "key" : "value" of pretty-printed JSON on stdin
  sed -n "s/^ *\"$1\" : \"\\(.*\\)\",\\{0,1\\}\$/\\1/p" | head -n1
}

# A Wine prefix with a Start-menu shortcut to Notepad, which makes Wine's
# winemenubuilder write wine/Programs/Notepad.desktop (with StartupWMClass) under
# XDG_DATA_HOME, as installing a Windows program does.
setup_wine() {
  local prefix="$work/wine"
  export WINEPREFIX="$prefix" WINEDEBUG=-all
  wineboot -i >"$run/wineboot.log" 2>&1
  cat >"$prefix/drive_c/shortcut.js" <<'EOF'
var shell = new ActiveXObject("WScript.Shell");
var link = shell.CreateShortcut(shell.ExpandEnvironmentStrings(
  "%APPDATA%\\Microsoft\\Windows\\Start Menu\\Programs\\Notepad.lnk"));
link.TargetPath = "C:\\windows\\system32\\notepad.exe";
link.Save();
EOF
  wine cscript 'C:\shortcut.js' >"$run/shortcut.log" 2>&1
  wait_for 60 test -f "$XDG_DATA_HOME/applications/wine/Programs/Notepad.desktop"
}

failures=0
rows=()
fail() {  # reason: a failed row for the current program, whose session is ended
  rows+=("$name|$toolkit|$expected|($1)|-|-|FAIL")
  failures=$((failures + 1))
  end_groups
}
for row in "${selected[@]}"; do
  IFS='|' read -r name toolkit _ expected command <<<"$row"
  run="$work/$name"
  mkdir -p "$run/home/.config" "$run/home/.cache" "$run/data" "$run/runtime"
  chmod 700 "$run/runtime"
  read -r -a words <<<"$command"
  [ "$name" = chromium ] && words+=("--user-data-dir=$run/chromium")
  [ "$name" = chromium ] && [ "$(id -u)" -eq 0 ] && words+=(--no-sandbox)  # Chromium refuses root otherwise.
  if ! command -v "${words[0]}" >/dev/null 2>&1; then fail "not installed"; continue; fi

  # The private session: X server, window manager, and the environment of everything in it.
  exec 3>"$run/display"
  start "$run/xvfb.log" Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp
  exec 3>&-
  if ! wait_for 20 test -s "$run/display"; then fail "Xvfb did not start"; continue; fi
  export DISPLAY=":$(head -n1 "$run/display")"
  export HOME="$run/home" XDG_CONFIG_HOME="$run/home/.config" XDG_CACHE_HOME="$run/home/.cache"
  export XDG_DATA_HOME="$run/data" XDG_DATA_DIRS=/usr/local/share:/usr/share XDG_RUNTIME_DIR="$run/runtime"
  export WAYLAND_DISPLAY="" GDK_BACKEND=x11 QT_QPA_PLATFORM=xcb SDL_VIDEODRIVER=x11 SDL_AUDIODRIVER=dummy NO_AT_BRIDGE=1
  export DBUS_SESSION_BUS_ADDRESS="unix:path=$run/runtime/no-session-bus" SCREENWARD_HOME="$run/screenward"
  unset XAUTHORITY
  start "$run/openbox.log" openbox --sm-disable
  if ! wait_for 20 sh -c 'xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id"'; then
    fail "openbox did not start"
    continue
  fi

  [ "$name" = wine-notepad ] && { setup_wine || echo "check-applications: the Wine shortcut was not made: $(tail -3 "$run/shortcut.log")" >&2; }

  start "$run/agent.log" "$bin/screenward-agent" --idle-threshold 3600
  if ! wait_for 20 grep -q tracking "$run/agent.log"; then
    echo "check-applications: the agent did not start: $(tail -n 5 "$run/agent.log")" >&2
    fail "agent did not start"
    continue
  fi
  if [ "$session_bus" = yes ]; then
    start "$run/app.log" dbus-run-session -- "${words[@]}"
  else
    start "$run/app.log" "${words[@]}"
  fi

  # The id the agent gives the focused window: the expected one, or what it settled on.
  resolved="(nothing focused)"
  deadline=$((SECONDS + 90))
  while [ $SECONDS -lt $deadline ]; do
    focused=$("$bin/screenward" status --json 2>/dev/null | json_value focused_id)
    [ -n "$focused" ] && resolved=$focused
    [ "$focused" = "$expected" ] && break
    sleep 0.5
  done
  usage=no
  if "$bin/screenward" usage --json --since 2000-01-01 --until now 2>/dev/null | grep -q "\"id\" : \"$expected\""; then usage=yes; fi

  covered=no
  if "$bin/screenward" shield add --app "$expected" >"$run/shield.log" 2>&1; then
    deadline=$((SECONDS + 20))
    while [ $SECONDS -lt $deadline ]; do
      if "$bin/screenward" shields --json 2>/dev/null | grep -q "\"application\" : \"$expected\""; then covered=yes; break; fi
      sleep 0.5
    done
  else
    covered="no ($(tail -n1 "$run/shield.log"))"
  fi

  result=ok
  if [ "$resolved" != "$expected" ] || [ "$usage" != yes ] || [ "$covered" != yes ]; then
    result=FAIL
    failures=$((failures + 1))
    {
      echo "== $name: windows"
      for window in $(xprop -root _NET_CLIENT_LIST 2>/dev/null | grep -o '0x[0-9a-f]*'); do
        xprop -id "$window" WM_CLASS _GTK_APPLICATION_ID _NET_WM_PID 2>/dev/null | tr '\n' ' '
        echo
      done
      echo "== $name: agent log (end)"
      tail -n 15 "$run/agent.log"
    } >&2
  fi
  rows+=("$name|$toolkit|$expected|$resolved|$usage|$covered|$result")
  end_groups
  [ "$name" = wine-notepad ] && { WINEPREFIX="$work/wine" wineserver -k 2>/dev/null || true; }
  unset WINEPREFIX WINEDEBUG
done

echo
echo "Session bus for the programs: $session_bus"
{
  echo "program|toolkit|expected id|resolved id|usage filed|covered|result"
  printf '%s\n' "${rows[@]}"
} | if command -v column >/dev/null; then column -t -s '|'; else tr '|' '\t'; fi
echo "Electron: Debian 12 packages no Electron application, so none is checked here."
[ $failures -eq 0 ] || { echo "$failures of ${#rows[@]} failed" >&2; exit 1; }
