#!/usr/bin/env bash
# tests/san_matrix.sh [--no-uffd] [--no-ucx] - the configurations of tests/matrix that
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
# --no-uffd also leaves out the TSR_DETECT=uffd lines, --no-ucx the
# TSR_TRANSPORT=ucx lines (TSan: see Makefile).
set -euo pipefail
cd "$(dirname "$0")/.."
variants='^(wide|wide-lrc|wide16|wide16-lrc|wide16-tcp|wide-ga|wide-udp|wide-ga-udp|udp-faults2|udp-faults3|ga-small|ga-udp-nocache|ga-udp-seq|ga-udp-lossy|ompnow-off|ompnow-ip-faults|ompnow-lrc-faults)$'
skip='^$'
for opt in "$@"; do
    case $opt in
    --no-uffd) skip="$skip|TSR_DETECT=uffd" ;;
    --no-ucx) skip="$skip|TSR_TRANSPORT=ucx" ;;
    *) echo "san_matrix.sh: unknown option $opt" >&2; exit 2 ;;
    esac
done
awk -v variants="$variants" -v skip="$skip" '
/^[[:space:]]*(#|$)/ { print; next }
$1 ~ variants { next }
$0 ~ skip { next }
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
