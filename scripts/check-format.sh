#!/usr/bin/env bash
# The project's format, checked: swift-format (the toolchain's, with .swift-format) finds
# nothing to change, and no line of Swift is over 120 columns (a long message is split by hand:
# the formatter does not break string literals), but for a text to translate, which is one literal
# on one line for xgettext (scripts/update-translations.sh). Fix with:
#   swift-format format -i -r --parallel Sources Tests Examples Package.swift
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
status=0
if ! swift-format lint --strict --parallel -r Sources Tests Examples Package.swift; then
  echo "screenward: swift-format would change the files above (swift-format format -i -r Sources Tests Examples Package.swift)"
  status=1
fi
long=$(find Sources Tests Examples Package.swift -name '*.swift' -print0 |
  xargs -0 awk 'length > 120 && !/(texts|Phrase)\("/ { print FILENAME ":" FNR ": " length " columns" }')
if [ -n "$long" ]; then
  echo "$long"
  echo "screenward: lines over 120 columns (above)"
  status=1
fi
[ "$status" -ne 0 ] || echo "screenward: the format is the project's (swift-format, 120 columns)"
exit "$status"
