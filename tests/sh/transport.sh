#!/usr/bin/env bash
# The transport's backends (TSR_TRANSPORT): the choice and its checks, the
# shm backend's memory (tsrun's memfd, closed once mapped, never a file),
# and, under shm, where the TCP mesh carries nothing and the comm thread
# sleeps on a futex: the stranger gate and failure detection; and who takes
# the replies (never the waiting thread under TSR_PROGRESS=block).
. tests/lib.sh
P="$B/tests/mp/lock_counter"

expect_fail "transport/TSR_TRANSPORT=quic refused" "TSR_TRANSPORT='quic' is not one of the accepted values" \
    env TSR_TRANSPORT=quic $P 1
expect_fail "transport/TSR_HEARTBEAT=3601 refused" "TSR_HEARTBEAT='3601' is not an integer in \[0, 3600\]" \
    env TSR_HEARTBEAT=3601 $P 1
expect_fail "transport/TSR_HEARTBEAT=-1 refused" "TSR_HEARTBEAT='-1' is not an integer" \
    env TSR_HEARTBEAT=-1 $P 1
expect_fail "transport/TSR_SHM_FD=x refused" "TSR_SHM_FD='x' is not an integer" \
    env TSR_SHM_FD=x $P 1

# Which backend each setting gives, as TSR_VERBOSE reports it (unset is
# auto: every node on this host, so shm).
for pair in tcp:tcp shm:shm udp:udp auto:shm :shm; do
    want=${pair#*:} set=${pair%%:*}
    expect_ok "transport/TSR_TRANSPORT=${set:-unset} runs over $want" "transport: $want" \
        env TSR_TRANSPORT=$set TSR_VERBOSE=1 $TSRUN -n 2 $P
done

# A node's descriptors and mappings while the job runs: the rings are the
# memfd's mapping, no descriptor of them is left, and nothing is in /dev/shm.
start "$LOG/out" "$LOG/err" env TSR_TRANSPORT=shm $TSRUN -n 2 $B/tests/mp/sleeper 3
if wait_ready "$LOG/out" 2; then
    pid=$(awk '$1=="ready" && $2==1 {print $3}' "$LOG/out")
    maps=$(grep -c "memfd:tessera-rings" /proc/$pid/maps)
    fds=$(ls -l /proc/$pid/fd | grep -c "memfd:tessera-rings")
    files=$(ls /dev/shm 2>/dev/null | grep -ci tessera)
    if [ "$maps" -ge 1 ] && [ "$fds" -eq 0 ] && [ "$files" -eq 0 ]; then
        ok "transport/shm rings are an anonymous memfd, mapped, descriptor closed"
    else
        bad "transport/shm rings ($maps mappings, $fds descriptors, $files files in /dev/shm)" "$LOG/err"
    fi
    # tsrun keeps its descriptor for the job's life: another user cannot
    # open it through /proc (checked as nobody, when root can switch).
    fd=$(ls -l /proc/$job/fd | awk '/memfd:tessera-rings/ {print $9}')
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ -n "$fd" ]; then
        if head -c 8 /proc/$job/fd/$fd >/dev/null 2>&1 &&
            ! setpriv --reuid=65534 --regid=65534 --clear-groups head -c 8 /proc/$job/fd/$fd >/dev/null 2>&1; then
            ok "transport/shm rings: the owner opens tsrun's memfd, another user cannot"
        else
            bad "transport/shm rings: another user's access to tsrun's memfd (fd $fd)" "$LOG/err"
        fi
    fi
else
    bad "transport/shm rings (job never ready)" "$LOG/err"
fi
wait $job

# The stranger gate still works when the comm thread sleeps on a futex
# rather than in poll: a wrong secret is refused and logged, the job goes on.
start "$LOG/out" "$LOG/err" env TSR_TRANSPORT=shm TSR_VERBOSE=1 $TSRUN -n 2 $B/tests/mp/sleeper 4
wait_ready "$LOG/out" 2
port=$(sed -n 's/^tessera: node 0: listening for peers on port \([0-9]*\)$/\1/p' "$LOG/err")
python3 tests/intruder.py "$port" >"$LOG/intruder" 2>&1
wait $job; rc=$?
if [ $rc -eq 0 ] && grep -q "refused connection from 127.0.0.1:[0-9]*: bad job secret" "$LOG/err" &&
    [ "$(grep -c PASS "$LOG/out")" -eq 2 ]; then
    ok "transport/shm: a stranger with a wrong secret is refused, job unharmed"
