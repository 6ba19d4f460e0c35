#!/bin/bash
# The report's pair precision (tools/merge/precision.c) on generated traces:
# sampled from every clock it equals the exact all-pairs figures; sampled
# from the reference alone it equals the solve's own bounds (hi - lo of every
# clock, without drift correction so no drift margin widens them); a sample
# of k clocks measures exactly the pairs it says, lies between those two and
# is deterministic; above the all-pairs limit (3000 clocks) it is sampled by
# default, says so, and every true offset is inside its bounds. On a thread
# of its own beside the apply (--jobs 2 and more) it gives what it gives
# inline (--jobs 1): all pairs, a sample, and with the collectives' hubs
# beside the graph. A bad --precision-sources is one line and exit status 2.
. "$top_srcdir/tests/lib.sh"
plan 11
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)
py() { "$PYTHON3" - "$@"; }

gen() {   # gen DIR RANKS: a ring of one-rank nodes with offsets and drifts
    "$GEN" "$1" --ranks "$2" --ranks-per-node 1 --pattern ring --iterations 2 --offset-us 1000 \
        --drift-ppm 50 --seed 5 >/dev/null
}
merge() {   # merge RAW OUT [options...]
    local raw=$1 out=$2; shift 2
    timeout 120 "$ST" merge "$raw" -o "$out" --no-causal --no-drift "$@" >/dev/null
}

gen "$tmp/t300" 300
merge "$tmp/t300" "$tmp/all"
merge "$tmp/t300" "$tmp/s300" --precision-sources 300
merge "$tmp/t300" "$tmp/s999" --precision-sources 999
merge "$tmp/t300" "$tmp/s1" --precision-sources 1
merge "$tmp/t300" "$tmp/s7" --precision-sources 7
merge "$tmp/t300" "$tmp/s7b" --precision-sources 7

# prints what is wrong, or nothing
out=$(py "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
r = {k: json.load(open('%s/%s/report.json' % (d, k))) for k in ('all', 's300', 's999', 's1', 's7', 's7b')}
bad = []
def pairs(k): return r[k].get('pair_uncertainty_pairs', {})
def close(a, b): return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)) + 0.002
if pairs('all') != {**pairs('all'), 'method': 'all', 'domains': 300, 'pairs': 44850}:
    bad.append('all pairs: %s' % pairs('all'))
for k in ('s300', 's999'):
    p = pairs(k)
    if p.get('method') != 'sampled' or p.get('pairs') != 44850 or p.get('sources') != 300:
        bad.append('%s: %s' % (k, p))
    for f in ('pair_uncertainty_max_ns', 'pair_uncertainty_mean_ns'):
        if not close(r[k][f], r['all'][f]):
            bad.append('%s %s %s != all pairs %s' % (k, f, r[k][f], r['all'][f]))
print('exact ' + '; '.join(bad))
bad = []
w = [x['hi_ns'] - x['lo_ns'] for x in r['s1']['domains'] if x['domain'] != 0]
if pairs('s1').get('pairs') != 299 or not close(r['s1']['pair_uncertainty_max_ns'], max(w)) \
        or not close(r['s1']['pair_uncertainty_mean_ns'], sum(w) / len(w)):
    bad.append('reference alone: %s %s, bounds give %s %s' % (r['s1']['pair_uncertainty_max_ns'],
               r['s1']['pair_uncertainty_mean_ns'], max(w), sum(w) / len(w)))
print('reference ' + '; '.join(bad))
bad = []
p = pairs('s7')
if p.get('pairs') != 7 * 299 - 7 * 6 // 2 or p.get('sources') != 7:
    bad.append('7 sources: %s' % p)
lo, hi, got = r['s1']['pair_uncertainty_max_ns'], r['all']['pair_uncertainty_max_ns'], r['s7']['pair_uncertainty_max_ns']
if not lo - 0.002 <= got <= hi + 0.002:
    bad.append('7 sources: max %s not within [%s, %s]' % (got, lo, hi))
a, b = p.get('widest', [0, 0])
if a == b or not 0 <= a < 300 or not 0 <= b < 300:
    bad.append('widest pair %s' % p.get('widest'))
print('subset ' + '; '.join(bad))
same = all(r['s7'][f] == r['s7b'][f] for f in ('pair_uncertainty_max_ns', 'pair_uncertainty_mean_ns')) \
    and {**pairs('s7'), 'seconds': 0} == {**pairs('s7b'), 'seconds': 0}
