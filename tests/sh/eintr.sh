#!/usr/bin/env bash
# Every loop around a system call, in the nodes and in tsrun, goes on when
# the call is interrupted (EINTR) or moves only part of what was asked (a
# short read or write on a stream socket). A signal interrupts only the
# blocking calls of a thread that takes it (sh/signal_storm); tests/eintr.c,
# preloaded, interrupts any call of any thread, the comm thread's
# included, and cuts TCP transfers short. Each job must pass as it does
# without: 3% of the calls interrupted, 10% of the transfers cut.
. tests/lib.sh

SHIM=$LOG/eintr.so
${CC:-cc} -O2 -shared -fPIC -o "$SHIM" tests/eintr.c -ldl || skip_all "cannot build tests/eintr.c"

# interrupted NAME "TSRUN-ARGS" [ENV...]: the job passes (exit 0, a PASS,
# no FAIL) within 60 s.
interrupted() {
    local name=$1 args=$2; shift 2
    timeout -k 2 60 env "$@" LD_PRELOAD="$SHIM" EINTR_PER_MILLE=30 SHORT_PER_MILLE=100 \
        $TSRUN $args >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -eq 0 ] && grep -q PASS "$LOG/out" && ! grep -q FAIL "$LOG/out"; then ok "eintr/$name"
    else bad "eintr/$name (exit $rc)" "$LOG/out"; fi
}

T=$B/tests/mp
for t in shm tcp udp; do
    interrupted "$t: locks" "-n 3 $T/lock_counter" TSR_TRANSPORT=$t
    interrupted "$t: barriers" "-n 3 $T/barrier_visibility" TSR_TRANSPORT=$t
    interrupted "$t: page fetches and diffs" "-n 3 $T/false_sharing" TSR_TRANSPORT=$t
done
interrupted "lazy protocol" "-n 3 $T/lrc_counted" TSR_PROTO=lrc
interrupted "Munin reduction" "-n 3 $T/munin_reduction"
interrupted "udp, IP multicast" "-n 3 $T/multicast_pages" TSR_TRANSPORT=udp TSR_MULTICAST=ip
interrupted "Themis global addresses, OrderCache" "-n 3 $T/ga_barrier" TSR_GA_ENGINE=ordercache
interrupted "Themis global addresses, Sequencer" "-n 3 $T/ga_write_order" TSR_GA_ENGINE=sequencer
interrupted "fork/join" "-n 3 $T/fork_join"
interrupted "two hosts through ssh, tsrun -p" "-n 3 -p $T/lock_counter" \
    TSR_HOSTS=127.0.0.2:2,127.0.0.3:1 TSR_SSH=tests/loopback_ssh
finish
