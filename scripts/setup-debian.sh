#!/bin/sh
# Install what synctrace needs to build and test on Debian 12 (run as root):
# the packages of scripts/debian-packages.txt. Then prove that they cover
# every command and Python module the tests use (scripts/check-deps.py):
# setup fails loudly here rather than a test skipping later.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
packages=$(sed -e 's/#.*//' "$top/scripts/debian-packages.txt" | tr -s ' \n' ' ')
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
/usr/bin/python3 "$top/scripts/check-deps.py" "$top" || {
    echo "setup-debian: the packages above do not cover what the tests need (see scripts/debian-packages.txt)" >&2
    exit 1
}
