#!/usr/bin/env bash
# A message whose payload lies in invalid shared pages is sent, not deadlocked
# (tests/mp/send_shared.c); -t bounds the old behaviour, a hang.
. tests/lib.sh
for n in 2 3; do
    run "send_shared -n $n" $TSRUN -n $n -t 20 $B/tests/mp/send_shared
done
finish
