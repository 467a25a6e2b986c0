#!/usr/bin/env bash
# earshot bench prints its table for both CPU engines, JSON on request, and
# --find-max finds some IR length; timings themselves are not judged here.
set -u
earshot=$1
fail=0
table=$("$earshot" bench --engine all --ir-seconds 0.05,0.1 --block 64,256 --seconds 0.2) ||
    { echo "FAIL: bench exited $?"; fail=1; }
echo "$table"
for e in cpu-direct cpu-partitioned; do
    [ "$(grep -c "^$e " <<<"$table")" -eq 4 ] || { echo "FAIL: $e should have 4 rows"; fail=1; }
done
grep -q "p99 us" <<<"$table" || { echo "FAIL: no header"; fail=1; }
json=$("$earshot" bench --engine cpu-partitioned --ir-seconds 0.1 --block 128 --seconds 0.2 --json)
echo "$json"
grep -q '"engine":"cpu-partitioned".*"p99_us":[0-9.]*.*"misses":[0-9]*' <<<"$json" ||
    { echo "FAIL: JSON row missing fields"; fail=1; }
max=$("$earshot" bench --engine cpu-direct --block 256 --seconds 0.1 --find-max --max-wall 5)
echo "$max"
grep -q "longest IR with zero misses" <<<"$max" || { echo "FAIL: --find-max printed no result"; fail=1; }
"$earshot" bench --engine nonesuch 2>/dev/null && { echo "FAIL: unknown engine accepted"; fail=1; }
# --matrix N: N x N paths, every one a filter; out-of-range and non-numeric
# values are refused in one line naming the option.
json=$("$earshot" bench --engine cpu-partitioned --matrix 3 --ir-seconds 0.05 --block 128 --seconds 0.1 --json)
grep -q '"paths":9' <<<"$json" || { echo "FAIL: --matrix 3 is not 9 paths: $json"; fail=1; }
json=$("$earshot" bench --engine cpu-partitioned --matrix 3x2 --ir-seconds 0.05 --block 128 --seconds 0.1 --json)
grep -q '"paths":6' <<<"$json" || { echo "FAIL: --matrix 3x2 is not 6 paths: $json"; fail=1; }
# --find-max-paths: the most outputs of --matrix's inputs at zero misses.
max=$("$earshot" bench --engine cpu-partitioned --matrix 2 --ir-seconds 0.01 --block 256 --seconds 0.05 --find-max-paths --json 2>/dev/null)
grep -q '"inputs":2,"max_outputs":[1-9][0-9]*,"max_paths":' <<<"$max" ||
    { echo "FAIL: --find-max-paths printed no result: $max"; fail=1; }
"$earshot" bench --engine cpu-partitioned --find-max-paths --seconds 0.1 2>/dev/null &&
    { echo "FAIL: --find-max-paths without --matrix accepted"; fail=1; }
for bad in 0 257 0x2 2x0 3x nan 1e9 '' $'3\x01' "$(printf '9%.0s' $(seq 300))"; do
    err=$("$earshot" bench --engine cpu-partitioned --matrix "$bad" --seconds 0.1 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -q -- "--matrix\|matrix" <<<"$err"; then
        echo "FAIL: --matrix '${bad:0:20}' gave exit $rc: $err"; fail=1
    fi
done
exit $fail
