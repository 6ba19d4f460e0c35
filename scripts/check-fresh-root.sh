#!/bin/sh
# Prove the README's commands on a fresh minimal Debian 12: debootstrap a
# minbase bookworm root into ROOT (default /var/tmp/synctrace-fresh-root),
# clone this repository's HEAD into it and run one README command there
# (default the test one), as a new user of the project would. Needs root,
# debootstrap and a Debian mirror; takes 10-30 minutes.
#   scripts/check-fresh-root.sh [ROOT] [run-tests|run-example]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/synctrace-fresh-root}
what=${2:-run-tests}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
command -v debootstrap >/dev/null || { echo "check-fresh-root: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
[ -x "$root/usr/bin/apt-get" ] || debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
# A real machine knows its own name (debootstrap writes no /etc/hosts):
# without it every gethostid() in OTF2 asks DNS, seconds per archive.
grep -qs "$(hostname)" "$root/etc/hosts" || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$(hostname)" >>"$root/etc/hosts"
rm -rf "$root/synctrace"
git clone -q "$top" "$root/synctrace"

cleanup() { umount "$root/dev/shm" 2>/dev/null; umount -R "$root/dev" 2>/dev/null; umount "$root/sys" "$root/proc" 2>/dev/null; true; }
trap cleanup EXIT INT TERM
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --rbind /dev "$root/dev"       # with /dev/pts: the terminal test needs working ptys
mount -t tmpfs shm "$root/dev/shm"
# The README's command, exactly, in a login-like environment with nothing of ours.
env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
    chroot "$root" /bin/sh -c "cd /synctrace && ./scripts/$what.sh"
echo "check-fresh-root: ./scripts/$what.sh passed in a fresh minbase Debian 12 root ($root)"
