#!/usr/bin/env bash
# bench/cluster_netns.sh [RATE [APP...]] - Tessera against MPI over a real
# network path: four network-namespace hosts (tests/netns.sh) whose every
# link is limited to RATE (tc's syntax; default 1gbit) by a token bucket,
# one node or rank per host. Tessera runs with tsrun --hostfile, MPI with
# mpirun --hostfile over TCP, both through ssh from host 0, on the apps'
# quick inputs (default apps: those with an MPI version). Prints one line
# per app: seconds for each and their ratio. Needs root; one run of each.
# The four hosts share this machine's cores, so MPI's ranks are told to
# yield when idle, as mpirun --oversubscribe would (the harness's runs).
set -uo pipefail
cd "$(dirname "$0")/.."
rate=${1:-1gbit}
shift $(($# > 0 ? 1 : 0))
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(sor mm lu cg)
[ "$(id -u)" -eq 0 ] || { echo "bench/cluster_netns.sh: network namespaces need root" >&2; exit 1; }
scripts/deps.sh ssh && scripts/deps.sh bench || exit 1
make -s all mpi-apps || exit 1

dir=$(mktemp -d /tmp/tsr-bench.XXXXXX)
. tests/netns.sh
trap 'netns_down; rm -rf "$dir"' EXIT
netns_up "$dir" "tsrb$$" 4 "$rate" || { echo "bench/cluster_netns.sh: cannot set up the hosts" >&2; exit 1; }
for k in 0 1 2 3; do netns_sshd $k || exit 1; done
printf '10.77.0.%d slots=1\n' 1 2 3 4 >"$dir/hosts"
on_h0=(ip netns exec "$(netns_name 0)")

# The slowest node's seconds from a run's RESULT lines, or "failed".
seconds() {
    local out; out=$("$@" 2>"$dir/err") || { echo failed; return; }
    sed -n 's/^RESULT .*seconds=\([0-9.]*\).*verified=PASS.*/\1/p' <<<"$out" | sort -g | tail -1 |
        grep . || echo failed
}

printf '%-6s %-18s %10s %10s %8s   (4 hosts, links at %s)\n' app input tessera mpi ratio "$rate"
for app in "${apps[@]}"; do
    args=$(make -s --no-print-directory "print-${app}_QUICK_ARGS")
    t=$(seconds "${on_h0[@]}" build/bin/tsrun --ssh "$NETNS_SSH" --hostfile "$dir/hosts" \
        "build/apps/$app" $args)
    m=$(seconds "${on_h0[@]}" mpirun --allow-run-as-root -np 4 --hostfile "$dir/hosts" \
        --mca plm_rsh_agent "$NETNS_SSH" --mca btl tcp,self --mca mpi_yield_when_idle 1 \
        --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
        "build/apps/${app}_mpi" $args)
    ratio=$(awk -v t="$t" -v m="$m" 'BEGIN { if (t + 0 > 0 && m + 0 > 0) printf "%.2f", t / m; else print "-" }')
    printf '%-6s %-18s %10s %10s %8s\n' "$app" "$args" "$t" "$m" "$ratio"
done
