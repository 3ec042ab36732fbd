#!/usr/bin/env bash
# Writes Sources/screenward-agent/hot-functions.order: the agent's functions that run
# in a session like the tracking benchmark's (start, focus changes, a shield shown over
# an application that is activated again and again, a clean stop), in the order they
# first run. The release link lays them out first, so the code a session runs is a few
# MiB together rather than scattered through the executable (Package.swift says why).
#
# Run it after changes that move much of the agent's work (the tracking benchmark's peak
# RSS creeping up says so), then rebuild. It runs the agent under valgrind's callgrind,
# which sees every function called, however briefly; that takes two or three minutes.
#
# The set of functions is stable from run to run; the order callgrind lists them in is
# not, and the figure moves with it: on 2026-11-26 three orders of the same 6,585
# functions gave 45.8, 46.9 and 47.4 MiB (scripts/bench.sh tracking). Compare the
# benchmark before and after, and keep the file that gives the lower figure.
#   scripts/profile-agent-layout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if ! command -v valgrind >/dev/null; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "profile-agent-layout.sh: needs valgrind (apt-get install valgrind, as root)" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind >/dev/null
fi
. scripts/env.sh
# The link names the file: an empty one lays nothing out (a first profile).
touch Sources/screenward-agent/hot-functions.order
build_release screenward-agent screenward screenward-testwindow

work=$(mktemp -d)
pids=()
cleanup() {
    exec 3>&- || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Valgrind cannot read the debug information Swift writes; the symbol table is enough.
cp .build/release/screenward-agent "$work/screenward-agent"
strip --strip-debug "$work/screenward-agent"

start_private_x_session "$work"

# The benchmark's isolation: its own home, no desktop catalog, no system daemon.
mkdir -p "$work/home" "$work/data"
export SCREENWARD_HOME="$work/home" SCREENWARD_DATA_DIR="$PWD/data" XDG_DATA_HOME="$work/data" \
    XDG_DATA_DIRS="$work/data" SCREENWARD_DAEMON_SOCKET="$work/no-daemon.sock"
# The demo windows stay until their standard input closes: a pipe this script holds open.
mkfifo "$work/windows-input"
.build/release/screenward-testwindow --window sentinel.Sentinel --window game.Game:Game \
    --window editor.Editor:Editor <"$work/windows-input" >/dev/null 2>&1 &
pids+=($!)
exec 3>"$work/windows-input"
sleep 2

valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --dump-instr=no --compress-strings=no \
    --compress-pos=no --demangle=no "$work/screenward-agent" --idle-threshold 3600 2>"$work/agent.log" &
agent=$!
for _ in $(seq 120); do grep -q ' info: tracking' "$work/agent.log" && break; sleep 1; done
grep -q ' info: tracking' "$work/agent.log" || { cat "$work/agent.log" >&2; exit 1; }
for class in Editor Game Sentinel Editor Game Sentinel; do
    xdotool search --class "$class" windowactivate 2>/dev/null || true
    sleep 0.5
done
.build/release/screenward shield add --app wmclass:Game >/dev/null
sleep 20
for _ in 1 2 3 4 5; do
    xdotool search --class Sentinel windowactivate 2>/dev/null || true
    sleep 1
    xdotool search --class Game windowactivate 2>/dev/null || true
    sleep 5
done
kill -TERM "$agent"
wait "$agent" || true

# callgrind names each function once ("fn=" under the object "ob=" it lies in); a
# recursive call gets a suffix ('2). Functions without a symbol are left out.
order=Sources/screenward-agent/hot-functions.order
{
    echo _start
    awk -v agent="$work/screenward-agent" '
        /^ob=/ { object = substr($0, 4) }
        /^fn=/ && object == agent {
            name = substr($0, 4); sub(/\x27[0-9]+$/, "", name)
            if (name !~ /^0x/ && !(name in seen)) { seen[name] = 1; print name }
        }' "$work/callgrind.out"
} >"$order"
echo "profile-agent-layout.sh: $(wc -l <"$order") functions in $order; rebuild the agent (build_release) to lay them out"
