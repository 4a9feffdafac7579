#!/usr/bin/env bash
# bench/trace_cost.sh [NODES] [REPS] - what the timeline and the profile
# cost (docs/TRACE.md): SOR, LU and Water at their quick sizes (the apps'
# NAME_QUICK_ARGS), untraced, under --trace and under --profile, REPS
# times each in turn (default 3), the fastest of each kept since the
# machine may be shared; then tsr_micro's 2-node rows without and with
# TSR_TRACE, the fastest of REPS runs each. Prints one table each, with
# the events the traced runs recorded. Needs `make all build/bench/tsr_micro`.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
N=${1:-2}
REPS=${2:-3}
TMP=$(mktemp -d /tmp/trace_cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

args() { make -s --no-print-directory print-"$1"_QUICK_ARGS 2>/dev/null || sed -n "s/^$1_QUICK_ARGS *:= *//p" apps/"$1"/app.mk; }

seconds() { sed -n 's/^RESULT .*seconds=\([0-9.]*\) verified=PASS.*/\1/p'; }

# best MODE APP ARGS...: the fastest run of REPS in MODE (off, trace, profile).
best() {
    local mode=$1 app=$2 t best=; shift 2
    for _ in $(seq "$REPS"); do
        case $mode in
        off) t=$($B/bin/tsrun -n "$N" $B/apps/"$app" "$@" 2>/dev/null | seconds) ;;
        trace) t=$(TSR_TRACE_BYTES=256M $B/bin/tsrun -n "$N" --trace "$TMP/$app.json" $B/apps/"$app" "$@" 2>/dev/null | seconds) ;;
        profile) t=$(TMPDIR=$TMP TSR_TRACE_BYTES=256M $B/bin/tsrun -n "$N" --profile $B/apps/"$app" "$@" 2>/dev/null | seconds) ;;
        esac
        [ -n "$t" ] || { echo "trace_cost.sh: $app failed ($mode)" >&2; exit 1; }
        best=$(awk -v a="${best:-$t}" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
    done
    echo "$best"
}

events() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["traceEvents"]), sum(c.get("dropped_events", 0) for c in d["otherData"]["clock"]))' "$1"
}

printf '%-6s %-16s %9s %9s %7s %9s %7s %9s %8s\n' app args off_s trace_s trace% profile_s prof% events dropped
for app in sor lu water; do
    read -ra a <<<"$(args $app)"
    off=$(best off $app "${a[@]}")
    tr=$(best trace $app "${a[@]}")
    pr=$(best profile $app "${a[@]}")
    read -r ev dr <<<"$(events "$TMP/$app.json")"
    awk -v app=$app -v args="${a[*]}" -v o="$off" -v t="$tr" -v p="$pr" -v ev="$ev" -v dr="$dr" 'BEGIN {
        printf "%-6s %-16s %9.3f %9.3f %6.1f%% %9.3f %6.1f%% %9d %8d\n", app, args, o, t, 100 * (t - o) / o, p, 100 * (p - o) / o, ev, dr }'
done

echo
echo "tsr_micro, 2 nodes, microseconds (fastest of $REPS runs):"
for mode in off on; do
    for i in $(seq "$REPS"); do
        if [ $mode = on ]; then export TSR_TRACE=$TMP/micro.json; else unset TSR_TRACE; fi
        $B/bin/tsrun -n 2 $B/bench/tsr_micro --node-run full 2>/dev/null | grep '^M ' >"$TMP/micro.$mode.$i"
        $B/bin/tsrun -n 2 $B/bench/tsr_micro --node-run detect 2>/dev/null | grep '^M ' >>"$TMP/micro.$mode.$i"
    done
done
unset TSR_TRACE
cat "$TMP"/micro.off.* | awk '{ if (!($2 in m) || $3 < m[$2]) m[$2] = $3 } END { for (k in m) print k, m[k] }' | sort >"$TMP/off"
cat "$TMP"/micro.on.* | awk '{ if (!($2 in m) || $3 < m[$2]) m[$2] = $3 } END { for (k in m) print k, m[k] }' | sort >"$TMP/on"
printf '%-32s %10s %10s\n' row untraced traced
join "$TMP/off" "$TMP/on" | grep -v '^wake_\|^raw_\|^tcp_\|^udp_\|^shm_\|^ring' |
    awk '{ printf "%-32s %10.3f %10.3f\n", $1, $2, $3 }'
