#!/usr/bin/env bash
# Builds Screenward's Debian package from debian/ (docs/packaging.md) and checks it with
# lintian. Installs what the build needs first (as root; Swift itself: see README).
#   scripts/package.sh                      dist/screenward_VERSION_amd64.deb
#   scripts/package.sh --version 0.1.0+1    the same, as another version (for upgrade tests)
#   scripts/package.sh --output DIR         put the package in DIR instead of dist/
#   scripts/package.sh --fast               compress it lightly (xz -1: a third larger, a minute
#                                           sooner), for a build that only tests install
# Then: apt install ./dist/screenward_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
version=""
output=dist
compression=9
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --output) output="$2"; shift 2 ;;
    --fast) compression=1; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh
. scripts/env.sh

# dpkg-buildpackage writes into the folder above the source; the results are moved to $output.
parent=$(cd .. && pwd)
name=screenward
source_version=$(dpkg-parsechangelog -S Version)
built_version=${version:-$source_version}
arch=$(dpkg --print-architecture)
SCREENWARD_PACKAGE_VERSION="$version" SCREENWARD_PACKAGE_COMPRESSION="$compression" dpkg-buildpackage -b -us -uc
mkdir -p "$output"
# (The build's record and changes file keep the source's version, from debian/changelog.)
for file in "${name}_${built_version}_${arch}.deb" "${name}_${source_version}_${arch}.buildinfo" \
  "${name}_${source_version}_${arch}.changes"; do
  mv "$parent/$file" "$output/"
done
deb="$output/${name}_${built_version}_${arch}.deb"

# lintian: errors fail the build; warnings are printed.
lintian --fail-on error --no-tag-display-limit "$deb"
size=$(stat -c %s "$deb")
installed=$(dpkg-deb -f "$deb" Installed-Size)
echo "screenward: built $deb: $((size / 1024)) KiB, $((installed)) KiB installed"
