#!/usr/bin/env bash
# Makes test_headphone's files (a SimpleHeadphoneIR set by make_sofa.py, a
# room set of another convention, a WAV of 3 channels) and runs it; with
# EARSHOT, play --headphone as a person uses it:
#   - a two-ear filter of 0.5 on the concert hall: the recorded output is
#     half the plain run's, sample for sample (-100 dB);
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
"$2" "$dir/in.wav" noise 48000 1 96000 5 0.01 >/dev/null  # quiet: the limiter stays out
# record [ARGS]: 2.5 s of the noise through the concert hall, the output
# recorded from the first block (the file source and the recording start
# together, so two runs line up sample for sample).
record() { "$earshot" play --room concert-hall --device null --headless --seconds 2.5 \
    --input "$dir/in.wav" --record "$@" >/dev/null 2>&1; }
record "$dir/plain.wav" && record "$dir/halved.wav" --headphone "$dir/half.wav"
said=$(/usr/bin/python3 - "$dir/plain.wav" "$dir/halved.wav" <<'PY'
import math, struct, sys
import numpy as np
def samples(path):
    b = open(path, "rb").read()
    at, fmt = 12, None
    while at + 8 <= len(b):
        tag, size = b[at:at + 4], struct.unpack("<I", b[at + 4:at + 8])[0]
        if tag == b"fmt ":
            fmt = struct.unpack("<HHIIHH", b[at + 8:at + 24])
        if tag == b"data":
            return np.frombuffer(b[at + 8:at + 8 + size], dtype="<f4").reshape(-1, fmt[1])
        at += 8 + size + (size & 1)
a, b = samples(sys.argv[1]), samples(sys.argv[2])
n = min(len(a), len(b))
want, got = 0.5 * a[:n].astype(float), b[:n].astype(float)
err = np.max(np.abs(got - want)) / np.max(np.abs(want))
print("%d %.1f" % (n, 20 * math.log10(err) if err > 0 else -999))
PY
)
read -r frames db <<<"$said"
[ "${frames:-0}" -gt 96000 ] && awk -v d="$db" 'BEGIN { exit !(d < -100) }' &&
    ok "a headphone filter of 0.5: $frames frames recorded, each half the plain run's ($db dB)" ||
    bad "a headphone filter of 0.5: '$said'"
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
