#!/bin/sh
# Configure and build synctrace out of tree in BUILD_DIR (default: build).
# Extra arguments go to configure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null)
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" -q "$@"
make -s -j"$(nproc)" >/dev/null
