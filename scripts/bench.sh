#!/usr/bin/env bash
# Builds in release mode and runs the benchmarks (all of them, or the one named with
# its options); figures and verdicts are printed and written to bench-results/<name>.json.
#   scripts/bench.sh                       tracking, thresholds, launch, monitor, shield, rules, picker and, as
#                                          root, agent-kill, child-boundary (child mode: makes users) and web
#                                          (the browsers' policies and /etc/hosts are root's), household
#                                          (a PostgreSQL server run as a user of its own), video (mpv and the
#                                          browsers playing with no input, about 10 minutes), displays (the
#                                          agent on X11, sway, GNOME Shell and KWin, run as an account it makes) and desktop (the
#                                          package on a booted Debian 12: 20 greeter logins and 20 console
#                                          logins timed, scripts/test-desktop.sh --figures 20; it builds the
#                                          package first)
#   scripts/bench.sh thresholds --apps 2   one benchmark with its options
# Exit status: non-zero when a benchmark missed a target (2) or could not run;
# with all of them, each runs, and the script then says which failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
# The child-mode rigs (agent-kill, rules) copy homework, screenward-tray and screenward-picker for the managed user too.
# The web benchmark's browsers start screenward-web-host.
build_release screenward-bench screenward-agent screenward screenward-testwindow screenward-fake-logind screenward-daemon homework screenward-tray screenward-report screenward-picker screenward-web-host
scripts/compile-translations.sh
if [ "${1:-}" = desktop ]; then
    shift
    exec scripts/test-desktop.sh --figures 20 "$@"
elif [ "$#" -gt 0 ]; then
    exec .build/release/screenward-bench "$@"
fi
failed=()
benchmarks=(tracking thresholds launch monitor shield rules report picker)
if [ "$(id -u)" -eq 0 ]; then
    benchmarks+=(agent-kill child-boundary web household video displays desktop)
else
    echo "scripts/bench.sh: agent-kill and child-boundary need root (they create a managed user and run the system daemon), web needs root (the browsers' policies), household needs root (its PostgreSQL server runs as a user of its own), video needs root (the browsers' policies), displays needs root (the compositors run as an account it makes): skipped"
fi
for benchmark in "${benchmarks[@]}"; do
    status=0
    if [ "$benchmark" = desktop ]; then
        scripts/test-desktop.sh --figures 20 || status=$?
    else
        .build/release/screenward-bench "$benchmark" || status=$?
    fi
    if [ "$status" -eq 2 ]; then
        failed+=("$benchmark (missed a target)")
    elif [ "$status" -ne 0 ]; then
        failed+=("$benchmark (could not run: exit status $status)")
    fi
    echo
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "scripts/bench.sh: ${#failed[@]} of ${#benchmarks[@]} benchmarks failed: $(IFS=';'; echo "${failed[*]}" | sed 's/;/; /g')" >&2
    exit 1
fi
echo "scripts/bench.sh: all ${#benchmarks[@]} benchmarks met their targets"
