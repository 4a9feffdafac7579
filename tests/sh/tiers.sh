#!/usr/bin/env bash
# The test tiers and the CI rule: make check's quick tier lists what
# tests/quick.tier names and nothing else, and a dependency that
# scripts/deps.sh installs, found missing, skips a test but fails it under
# CI=true (tests/lib.sh, missing and missing_all).
. tests/lib.sh
# Its checks are about the tiers themselves, whatever tier and patterns
# started it.
unset TSR_TEST_TIER T

TSR_TEST_TIER=quick tests/run.sh --list >"$LOG/quick" 2>&1
tests/run.sh --list >"$LOG/all" 2>&1
if grep -qx 'unit/config' "$LOG/quick" && grep -qx 'mp/lock_counter default -n 2' "$LOG/quick" &&
    grep -qx 'mp/lock_counter udp -n 2' "$LOG/quick" && grep -qx 'apps/sor -n 2' "$LOG/quick" &&
    ! grep -q -- '-n [13-9]$' "$LOG/quick" && [ "$(grep '^sh/' "$LOG/quick")" = sh/layers ] && [ "$(wc -l <"$LOG/quick")" -lt "$(wc -l <"$LOG/all")" ]; then
    ok "tiers/quick: unit tests, 2 nodes under default, tcp and udp, SOR, layers ($(wc -l <"$LOG/quick") of $(wc -l <"$LOG/all"))"
else
    bad "tiers/quick lists other tests" "$LOG/quick"
fi
if ! TSR_TEST_TIER=nope tests/run.sh --list >"$LOG/out" 2>&1 && grep -q "no tests/nope.tier" "$LOG/out"; then
    ok "tiers/an unknown tier is refused, named"
else
    bad "tiers/unknown tier" "$LOG/out"
fi

# A test whose dependency is missing, run as tests/run.sh runs it.
cat >"$LOG/dep.sh" <<'T'
. tests/lib.sh
# Its checks are about the tiers themselves, whatever tier and patterns
# started it.
unset TSR_TEST_TIER T
missing "frobnicator is missing"
ok "the rest"
finish
T
cat >"$LOG/dep_all.sh" <<'T'
. tests/lib.sh
# Its checks are about the tiers themselves, whatever tier and patterns
# started it.
unset TSR_TEST_TIER T
missing_all "frobnicator is missing"
T
for ci in false true; do
    CI=$ci bash "$LOG/dep.sh" >"$LOG/one.$ci" 2>&1; one=$?
    CI=$ci bash "$LOG/dep_all.sh" >"$LOG/all.$ci" 2>&1; all=$?
    if [ $ci = false ]; then
        [ $one -eq 0 ] && grep -q '^ok 1 # SKIP frobnicator' "$LOG/one.$ci" &&
            [ $all -eq 0 ] && grep -q '^1..0 # SKIP frobnicator' "$LOG/all.$ci"
    else
        [ $one -ne 0 ] && grep -q '^not ok 1 - frobnicator is missing (CI=true' "$LOG/one.$ci" &&
            [ $all -ne 0 ] && grep -q '^not ok 1 - frobnicator' "$LOG/all.$ci" && grep -q '^1..1$' "$LOG/all.$ci"
    fi && ok "tiers/a missing dependency under CI=$ci: $([ $ci = true ] && echo fails || echo skips)" ||
        bad "tiers/a missing dependency under CI=$ci" "$LOG/all.$ci"
done
finish
