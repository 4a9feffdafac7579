# tests/netns.sh - "hosts" for multi-host tests and benchmarks: network
# namespaces on one bridge, each with its own sshd. Sourced by
# tests/sh/cluster_ssh.sh and bench/cluster_netns.sh; needs root.
#
#   netns_up DIR TAG N [RATE]   hosts 0..N-1 at 10.77.0.1..N, namespaces
#                               TAG-h0.., keys and logs in DIR; RATE (tc
#                               syntax, e.g. 1gbit) limits every link with a
#                               token bucket, both ways
#   netns_sshd K [CONFIG...]    starts host K's sshd, extra config lines after
#   netns_exec K CMD...         runs CMD on host K
#   netns_down                  stops the sshds, kills every process left
#                               in the namespaces, deletes them
#   NETNS_SSH                   the ssh command that logs into the hosts
#   netns_rank K N JOB CMD...   runs CMD on host K as node K of the N-node
#                               job JOB, the nodes meeting through a
#                               rendezvous directory in DIR, as when another
#                               launcher starts them, each at its host's
#                               address
#   netns_test_hosts TAG N [DEP...]  for a scripted test (tests/lib.sh):
#                               netns_up in $LOG, torn down at exit; the
#                               test is skipped, saying why, unless it runs
#                               as root, ssh and each scripts/deps.sh DEP
#                               install and the namespaces come up
#
# The addresses exist only inside the namespaces: nothing is routed out.
# The bridge lives in host 0, which also has an address on it; hosts 1..N-1
# each hold one end of a veth pair whose other end is a bridge port.

netns_name() { echo "$NETNS_TAG-h$1"; }
netns_exec() { local k=$1; shift; ip netns exec "$(netns_name "$k")" "$@"; }

# A token bucket on one interface: RATE, a burst of a few milliseconds.
netns_limit() { # k dev rate
    ip -n "$(netns_name "$1")" link set "$2" txqueuelen 1000
    tc -n "$(netns_name "$1")" qdisc add dev "$2" root tbf rate "$3" burst 256kb latency 20ms
}

netns_up() { # dir tag n [rate]
    NETNS_DIR=$1 NETNS_TAG=$2 NETNS_N=$3
    local rate=${4:-} h0 k
    h0=$(netns_name 0)
    ip netns add "$h0" || return 1
    ip -n "$h0" link set lo up
    ip -n "$h0" link add br0 type bridge
    ip -n "$h0" addr add 10.77.0.1/24 dev br0
    ip -n "$h0" link set br0 up
    for ((k = 1; k < NETNS_N; k++)); do
        ip netns add "$(netns_name $k)" || return 1
        ip -n "$h0" link add "v$k" type veth peer name eth0 netns "$(netns_name $k)" || return 1
        ip -n "$h0" link set "v$k" master br0 up
        ip -n "$(netns_name $k)" link set lo up
        ip -n "$(netns_name $k)" addr add "10.77.0.$((k + 1))/24" dev eth0
        ip -n "$(netns_name $k)" link set eth0 up
        if [ -n "$rate" ]; then
            netns_limit 0 "v$k" "$rate" && netns_limit $k eth0 "$rate" || return 1
        fi
    done
    mkdir -p /run/sshd
    ssh-keygen -q -t ed25519 -N '' -f "$NETNS_DIR/host_key" &&
        ssh-keygen -q -t ed25519 -N '' -f "$NETNS_DIR/id" || return 1
    NETNS_SSH="ssh -F /dev/null -i $NETNS_DIR/id -o IdentitiesOnly=yes -o StrictHostKeyChecking=no"
    NETNS_SSH+=" -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=5"
}

# The hosts' root logs in with an empty home of its own (SetEnv HOME, which
# bash reads ~/.bashrc from): bash sources ~/.bashrc for every ssh command,
# and the machine's may wait on its own state. A pyenv whose rehash lock a
# killed login left behind made every command wait 60 s, and the tests time
# out.
netns_sshd() { # k [config lines...]
    local k=$1 conf=$NETNS_DIR/sshd.$1.conf
    shift
    mkdir -p "$NETNS_DIR/home"
    cat >"$conf" <<EOF
Port 22
ListenAddress 10.77.0.$((k + 1))
HostKey $NETNS_DIR/host_key
AuthorizedKeysFile $NETNS_DIR/id.pub
PidFile $NETNS_DIR/sshd.$k.pid
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
SetEnv HOME=$NETNS_DIR/home
EOF
    printf '%s\n' "$@" >>"$conf"
    netns_exec "$k" /usr/sbin/sshd -f "$conf" -E "$NETNS_DIR/sshd.$k.log"
}

netns_down() {
    local k
    for ((k = 0; k < ${NETNS_N:-0}; k++)); do
        [ -f "$NETNS_DIR/sshd.$k.pid" ] && kill "$(cat "$NETNS_DIR/sshd.$k.pid")" 2>/dev/null
        # Whatever a failed test left in the host (a launcher's daemon, a
        # node) would outlive its namespace.
        ip netns pids "$(netns_name $k)" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$(netns_name $k)" 2>/dev/null
    done
    return 0
}

netns_rank() { # k n job cmd...
    local k=$1 n=$2 job=$3
    shift 3
    netns_exec "$k" env TSR_ADDR=10.77.0.$((k + 1)) TSR_RENDEZVOUS="$NETNS_DIR/rdv.$job" \
        OMPI_COMM_WORLD_SIZE="$n" OMPI_COMM_WORLD_RANK="$k" PMIX_NAMESPACE="$job" "$@"
}

netns_test_hosts() { # tag n [deps...]
    local tag=$1 n=$2 dep
    shift 2
    [ "$(id -u)" -eq 0 ] || skip_all "network namespaces need root"
    for dep in ssh "$@"; do
        scripts/deps.sh "$dep" >"$LOG/deps" 2>&1 ||
            missing_all "cannot install what '$dep' needs: $(tail -1 "$LOG/deps")"
    done
    trap 'netns_down; rm -rf "$LOG"' EXIT
    netns_up "$LOG" "$tag" "$n" >"$LOG/net" 2>&1 ||
        skip_all "cannot create network namespaces: $(tail -1 "$LOG/net")"
}
