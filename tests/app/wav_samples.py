#!/usr/bin/env python3
"""wav_samples.py FILE.wav: every sample of a WAV (PCM 16/24/32 or IEEE
float 32/64, WAVE_FORMAT_EXTENSIBLE too) read by its own parser, not by
libsndfile, so a file earshot wrote is judged by a reader that is not
earshot's. Prints "FRAMES NONFINITE PEAK"; exit 1 when it is not a WAV."""
import math
import struct
import sys


def chunks(data):
    at = 12
    while at + 8 <= len(data):
        cid, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        yield cid, data[at + 8:at + 8 + size]
        at += 8 + size + (size & 1)


def main(path):
    data = open(path, "rb").read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        print(f"{path}: not a WAV", file=sys.stderr)
        return 1
    fmt = samples = None
    for cid, body in chunks(data):
        if cid == b"fmt ":
            fmt = struct.unpack("<HHIIHH", body[:16])
            if fmt[0] == 0xFFFE:  # extensible: the sub-format's first word
                fmt = (struct.unpack("<H", body[24:26])[0],) + fmt[1:]
        elif cid == b"data":
            samples = body
    if not fmt or samples is None:
        print(f"{path}: no fmt or data chunk", file=sys.stderr)
        return 1
    tag, channels, _, _, _, bits = fmt
    width = bits // 8
    count = len(samples) // width
    if tag == 3:
        values = struct.unpack(f"<{count}{'f' if width == 4 else 'd'}", samples[:count * width])
    elif width in (2, 4):
        scale = float(1 << (bits - 1))
        values = [v / scale for v in
                  struct.unpack(f"<{count}{'h' if width == 2 else 'i'}", samples[:count * width])]
    else:  # 24-bit
        scale = float(1 << 23)
        values = [int.from_bytes(samples[k:k + 3], "little", signed=True) / scale
                  for k in range(0, count * 3, 3)]
    nonfinite = sum(1 for v in values if not math.isfinite(v))
    peak = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    print(count // channels, nonfinite, f"{peak:.6g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
