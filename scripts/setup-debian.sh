#!/bin/sh
# Install what synctrace needs to build and test on Debian 12 (run as root).
# gfortran is optional (the Fortran example and tests), but CI should run them.
set -eu
packages="build-essential autoconf automake libtool pkg-config gawk python3
          libopenmpi-dev openmpi-bin libotf2-trace-dev otf2-tools python3-otf2
          gfortran chromium netpipe-openmpi python3-mpi4py python3-six hpcc scalapack-mpi-test"
# gfortran: the Fortran example and tests; chromium: tests/test-export.sh loads
# the HTML timeline headless; NetPIPE, mpi4py, hpcc and the ScaLAPACK/BLACS
# testers (scalapack-mpi-test: the Open MPI build is used): real MPI clients
# traced by tests/test-clients.sh; python3-six: python3-otf2 needs it
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
