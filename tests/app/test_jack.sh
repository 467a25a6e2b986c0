#!/usr/bin/env bash
# Live playback under a real audio server: JACK's dummy backend gives a
# JACK server with a real clock and no sound card. earshot plays as its own
# JACK client (--device jack) for 3 s; the blocks it counts must match the
# time that passed and a light engine must miss nothing.
set -u
earshot=$1
make_wav=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
command -v jackd >/dev/null || { echo "FAIL: jackd is not installed (scripts/setup --test installs jackd2)"; exit 1; }
dir=$(mktemp -d)
# A private server, so nothing else on the machine is touched or in the way.
export JACK_DEFAULT_SERVER="earshot-test-$$" JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
jackd --no-realtime -d dummy -r 48000 -p 256 >"$dir/jackd.log" 2>&1 &
jack=$!
trap 'kill $jack 2>/dev/null; wait $jack 2>/dev/null; rm -rf "$dir"' EXIT
jack_wait $jack "$dir/jackd.log" || exit 1
"$make_wav" "$dir/room.wav" decay 48000 2 9600
json=$("$earshot" play --device jack --ir "$dir/room.wav" --block 256 --headless --seconds 3 --json)
rc=$?
echo "$json"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$json"; }
grep -q '"device":"JACK' <<<"$json" || { echo "FAIL: did not play on JACK"; fail=1; }
blocks=$(num blocks); expected=$(num blocks_expected); misses=$(num misses)
# Within 3 %: the stream takes a few periods to start after the clock does.
awk -v b="$blocks" -v e="$expected" 'BEGIN { exit !(b >= 0.97 * e && b <= 1.01 * e + 1) }' ||
    { echo "FAIL: $blocks blocks, $expected expected from the clock"; fail=1; }
[ "$misses" = 0 ] || { echo "FAIL: $misses misses with a light engine"; fail=1; }
[ $fail -eq 0 ] && echo "ok   JACK dummy: $blocks blocks of $expected, 0 misses"

# The microphone: a duplex stream with JACK's capture ports as the input.
json=$("$earshot" play --device jack --input mic --input-device jack --ir "$dir/room.wav" \
    --block 256 --headless --seconds 2 --json)
rc=$?
blocks=$(num blocks); expected=$(num blocks_expected); misses=$(num misses)
if [ $rc -eq 0 ] && [ "$misses" = 0 ] &&
   awk -v b="$blocks" -v e="$expected" 'BEGIN { exit !(b >= 0.95 * e && b <= 1.01 * e + 1) }'; then
    echo "ok   microphone input on JACK: $blocks blocks of $expected, 0 misses"
else
    echo "FAIL microphone input on JACK: exit $rc: $json"
    fail=1
fi

# A rate the server refuses (it runs at 48 kHz): a clear line, non-zero exit.
"$earshot" play --device jack --rate 44100 --ir "$dir/room.wav" --headless --seconds 1 \
    >/dev/null 2>"$dir/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "device 'jack': the server runs at 48000 Hz, not 44100 Hz (--rate 48000)" "$dir/err"; then
    echo "ok   refused rate: $(grep -v 'note:' "$dir/err")"
else
    echo "FAIL refused rate: exit $rc: $(cat "$dir/err")"
    fail=1
fi
# The server dies while earshot plays: the lost device is said in words,
# earshot does not hang or abort on the dead stream, and exits 1.
# A server of its own, so the one above is not the one killed.
export JACK_DEFAULT_SERVER="earshot-lost-$$"
jackd --no-realtime -d dummy -r 48000 -p 256 >"$dir/jackd2.log" 2>&1 &
jack2=$!
# Up when it answers (a fixed sleep was too short on a loaded machine).
jack_wait $jack2 "$dir/jackd2.log" || fail=1
(sleep 1.5; kill $jack2) &
timeout -k 5 20 "$earshot" play --device jack --ir "$dir/room.wav" --headless --seconds 4 \
    >/dev/null 2>"$dir/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "no audio for 1 s (device lost or stalled)" "$dir/err" &&
   grep -q "stopped answering" "$dir/err"; then
    echo "ok   server killed mid-play: said, exit 1"
else
    echo "FAIL server killed mid-play: exit $rc: $(cat "$dir/err")"
    fail=1
fi
wait $jack2 2>/dev/null

# The server killed a moment before a short play ends (before earshot's
# watch could see a stall): the stop must not wait on the dead server
# (a host API that asks it would wait for good): out within 3 s of the
# end (4.5 s from the start), said.
export JACK_DEFAULT_SERVER="earshot-gone-$$"
jackd --no-realtime -d dummy -r 48000 -p 256 >"$dir/jackd3.log" 2>&1 &
jack3=$!
jack_wait $jack3 "$dir/jackd3.log" || fail=1
(sleep 1.2; kill $jack3) &
start=$(date +%s%N)
timeout -k 5 20 "$earshot" play --device jack --ir "$dir/room.wav" --headless --seconds 1.4 \
    >/dev/null 2>"$dir/err"
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
if [ $rc -ne 124 ] && [ "$took" -lt 4500 ] && grep -q "stopped answering" "$dir/err"; then
    echo "ok   server killed just before the end: out in $took ms (exit $rc), said: $(grep 'stopped answering' "$dir/err")"
else
    echo "FAIL server killed just before the end: exit $rc after $took ms: $(cat "$dir/err")"
    fail=1
fi
wait $jack3 2>/dev/null

exit $fail
