#!/usr/bin/python3
"""Writes a SOFA file of the test's own (netCDF4, as AES69 lays it out):
M measurements of R receivers from E emitters, N taps at RATE, the head
turned to M yaw angles evenly round (ListenerView), each filter a unit
step at tap 3 scaled by 0.5 + 0.1 m, and Data.Delay (M x R) of DL samples
on receiver 1 and DR on the others.

  make_sofa.py PATH CONVENTION M R E N RATE DL DR [nan|room|phones|flip]
  make_sofa.py PATH MultiSpeakerBRIR M 2 E N RATE 0 0 speakers 5.0|7.1.4
  make_sofa.py PATH AmbisonicsDRIR M 4 1 N RATE 0 0 ambisonic AZ [NORM [ORDERING]]

`nan` puts a NaN in the last measurement's filter; `room` makes each
filter decaying noise instead (a 0.5 s decay, -30 dB below a unit step),
a room's tail as loud at every orientation; `phones` makes each a
headphone's response (SimpleHeadphoneIR): a unit pulse and a resonance
(3 kHz on receiver 1, 4.5 kHz on the others) that grows by a tenth with
each fitting; `flip` makes an ITD that flips from one measurement to the
next: a unit pulse on receiver 1 at tap 3 and on the others at tap 27
(0.5 ms later at 48 kHz) in even measurements, the other way round in odd
ones; `speakers` places the E emitters where a 5.0 or 7.1.4 layout's
loudspeakers stand (EmitterPosition, spherical, seen from the listener at
the origin) and gives each a response that depends only on where it is
seen from the turned head: for a loudspeaker at azimuth a and elevation e
heard by a head at yaw y, with s = sin(a - y) cos e, a pulse on the left
ear at tap 10 - round(8 s) and on the right at 10 + round(8 s) (the near
ear first), and a second pulse at tap 40 + round(10 sin e); `ambisonic`
writes a first-order room in spherical harmonics (GeneralFIRE's DataType,
AmbisonicsOrder 1, Data.IR's Normalization NORM, default sn3d, and
ChannelOrdering ORDERING, default acn): a plane wave from azimuth AZ
(degrees, level) at tap 3, then decaying noise on every channel. Written in one go, as most tools write SOFA: libmysofa 1.3
then refuses a Data.IR of more than 32 MiB (its headers land past 32 MiB
into the file; earshot's own writer, rooms/sofa_write.c, avoids that), so
the tests' sets from here stay under that."""
import sys

import netCDF4
import numpy as np

path, conv = sys.argv[1], sys.argv[2]
M, R, E, N = (int(v) for v in sys.argv[3:7])
rate, dl, dr = float(sys.argv[7]), float(sys.argv[8]), float(sys.argv[9])
d = netCDF4.Dataset(path, "w", format="NETCDF4")
d.Conventions = "SOFA"
d.Version = "2.1"
d.SOFAConventions = conv
d.SOFAConventionsVersion = "1.0"
ambisonic = len(sys.argv) > 10 and sys.argv[10] == "ambisonic"
d.DataType = "FIRE" if ambisonic else "FIR"
if ambisonic:
    d.AmbisonicsOrder = "1"
d.RoomType = "reverberant"
for a in ("Title", "DateCreated", "DateModified", "APIName", "APIVersion", "AuthorContact",
          "Organization", "License"):
    d.setncattr(a, "earshot test")
for k, v in dict(M=M, R=R, E=E, N=N, C=3, I=1, S=0).items():
    d.createDimension(k, v)


def var(name, dims, data, **attrs):
    v = d.createVariable(name, "f8", dims)
    v[:] = data
    for a, b in attrs.items():
        v.setncattr(a, b)


var("ListenerPosition", ("I", "C"), [[0, 0, 0]], Type="cartesian", Units="metre")
var("ListenerUp", ("I", "C"), [[0, 0, 1]], Type="cartesian", Units="metre")
yaw = np.arange(M) * 360.0 / M
var("ListenerView", ("M", "C"), np.stack([yaw, np.zeros(M), np.ones(M)], 1),
    Type="spherical", Units="degree, degree, metre")
