#!/bin/bash
# Makes the C code for the Wayland protocols the agent speaks from their XML, with Debian's
# wayland-scanner (libwayland-bin): a header per protocol in Sources/CWayland/include and its
# interfaces' tables beside. The XML is kept in Sources/CWayland/protocols, as each project
# published it (their copyright notices are inside). The output is committed, so a build needs
# no scanner; run this after changing a protocol file.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wayland-scanner >/dev/null || { echo "generate-wayland-protocols.sh: needs wayland-scanner (apt install libwayland-bin)" >&2; exit 1; }
for xml in Sources/CWayland/protocols/*.xml; do
  name=$(basename "$xml" .xml)
  wayland-scanner client-header "$xml" "Sources/CWayland/include/$name-client-protocol.h"
  wayland-scanner private-code "$xml" "Sources/CWayland/$name-protocol.c"
done
echo "generate-wayland-protocols.sh: $(ls Sources/CWayland/protocols/*.xml | wc -l) protocols in Sources/CWayland"
