#!/bin/sh
# Install what synctrace needs to build and test on Debian 12 (run as root).
# gfortran is optional (the Fortran example and tests), but CI should run them.
set -eu
packages="build-essential autoconf automake libtool pkg-config gawk python3
          libopenmpi-dev openmpi-bin libotf2-trace-dev otf2-tools python3-otf2
          gfortran chromium netpipe-openmpi python3-mpi4py
          clang-14 libclang-rt-14-dev"
# gfortran: the Fortran example and tests; chromium: tests/test-export.sh loads
# the HTML timeline headless; NetPIPE and mpi4py: real MPI clients traced by
# tests/test-clients.sh; clang-14 and libclang-rt-14-dev: libFuzzer for
# tests/fuzz/run.sh
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup-debian: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