var("ReceiverPosition", ("R", "C", "I"), np.zeros((R, 3, 1)), Type="cartesian", Units="metre")
speaking = len(sys.argv) > 10 and sys.argv[10] == "speakers"
# The loudspeakers' array centred on the listener (EmitterPosition is each
# loudspeaker from SourcePosition).
var("SourcePosition", ("I", "C"), [[0, 0, 0]] if speaking else [[2, 0, 0]], Type="cartesian",
    Units="metre")
SPEAKERS = {"5.0": [(30, 0), (-30, 0), (0, 0), (110, 0), (-110, 0)],
            "7.1.4": [(30, 0), (-30, 0), (0, 0), (135, 0), (-135, 0), (90, 0), (-90, 0),
                      (45, 45), (-45, 45), (135, 45), (-135, 45)]}
speakers = SPEAKERS[sys.argv[11]] if len(sys.argv) > 11 and sys.argv[10] == "speakers" else None
if speakers:
    assert len(speakers) == E, "E must be the layout's loudspeakers"
    var("EmitterPosition", ("E", "C", "I"),
        np.array([[[a], [e], [2.0]] for a, e in speakers]), Type="spherical",
        Units="degree, degree, metre")
else:
    var("EmitterPosition", ("E", "C", "I"), np.zeros((E, 3, 1)), Type="cartesian", Units="metre")
ir = np.zeros((M, R, E, N))
for m in range(M):
    ir[m, :, :, 3] = 0.5 + 0.1 * m
if len(sys.argv) > 10 and sys.argv[10] == "nan":
    ir[M - 1, 0, 0, N // 2] = np.nan
if len(sys.argv) > 10 and sys.argv[10] == "phones":
    n = np.arange(N)
    for m in range(M):
        for r in range(R):
            f = 3000.0 if r == 0 else 4500.0
            ring = 0.3 * (1 + 0.1 * m) * np.exp(-n / 20.0) * np.sin(2 * np.pi * f * n / rate)
            ir[m, r, :, :] = ring
            ir[m, r, :, 0] += 1.0
if len(sys.argv) > 10 and sys.argv[10] == "room":
    rng = np.random.default_rng(38)
    decay = np.exp(-np.arange(N) / (0.5 * rate / 6.9))
    ir = rng.standard_normal((M, R, E, N)) * decay * 0.03
if len(sys.argv) > 10 and sys.argv[10] == "flip":
    ir[:] = 0
    for m in range(M):
        ir[m, 0, :, 3 + 24 * (m % 2)] = 1.0
        ir[m, 1:, :, 3 + 24 * (1 - m % 2)] = 1.0
if speakers:
    ir[:] = 0
    for m in range(M):
        for k, (a, e) in enumerate(speakers):
            s = np.sin(np.radians(a - yaw[m])) * np.cos(np.radians(e))
            ir[m, 0, k, 10 - int(round(8 * s))] = 1.0
            ir[m, 1, k, 10 + int(round(8 * s))] = 1.0
            ir[m, :, k, 40 + int(round(10 * np.sin(np.radians(e))))] += 0.5
if ambisonic:
    az = np.radians(float(sys.argv[11]))
    rng = np.random.default_rng(5)
    decay = np.exp(-np.arange(N) / (0.1 * rate / 6.9))
    ir = rng.standard_normal((M, R, E, N)) * decay * 0.01
    for k, y in enumerate((1.0, np.sin(az), 0.0, np.cos(az))):
        ir[:, k, :, 3] += y
    var("Data.IR", ("M", "R", "E", "N"), ir,
        Normalization=sys.argv[12] if len(sys.argv) > 12 else "sn3d",
        ChannelOrdering=sys.argv[13] if len(sys.argv) > 13 else "acn")
elif E == 1:
    var("Data.IR", ("M", "R", "N"), ir[:, :, 0, :])
else:
    var("Data.IR", ("M", "R", "E", "N"), ir)
var("Data.SamplingRate", ("I",), [rate], Units="hertz")
delay = np.full((M, R), dr)
delay[:, 0] = dl
var("Data.Delay", ("M", "R"), delay)
d.close()
