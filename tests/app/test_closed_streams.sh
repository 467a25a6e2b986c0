#!/usr/bin/env bash
# Closed standard streams are never reused (core/files.h,
# es_std_streams_guard). Without the guard the next file opened takes
# descriptor 0 or 2:
#  - `--commands <&-`: the input WAV became standard input, and the bytes
#    "\nrecord PATH\n" in its samples started a recording;
#  - `--record rc.wav 2>&-`: earshot's messages were written into the
#    recording (non-finite samples, peaks of 3.4e38).
# Each is run as the fault: no command taken from the WAV, and every
# sample of the recording finite and within +-1 (read by a parser that is
# not libsndfile).
set -u
. "$(dirname "$0")/cli_lib.sh"

# A 16-bit WAV whose sample bytes spell commands.
python3 - "$dir" <<'PY'
import struct, sys
d = sys.argv[1]
line = f"\nrecord {d}/taken.wav\nquit\n".encode()
data = (line * (48000 * 4 // len(line) + 1))[:48000 * 4]  # 1 s, stereo, 16 bit
fmt = struct.pack("<HHIIHH", 1, 2, 48000, 48000 * 4, 4, 16)
wav = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<I", 16) + fmt
open(f"{d}/cmdin.wav", "wb").write(wav + b"data" + struct.pack("<I", len(data)) + data)
PY
grep -aq "record $dir/taken.wav" cmdin.wav || bad "the WAV holds the command in its samples"

"$earshot" play --device null --headless --commands --input cmdin.wav --seconds 2 \
    >out.txt 2>err.txt <&-
rc=$?
if [ $rc -eq 0 ] && [ ! -e taken.wav ]; then
    ok "<&-: no command read from the input WAV (exit 0, nothing recorded)"
else
    bad "<&-: exit $rc, taken.wav $( [ -e taken.wav ] && echo made || echo absent): $(head -c 300 err.txt)"
fi

# Messages on the way (an unknown room, a bad command, the room's note)
# with standard error closed.
printf 'room no-such-room\nbogus\nwet -3\n' |
    "$earshot" play --device null --headless --commands --seconds 2 --record rc.wav >out.txt 2>&-
rc=$?
read -r frames nonfinite peak < <(python3 "$here/wav_samples.py" rc.wav 2>/dev/null)
if [ $rc -eq 0 ] && [ "${frames:-0}" -gt 48000 ] && [ "${nonfinite:-1}" -eq 0 ] &&
    awk -v p="${peak:-9}" 'BEGIN { exit !(p <= 1) }'; then
    ok "2>&-: the recording is audio alone: $frames frames, 0 non-finite, peak $peak"
else
    bad "2>&-: exit $rc, frames ${frames:-?}, non-finite ${nonfinite:-?}, peak ${peak:-?}"
fi

# Standard output closed: the report goes nowhere, and nothing else breaks.
"$earshot" play --device null --headless --seconds 1 --json --record out.wav >&- 2>err.txt
rc=$?
read -r frames nonfinite peak < <(python3 "$here/wav_samples.py" out.wav 2>/dev/null)
if [ $rc -eq 0 ] && [ "${nonfinite:-1}" -eq 0 ]; then
    ok ">&-: exit 0, the recording whole ($frames frames)"
else
    bad ">&-: exit $rc, non-finite ${nonfinite:-?}: $(head -c 300 err.txt)"
fi
exit $fail
