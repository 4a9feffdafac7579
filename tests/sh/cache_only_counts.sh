#!/usr/bin/env bash
# Cache-only write detection fetches what `all` does (issue 52, point 5;
# docs/PERFORMANCE.md, "Cache-only write detection"). Without readahead
# (TSR_FETCH_AHEAD=1), whose runs follow the timing of the faults, LU and
# SOR at 4 nodes make the same page requests and invalidations every run,
# under either detection: a sticky home page counted as written for a copy
# nobody took, or left writable under a copy, would add to cache-only's.
# Each app runs with its pages copied from their homes' memory (direct, the
# default on one host) and asked for by message. Counts, not times.
. tests/lib.sh

# counts APP FETCH MODE ARGS...: "page_fetches invalidations faults" of one run.
counts() {
    local app=$1 fetch=$2 mode=$3 json=$LOG/$1.$2.$3.json
    shift 3
    rm -f "$json"
    if ! TSR_FETCH_AHEAD=1 TSR_FETCH=$fetch TSR_WRITE_DETECT=$mode TSR_STATS_JSON=$json \
        timeout -k 2 "${TSR_TEST_TIMEOUT:-120}" $TSRUN -n 4 "$B/apps/$app" "$@" >"$LOG/out" 2>&1; then
        echo "failed"
        return
    fi
    python3 bench/stats_sum.py "$json" page_fetches invalidations read_faults+write_faults
}

for spec in "lu 512 32" "sor 256 256 10"; do
    set -- $spec
    app=$1
    shift
    for fetch in direct message; do
        read -r af ai afaults < <(counts "$app" "$fetch" all "$@")
        read -r cf ci cfaults < <(counts "$app" "$fetch" cache-only "$@")
        name="cache-only: $app $* at 4 nodes ($fetch): requests $cf (all: $af), invalidations $ci ($ai), faults $cfaults ($afaults)"
        if [ "$af" != failed ] && [ "$cf" != failed ] && [ "$cf" = "$af" ] && [ "$ci" = "$ai" ] &&
            [ "$cfaults" -lt "$afaults" ]; then
            ok "$name"
        else
            bad "$name" "$LOG/out"
        fi
    done
done
finish
