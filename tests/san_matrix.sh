#!/usr/bin/env bash
# tests/san_matrix.sh [--no-uffd] - the configurations of tests/matrix that
# the sanitizer builds run (make check-asan, make check-tsan), on stdout.
#
# A sanitizer finds a bug in the code a configuration reaches, whatever its
# node count or seed, and each sanitized run costs several times an
# ordinary one. So the sanitizers run every protocol, backend, detection
# mode and engine that tests/matrix names, but:
#  - `default` at all of its node counts, every other line only at 2 and 4
#    nodes (or at its largest count if it has neither);
#  - not the lines that only vary a parameter of another line (another
#    fault seed, another cache shape, multicast off, more nodes: the wide
#    lines): `make test` runs them.
# --no-uffd also leaves out the TSR_DETECT=uffd lines (TSan: see Makefile).
set -euo pipefail
cd "$(dirname "$0")/.."
variants='^(wide|wide-lrc|wide16|wide16-lrc|wide16-tcp|wide-ga|wide-udp|wide-ga-udp|udp-faults2|udp-faults3|ga-small|ga-udp-nocache|ga-udp-seq|ga-udp-lossy|ompnow-off|ompnow-ip-faults|ompnow-lrc-faults)$'
awk -v variants="$variants" -v no_uffd="${1:-}" '
/^[[:space:]]*(#|$)/ { print; next }
$1 ~ variants { next }
no_uffd == "--no-uffd" && /TSR_DETECT=uffd/ { next }
$1 != "default" {
    n = split($3, counts, ",")
    kept = ""
    for (i = 1; i <= n; i++)
        if (counts[i] == 2 || counts[i] == 4)
            kept = kept (kept == "" ? "" : ",") counts[i]
    if (kept == "")
        kept = counts[n]
    $3 = kept
}
{ print }' tests/matrix
