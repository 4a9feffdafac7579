#!/usr/bin/env bash
# Strangers that connect to tsrun's port or to a node's peer port and then
# say nothing, or only one byte, cannot stall the job: while it starts,
# while it runs, and when a node is killed. Each is refused after the
# gate's 1 s (boot/gate.h), and the refusals are logged at most 5 a second.
. tests/lib.sh

# knock PORT: opens 10 silent connections and 10 that send one byte, kept
# open (in this shell) until forget_knocks.
knocks=()
knock() {
    local fd
    for _ in $(seq 10); do
        exec {fd}<>"/dev/tcp/127.0.0.1/$1" && knocks+=("$fd")
        exec {fd}<>"/dev/tcp/127.0.0.1/$1" && knocks+=("$fd") && printf x >&"$fd"
    done 2>/dev/null
}
forget_knocks() {
    for fd in "${knocks[@]}"; do exec {fd}>&-; done
    knocks=()
}

# Each node runs through this wrapper, which leaves tsrun's port (from
# TSR_BOOT) where the test finds it; with DELAY set, node 2 starts that late.
cat >"$LOG/node.sh" <<EOF
echo "\${TSR_BOOT##*:}" >"$LOG/tsrun_port"
[ "\$TSR_NODE" = 2 ] && [ -n "\$DELAY" ] && sleep "\$DELAY"
exec "\$@"
EOF

# port_of WHO: tsrun's port, or node 0's peer port (as logged with TSR_VERBOSE).
port_of() {
    for _ in $(seq 100); do
        local p
        if [ "$1" = tsrun ]; then p=$(cat "$LOG/tsrun_port" 2>/dev/null)
        else p=$(sed -n 's/^tessera: node 0: listening for peers on port \([0-9]*\)$/\1/p' "$LOG/err")
        fi
        [ -n "$p" ] && { echo "$p"; return; }
        sleep 0.05
    done
}

# --- during start-up: node 2 starts 1.5 s late, so tsrun waits for its
# registration and node 0 for the mesh while 20 strangers queue at each port.
start "$LOG/out" "$LOG/err" env DELAY=1.5 TSR_VERBOSE=1 $TSRUN -n 3 bash "$LOG/node.sh" $B/tests/mp/sleeper 2
knock "$(port_of tsrun)"
knock "$(port_of node0)"
timeout 20 tail --pid=$job -f /dev/null; wait $job; rc=$?
forget_knocks
if [ $rc -eq 0 ] && [ "$(grep -c PASS "$LOG/out")" -eq 3 ]; then
    ok "start-up: 40 idle or one-byte strangers at tsrun and node 0, the job still runs"
else
    bad "start-up with strangers (exit $rc)" "$LOG/err"
fi
for who in "tsrun" "tessera: node 0"; do
    if grep -q "^$who: refused connection from 127.0.0.1:[0-9]*: sent nothing within 1 s" "$LOG/err" &&
        grep -q "^$who: refused connection from 127.0.0.1:[0-9]*: sent 1 of 56 hello bytes within 1 s" "$LOG/err" &&
        grep -q "^$who: [0-9]* more refused connections in the last second (not shown)" "$LOG/err" &&
        [ "$(grep -c "^$who: refused connection" "$LOG/err")" -le 10 ]; then
        ok "start-up: $who refuses silent and one-byte strangers, 5 lines a second and a count"
    else
        bad "start-up: $who's refusals" "$LOG/err"
    fi
done

# --- while the job runs: strangers at node 0 are refused (tsrun's port is
# closed by then); a node killed while more of them wait is still reported
# at once. The bound is generous for a loaded machine: a loop that waited
# for each stranger would take 1 s per stranger, 20 s here.
rm -f "$LOG/tsrun_port"
start "$LOG/out" "$LOG/err" env TSR_VERBOSE=1 $TSRUN -n 3 bash "$LOG/node.sh" $B/tests/mp/sleeper 30
wait_ready "$LOG/out" 3
port=$(port_of node0)
knock "$port"
for _ in $(seq 60); do grep -q "^tessera: node 0: refused .*: sent nothing" "$LOG/err" && break; sleep 0.05; done
knock "$port"
knock "$(port_of tsrun)"
victim=$(awk '$1=="ready" && $2==1 {print $3}' "$LOG/out")
t0=$(date +%s.%N)
kill -9 "$victim"
timeout 20 tail --pid=$job -f /dev/null; wait $job; rc=$?
dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
forget_knocks
if grep -q "^tessera: node 0: refused connection from 127.0.0.1:[0-9]*: sent nothing within 1 s" "$LOG/err"; then
    ok "running: node 0 refuses strangers"
else
    bad "running: node 0 did not refuse the strangers" "$LOG/err"
fi
if [ $rc -eq 137 ] && grep -q "^tsrun: node 1 was killed by signal 9" "$LOG/err" &&
    awk -v d="$dt" 'BEGIN { exit !(d < 3) }'; then
    ok "running: kill -9 of node 1 with 20 strangers waiting reported, job ended in $dt s"
else
    bad "running: kill -9 with strangers (exit $rc, $dt s)" "$LOG/err"
fi
finish
