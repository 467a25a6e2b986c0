#!/usr/bin/env python3
"""Figures of float WAV files (earshot's renders and recordings), for the
app tests; numpy reads the samples, nothing else is needed.

  wav_figures.py ild FILE FROM TO
      the level of channel 1 over channel 2 (dB) between FROM and TO s.
  wav_figures.py maxstep FILE FROM TO
      the largest sample-to-sample difference on any channel in that span.
  wav_figures.py maxstep-of DIR PREFIX FROM TO
      the same, the largest over every DIR/PREFIX*.wav.
  wav_figures.py largest-jump DIR PREFIX FROM TO
      the largest difference, sample for sample, between two files of
      DIR/PREFIX<N>.wav whose N are next to each other (sorted by N): the
      step a change between the two, made at once, would give.
"""
import glob
import os
import re
import struct
import sys

import numpy as np


def read(path):
    """(rate, samples[frames][channels]) of a float WAV."""
    data = open(path, "rb").read()
    at, rate, channels = 12, None, None
    while at + 8 <= len(data):
        chunk, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        if chunk == b"fmt ":
            channels, rate = struct.unpack("<HI", data[at + 10:at + 16])
        if chunk == b"data":
            body = np.frombuffer(data[at + 8:at + 8 + size], dtype="<f4")
            return rate, body.reshape(-1, channels)
        at += 8 + size + (size & 1)
    sys.exit("wav_figures.py: %s: no data chunk" % path)


def span(path, start, end):
    rate, x = read(path)
    return x[int(float(start) * rate):int(float(end) * rate)]


def ild(path, start, end):
    x = span(path, start, end).astype(np.float64)
    return 10 * np.log10((x[:, 0] ** 2).sum() / (x[:, 1] ** 2).sum())


def maxstep(path, start, end):
    x = span(path, start, end).astype(np.float64)
    return float(np.abs(np.diff(x, axis=0)).max())


def numbered(folder, prefix):
    files = glob.glob(os.path.join(folder, prefix + "*.wav"))
    key = lambda f: float(re.search(r"(-?[0-9.]+)\.wav$", f).group(1))
    return sorted(files, key=key)


def main(argv):
    what = argv[1]
    if what == "ild":
        print("%.2f" % ild(*argv[2:5]))
    elif what == "maxstep":
        print("%.6f" % maxstep(*argv[2:5]))
    elif what == "maxstep-of":
        print("%.6f" % max(maxstep(f, argv[4], argv[5]) for f in numbered(argv[2], argv[3])))
    elif what == "largest-jump":
        files = numbered(argv[2], argv[3])
        spans = [span(f, argv[4], argv[5]).astype(np.float64) for f in files]
        jumps = [np.abs(spans[k] - spans[(k + 1) % len(spans)]).max() for k in range(len(spans))]
        print("%.6f" % max(jumps))
    else:
        sys.exit("wav_figures.py: ild, maxstep, maxstep-of or largest-jump, not " + what)


if __name__ == "__main__":
    main(sys.argv)
