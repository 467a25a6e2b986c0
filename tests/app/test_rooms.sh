#!/usr/bin/env bash
# earshot rooms --show: the parameters of a decay whose reverberation time
# is known (es_make_wav's decay falls 60 dB over the file: RT = its length),
# the plot, JSON, a room whose first channel is silent (measured on the
# next, named), and bad input.
set -u
earshot=$1
make_wav=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$make_wav" "$dir/rt1.wav" decay 48000 1 48000
"$make_wav" "$dir/empty.wav" empty 48000 1
fail=0
table=$("$earshot" rooms --show "$dir/rt1.wav") || { echo "FAIL: exit $?"; fail=1; }
echo "$table"
grep -q "energy decay" <<<"$table" || { echo "FAIL: no decay plot"; fail=1; }
json=$("$earshot" rooms --show "$dir/rt1.wav" --json)
t30=$(sed -n 's/.*"broadband":{[^}]*"t30":\([0-9.]*\).*/\1/p' <<<"$json")
awk -v t="$t30" 'BEGIN { exit !(t >= 0.95 && t <= 1.05) }' ||
    { echo "FAIL: broadband T30 $t30, want 1.00 +- 5 %"; fail=1; }
[ $fail -eq 0 ] && echo "ok   T30 $t30 s for a 1 s decay"
# A stereo room whose first channel is silent (a 1 x 2 jconvolver room
# with the second path alone, imported): measured on channel 2, named; the
# first said silent, never a row of zeros.
"$make_wav" "$dir/mono.wav" decay 48000 1 48000
printf '/convolver/new 1 2 256 48000\n/impulse/read 1 2 1 0 0 0 1 %s\n' "$dir/mono.wav" \
    >"$dir/right.conf"
"$earshot" rooms import-jconvolver "$dir/right.conf" --to "$dir/lib" --name right >/dev/null 2>&1
show=$("$earshot" rooms --show "$dir/lib/right.wav")
if grep -q "(channel 2)" <<<"$show" && grep -q "^  ch 1 *silent" <<<"$show" &&
   grep -q "^  ch 2 " <<<"$show"; then
    echo "ok   a room whose first channel is silent: measured on channel 2, channel 1 said silent"
else
    echo "FAIL a room whose first channel is silent:"
    echo "$show"
    fail=1
fi
for args in "--show $dir/missing.wav" "--show $dir/empty.wav" "--bogus"; do
    "$earshot" rooms $args >/dev/null 2>"$dir/err"
    rc=$?
    if [ $rc -ne 0 ] && [ "$(wc -l <"$dir/err")" -eq 1 ]; then
        echo "ok   rooms $args: $(cat "$dir/err")"
    else
        echo "FAIL rooms $args: exit $rc: $(cat "$dir/err")"
        fail=1
    fi
done
exit $fail
