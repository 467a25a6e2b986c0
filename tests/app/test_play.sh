#!/usr/bin/env bash
# earshot play --headless on the null device: the blocks it reports match
# the time that passed, a light engine misses nothing, the latency is the
# engine's plus the device's, and bad input gets one clear line.
set -u
earshot=$1
make_wav=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$make_wav" "$dir/room.wav" decay 48000 2 4800
fail=0
json=$("$earshot" play --device null --ir "$dir/room.wav" --block 256 --headless --seconds 2 --json)
rc=$?
echo "$json"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$json"; }
blocks=$(num blocks); expected=$(num blocks_expected); misses=$(num misses)
latency=$(num latency_frames); xruns=$(num xruns)
# Blocks within 2 % of what the clock says. A machine that held the audio
# thread up for periods (a loaded CI machine, the sanitizer build) makes
# the null device skip them, each time an xrun: then 85 % at least, never
# more than the clock.
awk -v b="$blocks" -v e="$expected" -v x="${xruns:-0}" \
    'BEGIN { exit !(b >= (x > 0 ? 0.85 : 0.98) * e && b <= 1.02 * e + 1) }' ||
    { echo "FAIL: $blocks blocks, $expected expected ($xruns xruns)"; fail=1; }
[ "$misses" = 0 ] || { echo "FAIL: $misses misses with a light engine"; fail=1; }
# The stall probe ran beside the stream, a wake a period (5.33 ms): about
# as many wakes as blocks (each period it found a whole period late makes
# it skip ahead, so fewer on a stalled machine, never more).
wakes=$(sed -n 's/.*"stall_probe":{"wakes":\([0-9]*\).*/\1/p' <<<"$json")
late_periods=$(sed -n 's/.*"late_periods":\([0-9]*\).*/\1/p' <<<"$json")
stalls=$(num stalls)
awk -v w="$wakes" -v e="$expected" -v l="$late_periods" \
    'BEGIN { exit !(w != "" && w <= 1.02 * e + 2 && w + 3 * l >= 0.9 * e) }' ||
    { echo "FAIL: the stall probe woke '$wakes' times ($late_periods late), $expected blocks expected"; fail=1; }
[ -n "$stalls" ] || { echo "FAIL: no stalls count in the JSON"; fail=1; }
# The test signal is made in the callback: no input buffer is heard.
[ "$latency" = 256 ] || { echo "FAIL: latency $latency, want 256 (0 engine + 256 out; no live input)"; fail=1; }

expect() {
    local want=$1
    shift
    "$earshot" "$@" >/dev/null 2>"$dir/err"
    local rc=$?
    if [ $rc -eq 0 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qF -- "$want" "$dir/err"; then
        echo "FAIL $*: exit $rc: $(cat "$dir/err")"
        fail=1
    else
        echo "ok   $(cat "$dir/err")"
    fi
}
expect "device 'hw:9': no such sound device" \
    play --device hw:9 --ir "$dir/room.wav" --headless --seconds 1
expect "the null device has no microphone" \
    play --device null --input mic --ir "$dir/room.wav" --headless
expect "nothere.wav: No such file" \
    play --device null --input "$dir/nothere.wav" --ir "$dir/room.wav" --headless
expect "the workstation needs a terminal" play --ir "$dir/room.wav"
expect "missing.wav" play --ir "$dir/missing.wav" --headless
expect "--block 4: out of range" play --block 4 --ir "$dir/room.wav" --headless
expect "--outputs 2-3: the room has 2 outputs" \
    play --device null --ir "$dir/room.wav" --outputs 2-3 --headless
# --outputs and --gpu: NaN, huge, empty, signed, a control character and an
# over-long value are each refused in one line naming the option.
for bad in nan 99999999999 '' 0 -1 +2 2-1 1-2-3 $'2\x01' "$(printf '9%.0s' $(seq 300))"; do
    expect "--outputs" play --device null --ir "$dir/room.wav" --outputs "$bad" --headless
done
for bad in nan 99999999999 '' , 0,,1 -1 $'0\x01' "$(printf '0,%.0s' $(seq 300))"; do
    expect "--gpu" play --device null --ir "$dir/room.wav" --engine cuda-nonuniform \
        --gpu "$bad" --headless
done
# A share of the outputs (one host's of a matrix split across hosts): the
# stream has that many channels (the WAV header's channel count at byte 22).
"$earshot" play --device null --ir "$dir/room.wav" --outputs 2 --headless --seconds 0.3 \
    --record "$dir/share.wav" >/dev/null 2>&1
channels=$(od -An -tu2 -j22 -N2 "$dir/share.wav" 2>/dev/null | tr -d ' ')
if [ "$channels" = 1 ]; then
    echo "ok   --outputs 2 of a stereo room: a 1-channel stream"
else
    echo "FAIL --outputs 2 of a stereo room: the recording has '$channels' channels"
    fail=1
fi

# A full disk while recording, simulated by a file size limit (SIGXFSZ
# ignored, so the write fails as on a full disk): one line naming the file,
# a non-zero exit, and what was recorded stays a valid, readable WAV.
(trap '' XFSZ; ulimit -f 400; exec "$earshot" play --device null --ir "$dir/room.wav" \
    --headless --seconds 3 --record "$dir/full.wav") >/dev/null 2>"$dir/err"
rc=$?
# (The line before it says the room that played: a note, not a problem.)
if [ $rc -ne 0 ] && [ "$(grep -vc '^earshot: room ' "$dir/err")" -eq 1 ] &&
   grep -q "full.wav: write failed" "$dir/err" &&
   "$earshot" render --ir "$dir/room.wav" "$dir/full.wav" "$dir/check.wav" >/dev/null 2>&1; then
    echo "ok   full disk: $(cat "$dir/err")"
else
    echo "FAIL full disk: exit $rc: $(cat "$dir/err")"
    fail=1
fi
exit $fail
