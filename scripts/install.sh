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
#   --root DIR                            install into (or remove from) the system image in
#                                         DIR as if it were /: its etc/passwd and etc/group
#                                         get the users and the group; nothing runs or starts
#
# What it installs: screenward, screenward-agent and screenward-daemon in $PREFIX/bin
# (default /usr/local), their data in $PREFIX/share/screenward, the documentation in
# $PREFIX/share/doc/screenward, the daemon's systemd unit, its PAM service file, its
# tmpfiles snippet and its sysctl snippet (ptrace for root only), the folder of installed
# apps' manifests (/usr/share/screenward/apps), the browsers' extension with its policies and
# native-messaging manifests (`screenward browsers install`); it creates the group screenward-guardians and the system user
# screenward (the account child-mode session agents run as), and starts the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
root=""
binaries=""
uninstall=false
purge=false
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --root) root="$(cd "$2" && pwd)"; shift 2 ;;
    --binaries) binaries="$2"; shift 2 ;;
    --uninstall) uninstall=true; shift ;;
    --purge) purge=true; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

programs=(screenward screenward-agent screenward-daemon screenward-tray screenward-report screenward-picker screenward-web-host)
# Paths as the installed system sees them; files go to "$root$path" ($root is empty for /).
unit=/etc/systemd/system/screenward-daemon.service
pam=/etc/pam.d/screenward
tmpfiles=/usr/lib/tmpfiles.d/screenward.conf
sysctl_snippet=/etc/sysctl.d/60-screenward.conf
# The tray starts in every desktop session (XDG autostart).
tray_autostart=/etc/xdg/autostart/screenward-tray.desktop
apps=/usr/share/screenward/apps
# Into another system image nothing is started or applied.
systemd_running() { [ -z "$root" ] && [ -d /run/systemd/system ]; }
# Accounts of the system being installed into (useradd --prefix edits $root/etc/passwd).
account_tool() { if [ -n "$root" ]; then "$1" --prefix "$root" "${@:2}"; else "$@"; fi; }
has_user() { if [ -n "$root" ]; then grep -q "^$1:" "$root/etc/passwd"; else getent passwd "$1" >/dev/null; fi; }
has_group() { if [ -n "$root" ]; then grep -q "^$1:" "$root/etc/group"; else getent group "$1" >/dev/null; fi; }

if $uninstall; then
  if systemd_running; then
    systemctl disable --now screenward-daemon.service 2>/dev/null || true
  fi
  # The browsers' extension, its policies and manifests (the administrator's other policies stay).
  if [ -x "$root$prefix/bin/screenward" ]; then
    "$root$prefix/bin/screenward" browsers remove --prefix "$prefix" --root "${root:-/}" || true
  fi
  for program in "${programs[@]}"; do rm -f "$root$prefix/bin/$program"; done
  # Our data files only: with --prefix /usr the folder also holds apps' manifests.
  rm -f "$root$prefix/share/screenward/categories.json" "$root$prefix/share/screenward/shield.json" "$root$prefix/share/screenward/rules.json"
  rm -rf "$root$prefix/share/screenward/web-extension"
  rm -rf "$root$prefix/share/gnome-shell/extensions/screenward@screenward.org"
  rmdir "$root$prefix/share/screenward" 2>/dev/null || true
  rm -rf "$root$prefix/share/doc/screenward"
  for language in $(cat po/LINGUAS); do
    rm -f "$root$prefix/share/locale/$language/LC_MESSAGES/screenward.mo"
    # The folders go when nothing else of the language is there (they were ours, then).
    rmdir "$root$prefix/share/locale/$language/LC_MESSAGES" "$root$prefix/share/locale/$language" 2>/dev/null || true
  done
  rm -f "$root$unit" "$root$pam" "$root$tmpfiles" "$root$sysctl_snippet" "$root$tray_autostart"
  # Apps install their manifests here; the folder goes only once they are all gone.
  rmdir "$root$apps" "$(dirname "$root$apps")" 2>/dev/null || true
  if systemd_running; then systemctl daemon-reload; fi
  if $purge; then
    rm -rf "$root/var/lib/screenward" "$root/var/lib/screenward-extensions" "$root/run/screenward"
    if has_user screenward; then account_tool userdel screenward; fi
    if has_user screenward-extensions; then account_tool userdel screenward-extensions; fi
    if has_group screenward-guardians; then account_tool groupdel screenward-guardians; fi
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

install -d -m 0755 "$root$prefix/bin" "$root$prefix/share/screenward" "$root$prefix/share/doc/screenward"
for program in "${programs[@]}"; do install -m 0755 "$binaries/$program" "$root$prefix/bin/$program"; done
install -m 0644 data/categories.json data/shield.json data/rules.json "$root$prefix/share/screenward/"
# The translations: gettext's catalogs, beside the programs' share/ folder.
for language in $(cat po/LINGUAS); do
  install -d -m 0755 "$root$prefix/share/locale/$language/LC_MESSAGES"
  msgfmt --check -o "$root$prefix/share/locale/$language/LC_MESSAGES/screenward.mo" "po/$language.po"
done
install -d -m 0755 "$root$prefix/share/screenward/web-extension"
install -m 0644 data/web-extension/* "$root$prefix/share/screenward/web-extension/"
# GNOME Shell's extension, where the Shell finds the system's (a folder of XDG_DATA_DIRS).
install -d -m 0755 "$root$prefix/share/gnome-shell/extensions/screenward@screenward.org"
install -m 0644 data/gnome-shell/screenward@screenward.org/* \
  "$root$prefix/share/gnome-shell/extensions/screenward@screenward.org/"
install -m 0644 docs/architecture.md docs/enforcement.md docs/extensions.md docs/rules.md "$root$prefix/share/doc/screenward/"
install -d -m 0755 "$(dirname "$root$tray_autostart")" "$(dirname "$root$unit")" "$(dirname "$root$pam")"
sed "s|^Exec=screenward-tray|Exec=$prefix/bin/screenward-tray|" desktop/screenward-tray.desktop >"$root$tray_autostart"
chmod 0644 "$root$tray_autostart"
sed "s|/usr/local/bin/|$prefix/bin/|; s|/usr/local/share/|$prefix/share/|" desktop/system/screenward-daemon.service >"$root$unit"
chmod 0644 "$root$unit"
install -m 0644 desktop/pam/screenward "$root$pam"
install -D -m 0644 desktop/system/screenward.tmpfiles "$root$tmpfiles"
install -D -m 0644 desktop/sysctl/60-screenward.conf "$root$sysctl_snippet"
install -d -m 0755 "$root$apps"
# -e: a kernel without Yama has no ptrace_scope. A container may not let us set it at all.
if [ -z "$root" ] && ! sysctl -e -q -p "$sysctl_snippet" 2>/dev/null; then
  echo "install.sh: could not apply $sysctl_snippet now (a container?); it applies at the next boot" >&2
fi

has_group screenward-guardians || account_tool groupadd --system screenward-guardians
has_user screenward ||
  account_tool useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group screenward
# Apps' extensions for managed users run as a user of their own: not the child, not root.
has_user screenward-extensions ||
  account_tool useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group screenward-extensions

# The browsers' extension: packed with this machine's key, force-installed by policy.
"$binaries/screenward" browsers install --prefix "$prefix" --root "${root:-/}" --extension-source data/web-extension

if [ -n "$root" ]; then
  install -d -m 0700 "$root/var/lib/screenward"
  install -d -m 0755 "$root/var/lib/screenward-extensions"
  echo "Screenward installed into the system in $root (nothing started there)."
  exit 0
elif systemd_running; then
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
