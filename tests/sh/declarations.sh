#!/usr/bin/env bash
# Every multi-process program runs somewhere: it declares a set that a
# configuration of tests/matrix runs, or a scripted test uses it. A program
# that did neither would be built and never run, silently.
. tests/lib.sh

sets=$(sed 's/#.*//' tests/matrix | awk 'NF { print $2 }' | tr ',' '\n' | sort -u)
for f in tests/mp/*.c; do
    prog=$(basename "$f" .c)
    declared=$(sed -n 's|^/\* tsr-test: \([^ ]*\).* \*/$|\1|p' "$f")
    if [ -z "$declared" ]; then
        if grep -q "tests/mp/$prog\b" tests/sh/*.sh; then ok "mp/$prog is a helper of a scripted test"
        else bad "tests/mp/$prog.c declares no /* tsr-test: SET */ line and no tests/sh script uses it"; fi
        continue
    fi
    for set in $declared; do
        if grep -qx "$set" <<<"$sets"; then ok "mp/$prog: set $set is run by tests/matrix"
        else bad "tests/mp/$prog.c declares set '$set', which no configuration of tests/matrix runs"; fi
    done
done
finish
