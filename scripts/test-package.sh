#!/usr/bin/env bash
# The Debian package as a person installs it (docs/packaging.md): built by scripts/package.sh,
# installed with apt into a clean Debian 12 made by debootstrap, then upgraded to a newer
# build and purged. In that system:
#   - every program answers --help, and `man screenward` (and each page) renders without a warning;
#   - the translations' catalogs are installed;
#   - systemd-analyze verify accepts the units;
#   - the users screenward, screenward-extensions and the group screenward-guardians exist;
#   - the daemon starts (as its unit starts it) and answers `screenward child list` as root;
#   - a managed user's rules are there after the upgrade, and the upgrade restarts the daemon;
#   - `apt purge` leaves no file, user or group of Screenward's.
# Needs root and Debian's mirror ($SCREENWARD_DEBIAN_MIRROR, default deb.debian.org). Outside
# CI it skips when it cannot run; with CI=true it fails instead.
#   scripts/test-package.sh
#   scripts/test-package.sh --keep-package DIR   also leaves the package it built (the source's
#                                                version) in DIR, for scripts/test-desktop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep-package) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-package.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

cannot_run() {
  if [ "${CI:-}" = true ]; then
    echo "test-package.sh: FAILED: $1 (with CI=true this test must run)" >&2
    exit 1
  fi
  echo "test-package.sh: skipped: $1"
  exit 0
}
[ "$(id -u)" -eq 0 ] || cannot_run "it needs root (debootstrap, chroot)"
scripts/install-deps.sh
mirror=${SCREENWARD_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# Not /tmp: the new system's programs must be able to run from it.
work=$(mktemp -d /var/tmp/screenward-package-test.XXXXXX)
root=$work/root
daemon=""
debootstrap=""
cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi
  if [ -n "$debootstrap" ]; then kill "$debootstrap" 2>/dev/null || true; wait "$debootstrap" 2>/dev/null || true; fi
  for mount in dev/pts dev sys proc; do
    if mountpoint -q "$root/$mount" 2>/dev/null; then umount -l "$root/$mount" || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

failures=0
check() {  # description, command...
  local description=$1
  shift
  if "$@" >"$work/check.log" 2>&1; then
    echo "  ok      $description"
  else
    echo "  FAILED  $description"
    sed 's/^/          /' "$work/check.log" | tail -n 20
    failures=$((failures + 1))
  fi
}
# A command in the new system, as root, with a clean environment.
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

version=$(dpkg-parsechangelog -S Version)
newer="$version+upgrade-test"
# The clean Debian 12 is made while the packages build: debootstrap waits on the mirror, the
# build on the processors.
echo "test-package.sh: a clean Debian 12 (debootstrap --variant=minbase bookworm, $mirror), in the background"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 &
debootstrap=$!
echo "test-package.sh: building the package ($version) and a newer build ($newer)"
# Both compressed lightly (xz -1: a minute less; the contents are the same as the default
# build's): the size is scripts/package.sh's default build's figure, not this test's subject.
scripts/package.sh --fast --output "$work/packages"
scripts/package.sh --version "$newer" --fast --output "$work/packages"
first=$work/packages/screenward_${version}_amd64.deb
second=$work/packages/screenward_${newer}_amd64.deb
if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$first" "$keep/"; fi

made=0
wait "$debootstrap" || made=$?
debootstrap=""
if [ "$made" -ne 0 ]; then
  tail -n 20 "$work/debootstrap.log" >&2
  cannot_run "debootstrap could not make a Debian 12 from $mirror"
fi
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$first" "$second" "$root/tmp/"
in_root apt-get update -q >"$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; exit 1; }

echo "test-package.sh: apt install ./$(basename "$first")"
if ! in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "/tmp/$(basename "$first")" man-db >"$work/install.log" 2>&1; then
  tail -n 40 "$work/install.log" >&2
  echo "test-package.sh: FAILED: the package did not install" >&2
  exit 1
fi
grep -E "^(Screenward|  )" "$work/install.log" | sed 's/^/  | /' || true
# The browsers' extension, installed by the package's script with `screenward browsers install`
# run by name from / (the script warns rather than fail the install).
extension_installed() {
  ! grep -E "browsers' extension was not installed|cannot find Screenward's data" "$work/install.log"
}
check "the package's script installs the browsers' extension, without a warning" extension_installed
check "the browsers' extension is installed for Chromium" \
  test -e "$root/etc/chromium/native-messaging-hosts/org.screenward.web.json"

programs=(screenward screenward-agent screenward-daemon screenward-tray screenward-report screenward-picker
  screenward-web-host)
answers_help() { in_root "$1" --help | grep -q "USAGE: $1"; }
for program in "${programs[@]}"; do check "$program --help" answers_help "$program"; done
renders() {  # page: renders, and groff has nothing to say about it
  local out
  out=$(in_root env MANWIDTH=80 man --warnings -P cat "$@" 2>&1 >/dev/null)
  [ -z "$out" ] || { echo "$out"; return 1; }
  in_root env MANWIDTH=80 man -P cat "$@" | grep -q "SCREENWARD"
}
check "man screenward renders" renders screenward
check "man 7 screenward renders" renders 7 screenward
for program in "${programs[@]:1}"; do check "man $program renders" renders "$program"; done
check "systemd-analyze verify screenward-daemon.service" \
  in_root systemd-analyze verify /lib/systemd/system/screenward-daemon.service
check "systemd-analyze verify the agent's user unit" \
  in_root systemd-analyze verify /usr/lib/systemd/user/screenward-agent.service
catalogs() { for language in $(cat po/LINGUAS); do test -s "$root/usr/share/locale/$language/LC_MESSAGES/screenward.mo" || return 1; done; }
check "the translations' catalogs are in /usr/share/locale ($(cat po/LINGUAS))" catalogs
check "the user screenward exists" in_root getent passwd screenward
check "the user screenward-extensions exists" in_root getent passwd screenward-extensions
check "the group screenward-guardians exists" in_root getent group screenward-guardians

# There is no systemd running in the new system: the daemon starts as its unit starts it.
exec_start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/screenward-daemon.service")
start_daemon() {
  # Not through in_root: a function run in the background is a subshell, and killing it would
  # leave the daemon running. chroot and env exec, so $! is the daemon itself.
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 $exec_start \
    >>"$work/daemon.log" 2>&1 &
  daemon=$!
  for _ in $(seq 100); do
    [ -S "$root/run/screenward/daemon.sock" ] && in_root screenward child list >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$work/daemon.log"
  return 1
}
stop_daemon() {
  kill "$daemon" 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  daemon=""
}
check "the daemon starts ($exec_start) and answers child list as root" start_daemon
in_root useradd --create-home kid
check "a managed user: screenward child add kid" in_root screenward child add kid
check "a limit for them: screenward limit add Games --category Game --daily 1h --user kid" \
  in_root screenward limit add Games --category Game --daily 1h --user kid
stop_daemon

echo "test-package.sh: apt install ./$(basename "$second") (the upgrade)"
if ! in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/$(basename "$second")" \
  >"$work/upgrade.log" 2>&1; then
  tail -n 40 "$work/upgrade.log" >&2
  echo "test-package.sh: FAILED: the newer package did not install over the first" >&2
  exit 1
fi
installed_version() { [ "$(in_root dpkg-query -W -f='${Version}' screenward)" = "$1" ]; }
check "the newer build is installed" installed_version "$newer"
# Without systemd the upgrade's restart cannot be seen: its maintainer script must ask for it.
check "the upgrade restarts the daemon (its postinst restarts screenward-daemon.service)" \
  grep -q "_dh_action=restart" "$root/var/lib/dpkg/info/screenward.postinst"
check "the daemon starts after the upgrade" start_daemon
lists() { in_root "${@:2}" | grep -q "$1"; }
check "kid is still managed" lists kid screenward child list
check "kid's limit is still there" lists Games screenward limit list --user kid
stop_daemon

echo "test-package.sh: apt purge screenward"
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q screenward >"$work/purge.log" 2>&1 ||
  { tail -n 40 "$work/purge.log" >&2; failures=$((failures + 1)); }
# Not counted: man-db's cache of the pages this test read (its daily job drops those whose
# page is gone), the shadow tools' backups of the account files (passwd-, group-: the state
# before the last change), and apt's and dpkg's logs and caches.
leftovers() {
  local found
  found=$(find "$root" -xdev \( -path "$root/proc" -o -path "$root/sys" -o -path "$root/dev" -o -path "$root/tmp" \
    -o -path "$root/var/cache/man" \) -prune -o -iname '*screenward*' -print)
  found+=$(grep -rIl --exclude-dir=apt --exclude-dir=man --exclude='*.log' --exclude='*-' --exclude='*-old' \
    -i screenward "$root/etc" "$root/usr" "$root/var" 2>/dev/null)
  [ -z "$found" ] || { echo "$found"; return 1; }
}
check "nothing of Screenward's is left (files, folders, mentions in /etc, /usr, /var)" leftovers
# No browser is installed here: the folders the extension's policies and manifests needed
# were Screenward's to make, and are its to take away.
folders_left() { ! ls -d "$root/etc/chromium" "$root/etc/firefox" "$root/usr/lib/mozilla" 2>/dev/null; }
check "the browsers' folders it made are gone" folders_left
accounts_left() { ! grep -i screenward "$root/etc/passwd" "$root/etc/group" "$root/etc/shadow" "$root/etc/gshadow"; }
check "no user or group of Screenward's is left" accounts_left

if [ "$failures" -ne 0 ]; then
  echo "test-package.sh: $failures checks FAILED"
  exit 1
fi
echo "test-package.sh: the package installs, upgrades and purges cleanly"
