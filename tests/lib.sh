# tests/lib.sh — shared by the TAP test scripts. Source it, then:
#   plan N; ok COND-EXIT-STATUS "description"; ...; finish
# run_traced DIR NP PROGRAM ARGS...   runs PROGRAM under mpirun with the tracer
# run_plain NP PROGRAM ARGS...        runs PROGRAM under mpirun without it
# Environment (set by make check, or by hand):
#   SYNCTRACE_LIB  path of libsynctrace.so     MPIRUN   mpirun
#   top_builddir   build tree (for synctrace and test programs)
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${MPIRUN:=mpirun}"
: "${SYNCTRACE_LIB:=$top_builddir/.libs/libsynctrace.so}"
SYNCTRACE_BIN="$top_builddir/synctrace"
export OMPI_MCA_rmaps_base_oversubscribe=1
# Quiet, loopback-only Open MPI: tests must not depend on the network.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl=self,vader,tcp

_tap_n=0
_tap_failed=0
plan() { echo "1..$1"; }
ok() {
    local status=$1; shift
    _tap_n=$((_tap_n + 1))
    if [ "$status" -eq 0 ]; then echo "ok $_tap_n - $*"; else echo "not ok $_tap_n - $*"; _tap_failed=1; fi
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
diag() { echo "# $*"; }
finish() { exit 0; }   # failures are reported through TAP lines

# Scratch directories live under one root made here (not inside a command
# substitution, whose subshell would run the EXIT trap at once) and removed
# when the script exits. `d=$(scratch)` gives a fresh one.
_scratch_root=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-test.XXXXXX")
trap 'rm -rf "$_scratch_root"' EXIT
# Each script's mpirun keeps its session directory under that root: two
# scripts starting mpirun at once (make -j) race in Open MPI 4.1 to create
# the shared /tmp/ompi.HOST.UID, and the loser fails with "File exists".
export OMPI_MCA_orte_tmpdir_base="$_scratch_root"
scratch() {
    mktemp -d "$_scratch_root/XXXXXX"
}

# build_shapes DIR N: bench/shapes.c compiled into DIR/shapes; where it
# cannot be, the test's N planned checks fail and the test ends.
build_shapes() {
    mpicc -std=c11 -D_GNU_SOURCE -O1 -o "$1/shapes" "$top_srcdir/bench/shapes.c" 2>"$1/build.err" && return 0
    local i
    for i in $(seq "$2"); do ok 1 "build bench/shapes.c: $(head -c 200 "$1/build.err")"; done
    finish
}

run_plain() {
    local np=$1; shift
    timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np "$np" "$@"
}

run_traced() {
    local dir=$1 np=$2; shift 2
    timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np "$np" \
        -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir" \
        ${SYNCTRACE_SKEW:+-x SYNCTRACE_SKEW="$SYNCTRACE_SKEW"} \
        ${SYNCTRACE_SYNC:+-x SYNCTRACE_SYNC="$SYNCTRACE_SYNC"} \
        ${SYNCTRACE_SYNC_INTERVAL:+-x SYNCTRACE_SYNC_INTERVAL="$SYNCTRACE_SYNC_INTERVAL"} \
        ${SYNCTRACE_SYNC_BACKGROUND:+-x SYNCTRACE_SYNC_BACKGROUND="$SYNCTRACE_SYNC_BACKGROUND"} \
        ${SYNCTRACE_BUFFER_MB:+-x SYNCTRACE_BUFFER_MB="$SYNCTRACE_BUFFER_MB"} \
        ${SYNCTRACE_CLOCK:+-x SYNCTRACE_CLOCK="$SYNCTRACE_CLOCK"} \
        ${SYNCTRACE_MPI_GROUPS+-x SYNCTRACE_MPI_GROUPS="$SYNCTRACE_MPI_GROUPS"} \
        ${SYNCTRACE_POLL_COLLAPSE+-x SYNCTRACE_POLL_COLLAPSE="$SYNCTRACE_POLL_COLLAPSE"} \
        "$@"
}

# Build an MPI test program from tests/mpi/NAME.c (NAME with a folder:
# tests/NAME.c, as conformance/X) into the scratch dir $2; echo its path.
build_mpi() {
    local name=$1 out=$2 src
    case $name in
    */*) src=$top_srcdir/tests/$name.c ;;
    *) src=$top_srcdir/tests/mpi/$name.c ;;
    esac
    mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -o "$out/$name" "$src" -lm || return 1
    echo "$out/$name"
}

# Map a checker's "ok - X" / "not ok - X" lines onto TAP, prefixed with $1;
# other lines pass through.
tap_from_checker() {
    local line
    while IFS= read -r line; do
        case $line in
        "ok - "*) ok 0 "$1${line#ok - }" ;;
        "not ok - "*) ok 1 "$1${line#not ok - }" ;;
        *) echo "$line" ;;
        esac
    done <"$2"
}

# run_checked KIND PROG NAME NP [ENV=VALUE...]: run PROG untraced and traced
# (with the settings given); the tracer must print nothing and change no
# output; `synctrace dump` must read the trace and tests/checkers/trace_check.py KIND
# check it. The files are left as $scratch_dir/NAME.* for later checks.
run_checked() {
    local kind=$1 prog=$2 name=$3 np=$4 rc f
    shift 4
    f=$run_checked_dir/${name//[^a-z0-9]/_}
    if [ ! -x "$prog" ]; then
        skip "$name: no test program"
        return
    fi
    run_plain "$np" "$prog" >"$f.plain" 2>"$f.plain.err"
    ok $? "$name: untraced run succeeds"
    (
        [ $# -eq 0 ] || export "$@"
        run_traced "$f.trace" "$np" "$prog"
    ) >"$f.out" 2>"$f.err"
    rc=$?
    ok $rc "$name: traced run succeeds"
    [ $rc -eq 0 ] || sed 's/^/# /' "$f.err" | head -20
    # OTF2 rejects (drops) an event stamped before its predecessor and says
    # so on stderr; the tracer itself is silent unless SYNCTRACE_VERBOSE.
    ! grep -qE '\[OTF2\]|synctrace' "$f.err"
    ok $? "$name: no OTF2 or tracer messages on stderr"
    cmp -s "$f.plain" "$f.out" && [ -s "$f.plain" ]
    ok $? "$name: program output identical with and without the tracer"
    "$SYNCTRACE_BIN" dump "$f.trace" >"$f.dump" 2>"$f.dump.err"
    ok $? "$name: synctrace dump reads the trace"
    "${PYTHON3:-python3}" "$top_srcdir/tests/checkers/trace_check.py" "$kind" "$f.dump" "$np" >"$f.check" 2>&1
    rc=$?
    tap_from_checker "$name: " "$f.check"
    ok $rc "$name: checker ran to the end"
}

# merged_differences A B: every file of two merged outputs compared byte
# for byte, except what holds timings (report.json's "seconds", report.txt's
# time lines), what tells how much went to disk (report.json's
# "match_sorts" line and the repair's "disk_bytes", which --sort-memory
# changes, and the causal index's "build_threads", which --jobs does), the anchor's random trace id and causal.idx's header
# fields of build identity (bytes 168..255, as bench/merge_same.sh skips);
# prints what differs, or nothing.
merged_differences() {
    local a=$1 b=$2 f
    cmp -s <(cd "$a" && find . -type f | sort) <(cd "$b" && find . -type f | sort) || echo "file lists differ"
    while read -r f; do
        case $f in
        ./report.json)
            cmp -s <(sed -E 's/"seconds": (\{[^}]*\}|[0-9.e+-]+)/_/g; s/"disk_bytes": [0-9]+/_/; s/"build_threads": [0-9]+/_/; /"match_sorts"/d' "$a/$f") \
                   <(sed -E 's/"seconds": (\{[^}]*\}|[0-9.e+-]+)/_/g; s/"disk_bytes": [0-9]+/_/; s/"build_threads": [0-9]+/_/; /"match_sorts"/d' "$b/$f") || echo "$f"
            ;;
        ./report.txt)
            cmp -s <(sed -E '1s/\([0-9.]+ s\)//; /^  time /d' "$a/$f") \
                   <(sed -E '1s/\([0-9.]+ s\)//; /^  time /d' "$b/$f") || echo "$f"
            ;;
        ./traces.otf2)
            cmp -s <(otf2-print -A "$a/$f" 2>&1 | grep -v -i 'identifier') \
                   <(otf2-print -A "$b/$f" 2>&1 | grep -v -i 'identifier') || echo "$f"
            ;;
        ./causal.idx)
            [ "$(stat -c %s "$a/$f")" = "$(stat -c %s "$b/$f")" ] && cmp -s -n 168 "$a/$f" "$b/$f" &&
                cmp -s -i 256 "$a/$f" "$b/$f" || echo "$f"
            ;;
        *) cmp -s "$a/$f" "$b/$f" || echo "$f" ;;
        esac
    done < <(cd "$a" && find . -type f | sort)
}
