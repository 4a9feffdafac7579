#!/usr/bin/env bash
# Every message type of the table in src/transport/msg.h is forged by some
# test (tests/mp/*forge*.c), which checks that the peer it is sent to
# rejects it or drops it and goes on: a type added without a forgery of its
# own fails here.
. tests/lib.sh

types=$(sed -n 's/^ *X(\(MSG_[A-Z0-9_]*\),.*/\1/p' src/transport/msg.h)
[ "$(wc -w <<<"$types")" -gt 40 ] || { bad "msg.h's table read ($(wc -w <<<"$types") types)"; finish; exit; }
for t in $types; do
    if grep -qw "$t" tests/mp/*forge*.c; then ok "$t is forged"
    else bad "$t: no test in tests/mp/*forge*.c forges it"; fi
done
finish
