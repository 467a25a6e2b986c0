#!/usr/bin/env bash
# earshot engines names all six engines, says which run here and why not.
set -u
earshot=$1
out=$("$earshot" engines) || { echo "FAIL: earshot engines exited $?"; exit 1; }
echo "$out"
fail=0
for e in cpu-direct cpu-partitioned cpu-nonuniform cuda-circular cuda-partitioned cuda-nonuniform; do
    grep -q "^$e " <<<"$out" || { echo "FAIL: $e is not listed"; fail=1; }
done
grep -q "^cpu-direct  *usable" <<<"$out" || { echo "FAIL: cpu-direct not usable"; fail=1; }
grep -q "^cpu-partitioned  *usable" <<<"$out" || { echo "FAIL: cpu-partitioned not usable"; fail=1; }
grep -q "^cpu-nonuniform  *usable" <<<"$out" || { echo "FAIL: cpu-nonuniform not usable"; fail=1; }
# A CUDA engine is either usable or says why not on the next line.
for e in cuda-circular cuda-partitioned cuda-nonuniform; do
    line=$(grep -A1 "^$e " <<<"$out")
    if grep -q unavailable <<<"$line"; then
        [ "$(sed -n 2p <<<"$line" | tr -d ' ')" != "" ] || { echo "FAIL: $e gives no reason"; fail=1; }
    fi
done
json=$("$earshot" engines --json)
[ "$(grep -c '"name":' <<<"$json")" -eq 6 ] || { echo "FAIL: --json does not list 6 engines"; fail=1; }
exit $fail