print('determinism ' + ('' if same else 'two runs differ: %s %s' % (pairs('s7'), pairs('s7b'))))
PY
)
for what in exact reference subset determinism; do
    line=$(grep "^$what " <<<"$out" | cut -d' ' -f2-)
    case $what in
    exact) msg="sampled from every clock (300, and 999 > 300) = exact all pairs (44850 pairs)" ;;
    reference) msg="sampled from the reference alone = the solve's bounds, hi - lo of every clock" ;;
    subset) msg="7 sources: 2072 pairs, max between the reference's and all pairs' " ;;
    determinism) msg="the sample is the same in two runs" ;;
    esac
    [ -z "$line" ] && grep -q "^$what" <<<"$out"
    ok $? "$msg${line:+: $line}"
done

# Above the all-pairs limit: sampled by default, truth inside the bounds.
gen "$tmp/t3000" 3000
start=$(date +%s.%N)
timeout 120 "$ST" merge "$tmp/t3000" -o "$tmp/big" --no-causal >/dev/null
ok $? "3000 clocks merge"
diag "3000 clocks: merge $(echo "$(date +%s.%N) - $start" | bc) s"
merge "$tmp/t3000" "$tmp/big1" --precision-sources 1
out=$(py "$tmp/big/report.json" "$tmp/big1/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r1 = json.load(open(sys.argv[2]))
p = r.get('pair_uncertainty_pairs', {})
print('sampled', '' if p.get('method') == 'sampled' and p.get('sources') == 32 and p.get('domains') == 3000
      and p.get('pairs') == 32 * 2999 - 32 * 31 // 2 and r.get('pair_uncertainty_max_ns', 0) > 0
      and 0 < r.get('pair_uncertainty_mean_ns', 0) <= r['pair_uncertainty_max_ns'] else p)
t = r.get('truth', {})
far = [x['domain'] for x in r['domains']
       if x.get('true_inside_bounds') is not True or abs(x['offset_ns'] - x['true_offset_ns']) > x['hi_ns'] - x['lo_ns']]
print('truth', '' if t.get('domains_inside_bounds') == 3000 and not far else '%s outside: %s' % (t.get('domains_inside_bounds'), far[:5]))
w = [x['hi_ns'] - x['lo_ns'] for x in r1['domains'] if x['domain'] != 0]
ok = abs(r1['pair_uncertainty_max_ns'] - max(w)) <= 0.002 and abs(r1['pair_uncertainty_mean_ns'] - sum(w) / len(w)) <= 0.002
print('reference', '' if ok else '%s %s vs %s %s' % (r1['pair_uncertainty_max_ns'], r1['pair_uncertainty_mean_ns'], max(w), sum(w) / len(w)))
PY
)
line=$(sed -n 's/^sampled //p' <<<"$out"); grep -q '^sampled' <<<"$out" && [ -z "$line" ]
ok $? "3000 clocks: sampled by default from 32 clocks, 95472 pairs${line:+: $line}"
line=$(sed -n 's/^truth //p' <<<"$out"); grep -q '^truth' <<<"$out" && [ -z "$line" ]
ok $? "3000 clocks: every true offset inside its bounds${line:+: $line}"
line=$(sed -n 's/^reference //p' <<<"$out"); grep -q '^reference' <<<"$out" && [ -z "$line" ]
ok $? "3000 clocks, reference alone: = the solve's bounds${line:+: $line}"
grep -q "precision.*on a sample of pairs" "$tmp/big/report.txt"
ok $? "report.txt says the precision is sampled"

# Beside the apply or inline: the same output, file for file.
"$GEN" "$tmp/a2a" --ranks 24 --pattern alltoall --iterations 6 --seed 3 >/dev/null
why=""
for case in "t300" "t300 --precision-sources 7" "a2a"; do
    set -- $case
    raw=$1
    shift
    for j in 1 3; do
        SYNCTRACE_HUB_EDGES=$([ "$raw" = a2a ] && echo 0 || echo 262144) \
            timeout 120 "$ST" merge "$tmp/$raw" -o "$tmp/j$j" --no-causal --jobs "$j" "$@" >/dev/null 2>&1 ||
            why="$why $case --jobs $j failed;"
    done
    grep -q '"hubs_beside_graph"' "$tmp/j1/report.json" || [ "$raw" != a2a ] || why="$why a2a: no hubs beside;"
    d=$(merged_differences "$tmp/j1" "$tmp/j3" | head -3 | tr '\n' ' ')
    [ -z "$d" ] || why="$why $case: $d;"
    rm -rf "$tmp/j1" "$tmp/j3"
done
[ -z "$why" ]
ok $? "precision on its own thread (--jobs 3) = inline (--jobs 1): all pairs, 7 sources, hubs beside${why:+:$why}"

for bad in 0 -3 x 1.5; do
    "$ST" merge "$tmp/t300" -o "$tmp/bad" --precision-sources "$bad" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "precision-sources" "$tmp/err" && [ ! -e "$tmp/bad" ] || break
done
ok $? "a bad --precision-sources ($bad): one line, exit 2, no output"
finish