else
    cat "$LOG/intruder" >>"$LOG/err"; bad "transport/shm: stranger (exit $rc)" "$LOG/err"
fi

# Under shm a waiting thread takes its own replies only while it spins:
# with TSR_PROGRESS=block it never does, and the comm thread delivers them.
expect_ok "transport/shm, TSR_PROGRESS=block: no reply taken by its waiter" \
    "node 1: 0 corrupted echoes, 0 requests open, 0 replies taken" \
    env TSR_TRANSPORT=shm TSR_PROGRESS=block $TSRUN -n 2 $B/tests/mp/echo_crossing

# A node killed: the others name it (the mesh's end of file).
for t in shm tcp udp; do
    start "$LOG/out" "$LOG/err" env TSR_TRANSPORT=$t $TSRUN -n 3 $B/tests/mp/sleeper 60
    if wait_ready "$LOG/out" 3; then
        kill -9 "$(awk '$1=="ready" && $2==2 {print $3}' "$LOG/out")"
        wait $job; rc=$?
        named=$(grep -c "^tessera: node [01]: stopping: node 2 " "$LOG/err")
        if [ $rc -ne 0 ] && [ "$named" -eq 2 ]; then ok "transport/$t: kill -9 node 2 of 3 named by both others (exit $rc)"
        else bad "transport/$t: kill -9 node 2 of 3 (exit $rc, named by $named)" "$LOG/err"; fi
    else
        kill $job; bad "transport/$t: kill -9 (never ready)" "$LOG/err"
    fi
done

# An idle job's comm threads sleep until something arrives or the next
# heartbeat check (4 a second): once both nodes have started, node 0
# blocks in read() until this shell closes its input, node 1 in
# tsr_finalize, and each node's threads together switch out a few times a
# second, under udp as under tcp. udp's comm thread once woke every 5 ms to
# look for retransmissions due: over 200 a second.
# switches: "NODES SWITCHES", the voluntary context switches of the job's
# nodes (tsrun's children), all threads.
switches() {
    local total=0 nodes=0 p f
    for p in $(pgrep -P "$job"); do
        nodes=$((nodes + 1))
        for f in /proc/$p/task/*/status; do
            total=$((total + $(awk '/^voluntary_ctxt_switches/ {print $2}' "$f" 2>/dev/null || echo 0)))
        done
    done
    echo "$nodes $total"
}
for t in tcp udp; do
    rm -f "$LOG/out" "$LOG/err"
    mkfifo "$LOG/in.$t"
    TSR_TRANSPORT=$t $TSRUN -n 2 $B/tests/mp/stdin_echo <"$LOG/in.$t" >"$LOG/out" 2>"$LOG/err" &
    job=$!
    exec {input}>"$LOG/in.$t"
    wait_ready "$LOG/out" 2
    read -r n0 before < <(switches); sleep 1; read -r n1 after < <(switches)
    exec {input}>&-
    wait $job
    per_node=$(((after - before) / 2))
    if [ "$n0" -eq 2 ] && [ "$n1" -eq 2 ] && [ "$per_node" -lt 40 ] && grep -q "node 1 read 0 bytes" "$LOG/out"; then
        ok "transport/$t: an idle node's threads switch out $per_node times a second"
    else bad "transport/$t: an idle node's threads switch out $per_node times a second (at most 40; $n0 and $n1 nodes seen)" "$LOG/err"; fi
done

# Forged datagrams to a udp node: dropped and counted, the job unharmed.
start "$LOG/out" "$LOG/err" env TSR_TRANSPORT=udp TSR_VERBOSE=1 TSR_STATS=1 $TSRUN -n 2 $B/tests/mp/sleeper 3
wait_ready "$LOG/out" 2
port=$(sed -n 's/^tessera: node 0: udp: datagrams on port \([0-9]*\)$/\1/p' "$LOG/err")
sent=$(python3 tests/udp_intruder.py "$port" 2>>"$LOG/err")
wait $job; rc=$?
rejected=$(cat "$LOG/out" "$LOG/err" |
    awk '$1 == "udp_rejected" {print $2}') # node 0's column of the job's table
if [ $rc -eq 0 ] && [ -n "$sent" ] && [ "${rejected:-0}" -eq "$sent" ] && [ "$(grep -c PASS "$LOG/out")" -eq 2 ]; then
    ok "transport/udp: $sent forged datagrams dropped and counted, job unharmed"
else bad "transport/udp: forged datagrams (exit $rc, sent ${sent:-none}, rejected ${rejected:-none})" "$LOG/err"; fi
finish
