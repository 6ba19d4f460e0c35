#!/bin/bash
# test-clients.sh — real MPI clients from Debian, not written for this
# project, traced unmodified with skewed clocks: NetPIPE (NPopenmpi:
# preposted receives and MPI_ANY_SOURCE; synchronous sends) and a Python
# program through mpi4py (tests/mpi4py_client.py). Each must give the
# untraced run's results (NetPIPE's timings aside), and its trace must merge with every message and
# collective matched, no tachyon, delta 0 and every true offset inside its
# bounds; the merged archive is checked independently (merged_check.py).
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 9
tmp=$(scratch)
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
pyotf2=""
for p in "$PYTHON3" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done

merged_ok() {   # merged_ok RAW LABEL: 2 checks
    "$SYNCTRACE_BIN" merge "$1" -o "$1.out" >/dev/null 2>"$1.err"
    local r=$1.out/report.json
    ok $([ -f "$r" ] && [ "$(json "$r" "d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives'] + d['tachyons_after'] + d['nonmonotonic_after'] + d['collective_order_violations_after']")" = 0 ] \
        && [ "$(json "$r" "d['delta_ns'] == 0 and d['truth']['domains_inside_bounds'] == len(d['domains'])")" = True ]; echo $?) \
        "$2: merged: $(json "$r" "d['messages']" 2>/dev/null) messages, $(json "$r" "d['collectives']" 2>/dev/null) collectives, all matched; no tachyon (raw: $(json "$r" "d['tachyons_raw']" 2>/dev/null)), delta 0, truth inside the bounds"
    if [ -n "$pyotf2" ]; then
        local line
        line=$("$pyotf2" "$top_srcdir/tests/merged_check.py" "$1.out/traces.otf2" 2>&1 | tail -1)
        ok $(echo "$line" | grep -q "tachyons 0 nonmonotonic 0 unmatched_sends 0 unmatched_receives 0$"; echo $?) \
            "$2: the merged archive, read independently: $line"
    else
        skip "python3-otf2 not installed"
    fi
}

skew=seed=21,offset_us=1000,drift_ppm=50
np=$(command -v NPopenmpi)
if [ -n "$np" ]; then
    # -n 20 repeats per size up to 16 KiB; -a preposted receives, -z MPI_ANY_SOURCE; -S MPI_Ssend
    # (not -2, both directions at once: NetPIPE deadlocks there untraced, with blocking sends)
    for mode in "-a -z" "-S"; do
        tag=$(echo "$mode" | tr -d ' -')
        (cd "$tmp" && run_plain 2 "$np" -n 20 -u 16384 $mode -o "$tmp/np$tag.plain" >/dev/null 2>&1)
        (cd "$tmp" && SYNCTRACE_SKEW=$skew run_traced "$tmp/np$tag" 2 "$np" -n 20 -u 16384 $mode -o "$tmp/np$tag.traced" \
            >/dev/null 2>&1)
        ok $([ $? -eq 0 ] && [ -s "$tmp/np$tag.plain" ] \
            && [ "$(wc -l <"$tmp/np$tag.traced")" = "$(wc -l <"$tmp/np$tag.plain")" ]; echo $?) \
            "NetPIPE $mode: traced, it measures every size the untraced run does ($(wc -l <"$tmp/np$tag.plain") sizes)"
        merged_ok "$tmp/np$tag" "NetPIPE $mode"
    done
else
    for i in 1 2 3 4 5 6; do skip "NetPIPE (netpipe-openmpi) not installed"; done
fi

py=/usr/bin/python3
if "$py" -c "import mpi4py" 2>/dev/null; then
    run_plain 3 "$py" "$top_srcdir/tests/mpi4py_client.py" 2>&1 | sort >"$tmp/py.plain"
    SYNCTRACE_SKEW=$skew run_traced "$tmp/py" 3 "$py" "$top_srcdir/tests/mpi4py_client.py" 2>&1 | sort >"$tmp/py.traced"
    ok $([ "$(grep -c checksum "$tmp/py.plain")" = 3 ] && cmp -s "$tmp/py.plain" "$tmp/py.traced"; echo $?) \
        "mpi4py: traced, every rank prints what it prints untraced ($(head -1 "$tmp/py.plain"))"
    merged_ok "$tmp/py" "mpi4py"
else
    for i in 1 2 3; do skip "python3-mpi4py not installed"; done
fi
finish
