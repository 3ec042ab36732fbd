#!/usr/bin/env bash
# Installs what building, running and testing Screenward need on Debian 12, if it
# is missing. Swift itself (6.2 or newer) must already be installed: see README.
set -euo pipefail

packages=(
  # build: X11, XScreenSaver, XSync (Xext), X-Resource, Damage and XFixes (motion in the focused
  # window), RECORD (libXtst: who holds the screen saver off), GLib/GIO, GTK 3, SQLite
  libx11-dev libxss-dev libxext-dev libxres-dev libxdamage-dev libxfixes-dev libxtst-dev libglib2.0-dev
  libgtk-3-dev libsqlite3-dev pkg-config
  # build: PAM (SystemAccounts' password checks); the tray (AppIndicator)
  libpam0g-dev libayatana-appindicator3-dev
  # build: Wayland sessions (libwayland-client; wayland-scanner for scripts/generate-wayland-protocols.sh;
  # GTK's layer shell, which puts a shield above everything on a wlroots compositor)
  libwayland-dev libwayland-bin libgtk-layer-shell-dev
  # test: a wlroots compositor run headless, a Wayland terminal, its screenshots and a virtual keyboard;
  # KWin run headless (about 130 packages of Qt and KDE Frameworks without recommends); GNOME Shell
  # run headless, with the settings' command line and gdbus it is driven with, and Python's GLib for
  # its remote desktop keyboard
  sway foot grim wtype kwin-wayland gnome-shell libglib2.0-bin python3-gi
  # build: the translations (msgfmt compiles po/ into gettext's catalogs; xgettext and jq
  # gather the texts, scripts/update-translations.sh)
  gettext jq
  # run: the QR code `screenward guardian enroll` shows for a guardian's authenticator app
  qrencode
  # run and test: a private X server, a window manager, input and screenshots
  xvfb openbox xdotool x11-utils xauth imagemagick dbus-daemon
  # child mode's tests: what a child tries (a debugger, a tracer, a script) and real users;
  # a guardian's authenticator app (oathtool: RFC 6238 codes, independent of Screenward's)
  gdb strace python3 passwd util-linux procps oathtool
  # gdbus, for the child calling logind (SetLockedHint) in child-mode tests
  libglib2.0-bin
  # AccountsService (and polkitd), where a managed child's default desktop session is set:
  # its accounts-daemon runs on a test's private bus
  accountsservice
  # the shield: Korean glyphs (Vietnamese is in the default fonts); wmctrl for the full-screen test
  fonts-nanum wmctrl
  # a nested X server the child runs in the child-mode tests
  xserver-xephyr
  # websites: the Public Suffix List (a website is its registrable domain); the two browsers
  # Debian ships, whose time per website the tests count (about 170 MB of downloads)
  publicsuffix chromium firefox-esr
  # the rules' warnings: a real notification server (dunst) on the tests' private session bus;
  # the tray's tests: a real XEmbed tray (trayer)
  dunst dbus-bin trayer
  # a playing video counts without input: the tests play ffmpeg's test picture in mpv and the browsers
  mpv ffmpeg
  # a text browser a managed child tries in a terminal (closed unless a guardian allows it)
  w3m
  # real applications whose identity is tested, one per toolkit (about 17 MB of downloads with their libraries):
  # GTK 3, the X toolkit, an SDL 2 game, Qt 5
  mousepad xterm sopwith featherpad
  # households: a real PostgreSQL server the tests start in a folder of their own, and network
  # namespaces joined by veth links for the household's computers (iproute2)
  postgresql iproute2
  # the Debian package: its build (debhelper, lintian) and its test, which installs it into a
  # clean Debian 12 made with debootstrap
  debhelper dpkg-dev fakeroot lintian debootstrap man-db
  # the desktop test (scripts/test-desktop.sh): a Debian 12 root made with mmdebstrap, booted
  # with systemd-nspawn (systemd-container), where LightDM logs a child in and the package is
  # installed with apt
  mmdebstrap systemd-container
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "screenward: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "screenward: Swift found in /opt/swift/usr/bin; add it to PATH" >&2
  else
    echo "screenward: Swift 6.2 or newer is needed: install it from https://www.swift.org/install/linux/ (Debian 12)" >&2
    exit 1
  fi
fi
