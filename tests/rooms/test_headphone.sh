#!/usr/bin/env bash
# Makes test_headphone's files (a SimpleHeadphoneIR set by make_sofa.py, a
# room set of another convention, a WAV of 3 channels) and runs it; with
# EARSHOT, play --headphone as a person uses it:
#   - a two-ear filter of 0.5 (-6.02 dB) on the concert hall: the slot's
#     level, output over input, 6.02 dB lower than without (+-0.1 dB);
#   - the designed filter on a SOFA room that follows the head: said at
#     the start, and the room plays;
#   - a room set given as the headphone filter: one line, exit 1.
#   test_headphone.sh TEST_HEADPHONE MAKE_WAV [EARSHOT]
set -u
make=$(dirname "$0")/make_sofa.py
/usr/bin/python3 -c 'import netCDF4' 2>/dev/null ||
    { echo "SKIP python3-netcdf4 is missing (scripts/setup --test installs it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$make" "$dir/phones.sofa" SimpleHeadphoneIR 3 2 1 256 48000 0 0 phones &&
    /usr/bin/python3 "$make" "$dir/room.sofa" SingleRoomSRIR 4 2 1 64 48000 0 0 &&
    "$2" "$dir/three.wav" noise 48000 3 100 >/dev/null ||
    { echo "FAIL the test's files could not be made"; exit 1; }
"$1" "$dir/phones.sofa" "$dir/room.sofa" "$dir/three.wav"
fail=$?
[ $# -ge 3 ] || exit $fail
earshot=$3
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
/usr/bin/python3 - "$dir/half.wav" <<'PY'
import struct, sys, wave
w = wave.open(sys.argv[1], "wb")
w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(struct.pack("<hh", 16384, 16384) + b"\0" * 4 * 63)
w.close()
PY
level() { "$earshot" play --room concert-hall --device null --headless --seconds 2 --json "$@" 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["slots"][0]["level_db"])'; }
plain=$(level) halved=$(level --headphone "$dir/half.wav")
awk -v a="$plain" -v b="$halved" 'BEGIN { d = a - b; exit !(d > 5.92 && d < 6.12) }' &&
    ok "a headphone filter of 0.5: level $plain dB without, $halved dB with (6.02 dB lower)" ||
    bad "a headphone filter of 0.5: level '$plain' without, '$halved' with"
"$earshot" play --room "$dir/room.sofa" --headphone "$dir/phones.sofa" --device null --headless \
    --seconds 1 >"$dir/sofa.txt" 2>&1 &&
    grep -q "headphone filter: .*designed from 3 fittings (2 ears), 4096 taps" "$dir/sofa.txt" &&
    ok "a designed filter on a SOFA room: $(grep -o 'designed from.*' "$dir/sofa.txt")" ||
    bad "a designed filter on a SOFA room: $(cat "$dir/sofa.txt")"
"$earshot" play --headphone "$dir/room.sofa" --device null --headless --seconds 1 >/dev/null \
    2>"$dir/bad.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$dir/bad.err")" = 1 ] && grep -q "SimpleHeadphoneIR" "$dir/bad.err" &&
    ok "a room set as the headphone filter: $(sed "s|$dir/||" "$dir/bad.err")" ||
    bad "a room set as the headphone filter: exit $rc: $(cat "$dir/bad.err")"
exit $fail
