#!/bin/sh
# Set everything up, build, and trace the bundled example on 4 ranks.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup-debian.sh"
"$top/scripts/build.sh"
make -s -C "${BUILD_DIR:-$top/build}" example
