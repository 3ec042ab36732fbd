#!/usr/bin/env bash
# Builds what the Debian package installs into STAGE (debian/rules runs it; see
# docs/packaging.md): the agent (release, Swift's runtime linked in, laid out as its
# benchmarks measure it) and the multi-call program of the others, a man page for each program from its argument
# parser (swift-argument-parser's generate-manual, which `swift package generate-manual`
# runs) with screenward(7), completions for bash, zsh and fish, and the translations' catalogs.
#   scripts/package-build.sh STAGE
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:?usage: scripts/package-build.sh STAGE}
. scripts/env.sh
if ! command -v swift >/dev/null; then
  echo "package-build.sh: Swift 6.2 or newer must be on PATH (or in /opt/swift)" >&2
  exit 1
fi

build_release screenward-agent screenward-multicall
# The manual's generator, swift-argument-parser's own tool (a host tool: debug is enough).
swift build --product generate-manual

rm -rf "$stage"
mkdir -p "$stage/man" "$stage/completions/bash" "$stage/completions/zsh" "$stage/completions/fish" "$stage/links"
cp .build/release/screenward-multicall "$stage/screenward"
cp .build/release/screenward-agent "$stage/screenward-agent"
# Each other program is the multi-call program under its own name, as the package installs it.
programs=(screenward screenward-agent screenward-daemon screenward-tray screenward-report screenward-picker
  screenward-web-host)
for program in "${programs[@]}"; do
  if [ "$program" = screenward-agent ]; then
    ln -s ../screenward-agent "$stage/links/$program"
  else
    ln -s ../screenward "$stage/links/$program"
  fi
done

# The manual's date is the package's (debian/changelog), so that a build is reproducible.
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%F)
for program in "${programs[@]}"; do
  section=1
  [ "$program" = screenward-daemon ] && section=8
  .build/debug/generate-manual "$stage/links/$program" --date "$date" --section "$section" \
    --authors "the Screenward authors" -o "$stage/man"
done
# The report program calls itself `screenward report` (the command line hands that
# subcommand over): its page is named for the program.
if [ -f "$stage/man/screenward report.1" ]; then mv "$stage/man/screenward report.1" "$stage/man/screenward-report.1"; fi
cp docs/man/screenward.7 "$stage/man/screenward.7"
for program in "${programs[@]}"; do
  [ -f "$stage/man/$program.$([ "$program" = screenward-daemon ] && echo 8 || echo 1)" ] || {
    echo "package-build.sh: no man page was made for $program" >&2
    exit 1
  }
done

for program in "${programs[@]}"; do
  # bash-completion sources the file: no #! line.
  "$stage/links/$program" --generate-completion-script bash | sed '1{/^#!/d}' >"$stage/completions/bash/$program"
  "$stage/links/$program" --generate-completion-script zsh >"$stage/completions/zsh/_$program"
  "$stage/links/$program" --generate-completion-script fish >"$stage/completions/fish/$program.fish"
done
rm -rf "$stage/links"

# The translations: gettext's catalogs, for /usr/share/locale.
scripts/compile-translations.sh "$stage/locale"
