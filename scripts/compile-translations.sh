#!/usr/bin/env bash
# Compiles the translations in po/ (po/LINGUAS lists them) into gettext's catalogs,
# DEST/LANG/LC_MESSAGES/screenward.mo (default DEST: .build/locale, where the programs of a
# build folder look; the package installs them in /usr/share/locale). msgfmt --check refuses
# a translation whose format or placeholders are broken.
#   scripts/compile-translations.sh [DEST]
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-.build/locale}
for language in $(cat po/LINGUAS); do
  mkdir -p "$dest/$language/LC_MESSAGES"
  msgfmt --check -o "$dest/$language/LC_MESSAGES/screenward.mo" "po/$language.po"
done
