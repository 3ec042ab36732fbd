#!/usr/bin/env bash
# Makes po/screenward.pot, the template of every text Screenward shows, from where the texts
# are written, and brings po/LANG.po up to it (msgmerge: a new text is added untranslated, a
# changed one is marked fuzzy for its translator). docs/translations.md says how texts are written.
#
#   scripts/update-translations.sh            the template and each language, updated in po/
#   scripts/update-translations.sh --check    nothing written: fails when the template in po/
#                                             is not the one the sources make, or a language
#                                             lacks a translation (a test runs this)
#
# The texts are:
#   - in the data files, each in the context of its name: data/shield.json's and
#     data/rules.json's "texts", and data/categories.json's categories' names (context "category");
#   - in the Swift sources, each written `texts("English", context: "where")` or
#     `Phrase("English", context: "where")` (a text another program shows; xgettext reads
#     Swift well enough as C for that: one string literal on one line, no \(interpolation),
#     {placeholders} instead).
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: scripts/update-translations.sh [--check]" >&2; exit 2 ;;
esac
for tool in xgettext msgmerge msgcat msgfmt jq; do
  command -v "$tool" >/dev/null || { echo "update-translations.sh: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A PO entry's string, quoted as gettext quotes it.
po_string() { jq -Rn --arg text "$1" '$text' ; }
{
  cat <<'HEADER'
# Screenward's texts (the template: po/LANG.po are made from it by scripts/update-translations.sh).
# {placeholders} are filled in by Screenward: keep them as they are.
#
msgid ""
msgstr ""
"Project-Id-Version: screenward\n"
"Report-Msgid-Bugs-To: \n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
HEADER
  for file in data/shield.json data/rules.json; do
    jq -r '.texts | to_entries[] | [.key, .value] | @tsv' "$file" | while IFS=$'\t' read -r key value; do
      printf '\n#: %s:%s\nmsgctxt %s\nmsgid %s\nmsgstr ""\n' "$file" "$key" "$(po_string "$key")" "$(po_string "$value")"
    done
  done
  jq -r '.categories[] | [.id, .name] | @tsv' data/categories.json | while IFS=$'\t' read -r id name; do
    printf '\n#: data/categories.json:%s\nmsgctxt "category"\nmsgid %s\nmsgstr ""\n' "$id" "$(po_string "$name")"
  done
} >"$work/data.pot"
# Swift's multi-line string literals ("""), which C has not, are blanked out first (lines kept,
# so that the references are right): a text to translate is never one.
find Sources -name '*.swift' | LC_ALL=C sort >"$work/sources"
while read -r source; do
  mkdir -p "$work/code/$(dirname "$source")"
  awk '{ n = gsub(/"""/, "&"); if (inside || n % 2 == 1) { print ""; if (n % 2 == 1) inside = !inside } else print }' \
    "$source" >"$work/code/$source"
done <"$work/sources"
(cd "$work/code" && LC_ALL=C.UTF-8 xgettext --language=C --from-code=UTF-8 --keyword= --keyword=texts:1,2c --keyword=Phrase:1,2c --no-wrap \
  --sort-by-file --files-from="$work/sources" --output="$work/code.pot") 2>"$work/xgettext.log" || {
  cat "$work/xgettext.log" >&2
  exit 1
}
# xgettext reads Swift as C: a warning is a text it may have read wrong (but a text need not be
# ASCII: the template is UTF-8, like the sources).
awk '/warning: The following msgid contains non-ASCII characters/ { skip = 3; next } skip > 0 { skip--; next } NF' \
  "$work/xgettext.log" >"$work/xgettext.problems"
if [ -s "$work/xgettext.problems" ]; then
  cat "$work/xgettext.log" >&2
  echo "update-translations.sh: xgettext did not read every text cleanly (above)" >&2
  exit 1
fi
touch "$work/code.pot"
msgcat --use-first --no-wrap --sort-by-file "$work/data.pot" "$work/code.pot" -o "$work/screenward.pot"
# The same text twice with one context would be merged by msgcat: it must be one text.
if grep -q "#-#-#-#-#" "$work/screenward.pot"; then
  echo "update-translations.sh: one text (msgctxt and msgid) has two different meanings in the sources" >&2
  exit 1
fi

ids() { msgcat --no-wrap --sort-output "$1" | msgattrib --no-obsolete --no-wrap 2>/dev/null | grep -E '^(msgctxt|msgid) '; }
if $check; then
  status=0
  if ! diff <(ids po/screenward.pot) <(ids "$work/screenward.pot") >"$work/diff"; then
    echo "update-translations.sh: po/screenward.pot is not the sources' texts (< po, > sources):" >&2
    cat "$work/diff" >&2
    echo "run scripts/update-translations.sh, then translate what is new in po/LANG.po" >&2
    status=1
  fi
  for language in $(cat po/LINGUAS); do
    missing=$(msgattrib --untranslated --no-obsolete "po/$language.po" | grep -c '^msgid ' || true)
    fuzzy=$(msgattrib --only-fuzzy --no-obsolete "po/$language.po" | grep -c '^msgid ' || true)
    # Each count includes the header's entry when there is any other.
    if [ "$missing" -gt 0 ] || [ "$fuzzy" -gt 0 ]; then
      echo "update-translations.sh: po/$language.po has untranslated or fuzzy texts:" >&2
      msgattrib --untranslated --no-obsolete "po/$language.po" | grep -A1 '^msgctxt' >&2 || true
      msgattrib --only-fuzzy --no-obsolete "po/$language.po" | grep -A1 '^msgctxt' >&2 || true
      status=1
    fi
    if ! diff <(ids "$work/screenward.pot") <(ids "po/$language.po") >"$work/diff"; then
      echo "update-translations.sh: po/$language.po's texts are not the template's (< template, > po):" >&2
      cat "$work/diff" >&2
      status=1
    fi
  done
  exit "$status"
fi
cp "$work/screenward.pot" po/screenward.pot
for language in $(cat po/LINGUAS); do
  msgmerge --quiet --update --backup=none --no-wrap --no-fuzzy-matching "po/$language.po" po/screenward.pot
  msgattrib --no-obsolete --no-wrap "po/$language.po" -o "po/$language.po"
done
echo "update-translations.sh: po/screenward.pot has $(grep -c '^msgid ' po/screenward.pot) entries (with the header); translate what is new in $(for language in $(cat po/LINGUAS); do printf 'po/%s.po ' "$language"; done)"
