#!/usr/bin/env bash
# tsrun fits its descriptor limit to the job: it raises the soft limit as
# far as the hard one allows, and otherwise refuses the job at once with one
# line saying why, starting nothing. A job whose poll set outgrew the limit
# used to make tsrun spin forever.
. tests/lib.sh

# 40 nodes with -p need about 190 descriptors in tsrun: more than the soft
# limit of 100, less than the hard one.
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 400 ]; then
    skip_all "the hard descriptor limit is below 400"
fi
expect_ok "soft limit 100, -n 40 -p: tsrun raises the limit and the job runs" \
    "^\[0\] startup 40 PASS" bash -c "ulimit -Sn 100 && exec $TSRUN -n 40 -p $B/tests/mp/startup"

# refused NAME LIMIT ARGS...: exit 2 at once, one line naming -n and the limit.
refused() {
    local name=$1 limit=$2; shift 2
    timeout -k 2 20 bash -c "ulimit -n $limit && exec $TSRUN $*" >"$LOG/out" 2>&1; local rc=$?
    local nodes; nodes=$(sed -n 's/^tsrun: -n \([0-9]*\).* needs about [0-9]* file descriptors per process but the limit is '"$limit"' (raise it with ulimit -n)$/\1/p' "$LOG/out")
    if [ $rc -eq 2 ] && [ -n "$nodes" ] && [ "$(wc -l <"$LOG/out")" -eq 1 ]; then ok "$name (exit $rc)"
    else bad "$name (exit $rc)" "$LOG/out"; fi
}
refused "hard limit 100, -n 40 -p: refused in one line" 100 -n 40 -p $B/tests/mp/startup
refused "hard limit 1024, -n 342 -p: refused in one line" 1024 -n 342 -p $B/tests/mp/startup
refused "hard limit 1024, -n 1000: refused in one line, no cascade" 1024 -n 1000 $B/tests/mp/startup
# The full mesh of 4096 nodes holds about 4096 x 4096 descriptors.
if [ "$(cat /proc/sys/fs/file-max 2>/dev/null || echo 0)" -lt 16000000 ]; then
    expect_fail "-n 4096: more descriptors than the system allows, refused in one line" \
        "^tsrun: -n 4096 needs about [0-9]* file descriptors in all but the system allows [0-9]* (fs.file-max)" \
        $TSRUN -n 4096 $B/tests/mp/startup
fi
finish
