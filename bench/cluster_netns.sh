#!/usr/bin/env bash
# bench/cluster_netns.sh [RATE [APP...]] - Tessera against MPI over a real
# network path: network-namespace hosts (tests/netns.sh) whose every link
# is limited to RATE (tc's syntax; default 1gbit) by a token bucket.
# Tessera runs with tsrun --hostfile, MPI with mpirun --hostfile, both
# through ssh from host 0, on the apps' quick inputs (default apps: those
# with an MPI version). Two layouts, one line per app each, seconds and
# ratios:
#   4x1  one node or rank on each of four hosts: Tessera (TSR_TRANSPORT's
#        default, auto, which is TCP here) against MPI over TCP;
#   2x2  two on each of two hosts: Tessera under auto (shm rings within a
#        host, TCP between) and under tcp alone, against MPI over TCP. Not
#        MPI's shared memory (vader) within a host: the namespaces share
#        one /dev/shm and one host name, so the two hosts' vader segments
#        have the same names, and ranks crashed in vader.
# Needs root; one run of each. The hosts share this machine's cores, so
# MPI's ranks are told to yield when idle, as mpirun --oversubscribe would
# (the harness's runs).
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
on_h0=(ip netns exec "$(netns_name 0)")

# The slowest node's seconds from a run's RESULT lines, or "failed".
seconds() {
    local out; out=$("$@" 2>"$dir/err") || { echo failed; return; }
    sed -n 's/^RESULT .*seconds=\([0-9.]*\).*verified=PASS.*/\1/p' <<<"$out" | sort -g | tail -1 |
        grep . || echo failed
}
ratio() { awk -v t="$1" -v m="$2" 'BEGIN { if (t + 0 > 0 && m + 0 > 0) printf "%.2f", t / m; else print "-" }'; }

tessera() { # hostfile transport app args...
    local hosts=$1 transport=$2 app=$3
    shift 3
    seconds env TSR_TRANSPORT="$transport" "${on_h0[@]}" build/bin/tsrun --ssh "$NETNS_SSH" \
        --hostfile "$hosts" "build/apps/$app" "$@"
}
mpi() { # hostfile app args...
    local hosts=$1 app=$2
    shift 2
    seconds "${on_h0[@]}" mpirun --allow-run-as-root -np 4 --hostfile "$hosts" \
        --mca plm_rsh_agent "$NETNS_SSH" --mca btl tcp,self --mca mpi_yield_when_idle 1 \
        --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
        "build/apps/${app}_mpi" "$@"
}

printf '10.77.0.%d slots=1\n' 1 2 3 4 >"$dir/hosts4x1"
printf '10.77.0.%d slots=2\n' 1 2 >"$dir/hosts2x2"
printf '%-6s %-18s %10s %10s %8s   (4x1: 4 hosts, one node each; links at %s)\n' \
    app input tessera mpi ratio "$rate"
for app in "${apps[@]}"; do
    args=$(make -s --no-print-directory "print-${app}_QUICK_ARGS")
    t=$(tessera "$dir/hosts4x1" auto "$app" $args)
    m=$(mpi "$dir/hosts4x1" "$app" $args)
    printf '%-6s %-18s %10s %10s %8s\n' "$app" "$args" "$t" "$m" "$(ratio "$t" "$m")"
done
echo
printf '%-6s %-18s %10s %10s %10s %8s %8s   (2x2: 2 hosts, two nodes each)\n' \
    app input auto tcp mpi auto/mpi tcp/mpi
for app in "${apps[@]}"; do
    args=$(make -s --no-print-directory "print-${app}_QUICK_ARGS")
    a=$(tessera "$dir/hosts2x2" auto "$app" $args)
    t=$(tessera "$dir/hosts2x2" tcp "$app" $args)
    m=$(mpi "$dir/hosts2x2" "$app" $args)
    printf '%-6s %-18s %10s %10s %10s %8s %8s\n' "$app" "$args" "$a" "$t" "$m" \
        "$(ratio "$a" "$m")" "$(ratio "$t" "$m")"
done
