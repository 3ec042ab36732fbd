#!/usr/bin/env bash
# Installs Screenward for every user of this Debian 12 machine (child mode needs it), or
# removes it. Run as root.
#
#   scripts/install.sh                    build (release, self-contained) and install
#   scripts/install.sh --binaries DIR     install programs already built in DIR
#   scripts/install.sh --uninstall        remove what was installed; keep the state
#   scripts/install.sh --uninstall --purge
#                                         also remove /var/lib/screenward (every managed
#                                         user's usage), the group and the system user
#
# What it installs: screenward, screenward-agent and screenward-daemon in $PREFIX/bin
# (default /usr/local), their data in $PREFIX/share/screenward, the documentation in
# $PREFIX/share/doc/screenward, the daemon's systemd unit, its PAM service file, its
# tmpfiles snippet and its sysctl snippet (ptrace for root only), the folder of installed
# apps' manifests (/usr/share/screenward/apps); it creates the group screenward-guardians and the system user
# screenward (the account child-mode session agents run as), and starts the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
binaries=""
uninstall=false
purge=false
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --binaries) binaries="$2"; shift 2 ;;
    --uninstall) uninstall=true; shift ;;
    --purge) purge=true; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo scripts/install.sh): it installs a system daemon" >&2
  exit 1
fi
if $purge && ! $uninstall; then
  echo "install.sh: --purge goes with --uninstall" >&2
  exit 2
fi

programs=(screenward screenward-agent screenward-daemon screenward-tray screenward-report screenward-picker)
unit=/etc/systemd/system/screenward-daemon.service
pam=/etc/pam.d/screenward
tmpfiles=/usr/lib/tmpfiles.d/screenward.conf
sysctl_snippet=/etc/sysctl.d/60-screenward.conf
# The tray starts in every desktop session (XDG autostart).
tray_autostart=/etc/xdg/autostart/screenward-tray.desktop
apps=/usr/share/screenward/apps
systemd_running() { [ -d /run/systemd/system ]; }

if $uninstall; then
  if systemd_running; then
    systemctl disable --now screenward-daemon.service 2>/dev/null || true
  fi
  for program in "${programs[@]}"; do rm -f "$prefix/bin/$program"; done
  # Our data files only: with --prefix /usr the folder also holds apps' manifests.
  rm -f "$prefix/share/screenward/categories.json" "$prefix/share/screenward/shield.json" "$prefix/share/screenward/rules.json"
  rmdir "$prefix/share/screenward" 2>/dev/null || true
  rm -rf "$prefix/share/doc/screenward"
  rm -f "$unit" "$pam" "$tmpfiles" "$sysctl_snippet" "$tray_autostart"
  # Apps install their manifests here; the folder goes only once they are all gone.
  rmdir "$apps" "$(dirname "$apps")" 2>/dev/null || true
  systemd_running && systemctl daemon-reload
  if $purge; then
    rm -rf /var/lib/screenward /var/lib/screenward-extensions /run/screenward
    getent passwd screenward >/dev/null && userdel screenward
    getent passwd screenward-extensions >/dev/null && userdel screenward-extensions
    getent group screenward-guardians >/dev/null && groupdel screenward-guardians
    echo "Screenward removed, with its state, the group screenward-guardians and the users screenward and screenward-extensions."
  else
    echo "Screenward removed. Kept: /var/lib/screenward (managed users' usage and events),"
    echo "/var/lib/screenward-extensions (apps' extensions' data), the group screenward-guardians and the"
    echo "users screenward and screenward-extensions; --uninstall --purge removes them too."
  fi
  exit 0
fi

if [ -z "$binaries" ]; then
  scripts/install-deps.sh
  . scripts/env.sh
  build_release "${programs[@]}"
  binaries=.build/release
fi
for program in "${programs[@]}"; do
  if [ ! -x "$binaries/$program" ]; then
    echo "install.sh: $binaries/$program is missing: build it first, or leave out --binaries" >&2
    exit 1
  fi
done

install -d -m 0755 "$prefix/bin" "$prefix/share/screenward" "$prefix/share/doc/screenward"
for program in "${programs[@]}"; do install -m 0755 "$binaries/$program" "$prefix/bin/$program"; done
install -m 0644 data/categories.json data/shield.json data/rules.json "$prefix/share/screenward/"
install -m 0644 docs/architecture.md docs/enforcement.md docs/extensions.md docs/rules.md "$prefix/share/doc/screenward/"
sed "s|^Exec=screenward-tray|Exec=$prefix/bin/screenward-tray|" desktop/screenward-tray.desktop >"$tray_autostart"
chmod 0644 "$tray_autostart"
sed "s|/usr/local/bin/|$prefix/bin/|; s|/usr/local/share/|$prefix/share/|" desktop/system/screenward-daemon.service >"$unit"
chmod 0644 "$unit"
install -m 0644 desktop/pam/screenward "$pam"
install -D -m 0644 desktop/system/screenward.tmpfiles "$tmpfiles"
install -D -m 0644 desktop/sysctl/60-screenward.conf "$sysctl_snippet"
install -d -m 0755 "$apps"
# -e: a kernel without Yama has no ptrace_scope. A container may not let us set it at all.
if ! sysctl -e -q -p "$sysctl_snippet" 2>/dev/null; then
  echo "install.sh: could not apply $sysctl_snippet now (a container?); it applies at the next boot" >&2
fi

getent group screenward-guardians >/dev/null || groupadd --system screenward-guardians
getent passwd screenward >/dev/null ||
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group screenward
# Apps' extensions for managed users run as a user of their own: not the child, not root.
getent passwd screenward-extensions >/dev/null ||
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group screenward-extensions

if systemd_running; then
  systemd-tmpfiles --create "$tmpfiles"
  systemctl daemon-reload
  systemctl enable --now screenward-daemon.service
  echo "Screenward installed; the daemon runs (systemctl status screenward-daemon)."
else
  install -d -m 0700 /var/lib/screenward
  install -d -m 0755 /var/lib/screenward-extensions
  install -d -m 0755 /run/screenward
  echo "Screenward installed. systemd is not running here: start the daemon yourself,"
  echo "  $prefix/bin/screenward-daemon &"
fi
echo "Next: add a guardian (adduser NAME screenward-guardians), then as them: screenward child add CHILD."
