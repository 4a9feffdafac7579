#!/usr/bin/env bash
# bench/ucx_mpi.sh [ROUNDS [APP...]] - Tessera over UCX against Open MPI
# over UCX, both with UCX_TLS=tcp, between network-namespace hosts
# (tests/netns.sh: one bridge, nothing routed out), one node or rank per
# host, at 2 and 4 hosts, on the apps' quick inputs (default SOR, LU, CG).
# Tessera runs TSR_TRANSPORT=ucx through tsrun --hostfile (pages read and
# diffs written one-sided, the defaults); MPI runs mpirun --mca pml ucx
# with UCX's TCP allowed (pml_ucx_tls/devices any), its ranks yielding
# when idle as the harness's do. Each round runs every (app, hosts) pair,
# Tessera then MPI, so that the machine's load falls on both alike; after
# ROUNDS rounds (default 5) one line per pair: the median seconds of
# each, their spread (min-max), the ratio of medians, and Tessera's counts
# of its last round summed over the nodes: pages it read one-sided, and
# reads refused one-sided (a page sticky at its home) and asked for,
# against pages its homes served by message; diffs it wrote one-sided
# against diffs its homes applied from messages; and messages sent.
# Needs root. UCX_NET_DEVICES names the hosts' interfaces (br0 on host 0,
# eth0 on the others) so that UCX's TCP never takes loopback, which is
# each namespace's own.
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift $(($# > 0 ? 1 : 0))
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(sor lu cg)
[ "$(id -u)" -eq 0 ] || { echo "bench/ucx_mpi.sh: network namespaces need root" >&2; exit 1; }
pkg-config --exists ucx || { echo "bench/ucx_mpi.sh: UCX is missing (scripts/deps.sh installs libucx-dev)" >&2; exit 1; }
scripts/deps.sh ssh && scripts/deps.sh bench || exit 1
make -s lib build/bin/tsrun $(for a in "${apps[@]}"; do echo "build/apps/$a build/apps/${a}_mpi"; done) ||
    exit 1

dir=$(mktemp -d /tmp/tsr-ucx.XXXXXX)
. tests/netns.sh
trap 'netns_down; rm -rf "$dir"' EXIT
netns_up "$dir" "tsru$$" 4 || { echo "bench/ucx_mpi.sh: cannot set up the hosts" >&2; exit 1; }
for k in 0 1 2 3; do netns_sshd $k || exit 1; done
on_h0=(ip netns exec "$(netns_name 0)")
export UCX_TLS=tcp UCX_NET_DEVICES=br0,eth0 UCX_WARN_UNUSED_ENV_VARS=n
for n in 2 4; do
    for ((k = 1; k <= n; k++)); do echo "10.77.0.$k slots=1"; done >"$dir/hosts$n"
done

# The slowest node's seconds from a run's RESULT lines, or "failed".
seconds() {
    local out; out=$("$@" 2>"$dir/err") || { echo failed; return; }
    sed -n 's/^RESULT .*seconds=\([0-9.]*\).*verified=PASS.*/\1/p' <<<"$out" | sort -g | tail -1 |
        grep . || echo failed
}
tessera() { # n app args...
    local n=$1 app=$2
    shift 2
    rm -f "$dir/stats.$app.$n"
    seconds env TSR_TRANSPORT=ucx "${on_h0[@]}" \
        build/bin/tsrun -j "$dir/stats.$app.$n" --ssh "$NETNS_SSH" --hostfile "$dir/hosts$n" \
        "build/apps/$app" "$@"
}
mpi() { # n app args...
    local n=$1 app=$2
    shift 2
    seconds "${on_h0[@]}" mpirun --allow-run-as-root -np "$n" --hostfile "$dir/hosts$n" \
        --mca plm_rsh_agent "$NETNS_SSH" --mca oob_tcp_if_include 10.77.0.0/24 \
        --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca btl self \
        --mca osc '^ucx' --mca mpi_yield_when_idle 1 \
        -x UCX_TLS -x UCX_NET_DEVICES -x UCX_WARN_UNUSED_ENV_VARS "build/apps/${app}_mpi" "$@"
}

for ((r = 1; r <= rounds; r++)); do
    for app in "${apps[@]}"; do
        args=$(make -s --no-print-directory "print-${app}_QUICK_ARGS")
        for n in 2 4; do
            echo "$(tessera "$n" "$app" $args)" >>"$dir/t.$app.$n"
            echo "$(mpi "$n" "$app" $args)" >>"$dir/m.$app.$n"
        done
    done
done

# median and min-max of a file of numbers ("failed" counts as none).
summary() { grep -v failed "$1" | sort -g | awk '{ v[NR] = $1 } END {
    if (!NR) { print "failed -"; exit }
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f %.3f-%.3f\n", m, v[1], v[NR] }'; }
printf '%-4s %-12s %2s %9s %15s %9s %15s %6s %8s %8s %8s %8s %8s %8s\n' app input n tessera spread \
    mpi spread ratio got_1s refused served put_1s applied msgs
for app in "${apps[@]}"; do
    args=$(make -s --no-print-directory "print-${app}_QUICK_ARGS")
    for n in 2 4; do
        read -r tm ts < <(summary "$dir/t.$app.$n")
        read -r mm ms < <(summary "$dir/m.$app.$n")
        counts=$(python3 bench/stats_sum.py "$dir/stats.$app.$n" pages_got_onesided \
            onesided_refused pages_served diffs_put_onesided diffs_applied messages_sent 2>/dev/null ||
            echo "- - - - - -")
        ratio=$(awk -v t="$tm" -v m="$mm" 'BEGIN { if (t + 0 > 0 && m + 0 > 0) printf "%.2f", t / m; else print "-" }')
        printf '%-4s %-12s %2s %9s %15s %9s %15s %6s %8s %8s %8s %8s %8s %8s\n' "$app" "${args// /x}" \
            "$n" "$tm" "$ts" "$mm" "$ms" "$ratio" $counts
    done
done
echo "($rounds rounds; $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg))"
