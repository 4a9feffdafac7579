# tests/slurm.sh - a private Slurm for scripted tests: a slurmctld and
# slurmds configured in a temporary directory, with no authentication
# daemon (auth/none). Sourced by tests/sh/cluster_slurm.sh (one node on
# this host) and tests/sh/cluster_cut.sh (one slurmd in each network
# namespace of tests/netns.sh); needs root.
#
#   slurm_conf DIR CTLADDR NODES...  writes DIR/slurm.conf (state, spool,
#                               pid and log files in DIR, one of each per
#                               node) and exports SLURM_CONF; CTLADDR is
#                               where the slurmds reach slurmctld, each of
#                               NODES the body of a NodeName line
#   slurm_daemon CMD...         starts a daemon, CMD running it in the
#                               foreground, its output in DIR/daemons.out
#   slurm_idle N [PREFIX...]    waits (at most 30 s) until N nodes are
#                               idle, asking through PREFIX sinfo
#   slurm_down                  ends the daemons

slurm_conf() { # dir ctladdr nodes...
    SLURM_DIR=$1
    local port=$((20000 + ($$ % 5000) * 2)) addr=$2 node
    shift 2
    mkdir -p "$SLURM_DIR/state"
    cat >"$SLURM_DIR/slurm.conf" <<EOT
ClusterName=tsrtest
SlurmctldHost=localhost
SlurmctldAddr=$addr
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool.%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.%n.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOT
    for node in "$@"; do echo "NodeName=$node State=UNKNOWN" >>"$SLURM_DIR/slurm.conf"; done
    export SLURM_CONF=$SLURM_DIR/slurm.conf
}

SLURM_DAEMONS=()
slurm_daemon() {
    "$@" >>"$SLURM_DIR/daemons.out" 2>&1 &
    SLURM_DAEMONS+=($!)
}

slurm_idle() { # n [prefix...]
    local n=$1
    shift
    for _ in $(seq 300); do
        [ "$("$@" sinfo -h -N -o %t 2>/dev/null | grep -c '^idle')" -ge "$n" ] && return 0
        kill -0 "${SLURM_DAEMONS[@]}" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# slurmd waits for job steps on SIGTERM, and their slurmstepd may never be
# reaped: after 5 s the daemons are killed outright.
slurm_alive() { local p; for p in "${SLURM_DAEMONS[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
slurm_down() {
    [ ${#SLURM_DAEMONS[@]} -gt 0 ] || return 0
    kill "${SLURM_DAEMONS[@]}" 2>/dev/null
    for _ in $(seq 50); do slurm_alive || break; sleep 0.1; done
    kill -9 "${SLURM_DAEMONS[@]}" 2>/dev/null
    wait "${SLURM_DAEMONS[@]}" 2>/dev/null
    SLURM_DAEMONS=()
}
