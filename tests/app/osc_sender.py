#!/usr/bin/env python3
"""OSC packets made by hand (the standard library's socket and struct, no
OSC package), for the head tracker's tests.

  osc_sender.py flood HOST PORT SECONDS RATE
      bundles timed an hour ahead, each holding one /earshot/head with a
      blob (4 KB for the first half of the time, 60 KB for the second), RATE
      a second; prints how many were sent, and of what sizes.
  osc_sender.py yaw HOST PORT YAW [COUNT [LATER]]
      /earshot/head YAW (a float) COUNT times (default 1), 20 ms apart;
      with LATER (seconds), each inside a bundle timed that far ahead.
  osc_sender.py flips HOST PORT SECONDS RATE OUT
      /earshot/head 0 and /earshot/head 180 in turn, RATE a second for
      SECONDS (each due at its own time from the start, not after the
      last); OUT gets a line per packet: the monotonic clock (ns,
      CLOCK_MONOTONIC) just before it was sent, and its yaw.
  osc_sender.py spin HOST PORT SECONDS RATE DEGREES_PER_SECOND
      /earshot/head YAW RATE a second for SECONDS, the yaw turning at
      DEGREES_PER_SECOND (wrapped into -180..180), each due at its own
      time from the start.
"""
import socket
import struct
import sys
import time

NTP_FROM_UNIX = 2208988800  # seconds from 1900 (OSC's epoch) to 1970


def padded(data):
    """data and its NULs to a multiple of 4 bytes, as OSC lays out strings."""
    return data + b"\0" * (4 - len(data) % 4)


def string(text):
    return padded(text.encode())


def blob(data):
    tail = b"\0" * (-len(data) % 4)
    return struct.pack(">i", len(data)) + data + tail


def message(path, tags, arguments):
    return string(path) + string("," + tags) + arguments


def timetag(seconds_ahead):
    now = time.time() + seconds_ahead
    whole = int(now)
    return struct.pack(">II", whole + NTP_FROM_UNIX, int((now - whole) * 2**32))


def bundle(seconds_ahead, *elements):
    out = b"#bundle\0" + timetag(seconds_ahead)
    for element in elements:
        out += struct.pack(">i", len(element)) + element
    return out


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def flood(host, port, seconds, rate):
    sock = socket.socket(family(host), socket.SOCK_DGRAM)
    small = bundle(3600, message("/earshot/head", "b", blob(b"\x55" * 4096)))
    large = bundle(3600, message("/earshot/head", "b", blob(b"\xaa" * 60000)))
    # In bursts every 10 ms: the rate without a core spent between packets.
    per_burst = max(1, rate // 100)
    sent = {len(small): 0, len(large): 0}
    failed = 0
    start = time.monotonic()
    for burst in range(int(seconds * 100)):
        wait = start + burst / 100 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        packet = small if burst < seconds * 50 else large
        for _ in range(per_burst):
            try:
                sock.sendto(packet, (host, port))
                sent[len(packet)] += 1
            except OSError:
                failed += 1
    took = time.monotonic() - start
    print("%d %d %d %d %d %.1f" % (sum(sent.values()), sent[len(small)], len(small),
                                   sent[len(large)], len(large), took))
    if failed:
        print("send failed %d times" % failed, file=sys.stderr)


def yaw(host, port, degrees, count=1, later=None):
    sock = socket.socket(family(host), socket.SOCK_DGRAM)
    for _ in range(count):
        packet = message("/earshot/head", "f", struct.pack(">f", degrees))
        if later is not None:
            packet = bundle(later, packet)
        sock.sendto(packet, (host, port))
        time.sleep(0.02)


def flips(host, port, seconds, rate, out):
    sock = socket.socket(family(host), socket.SOCK_DGRAM)
    packets = [message("/earshot/head", "f", struct.pack(">f", y)) for y in (0.0, 180.0)]
    lines = []
    start = time.monotonic()
    for k in range(int(seconds * rate)):
        wait = start + k / rate - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        sent = time.monotonic_ns()
        sock.sendto(packets[k % 2], (host, port))
        lines.append("%d %d\n" % (sent, 180 * (k % 2)))
    with open(out, "w") as f:
        f.writelines(lines)


def spin(host, port, seconds, rate, speed):
    sock = socket.socket(family(host), socket.SOCK_DGRAM)
    start = time.monotonic()
    for k in range(int(seconds * rate)):
        wait = start + k / rate - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        turned = (speed * k / rate + 180.0) % 360.0 - 180.0
        sock.sendto(message("/earshot/head", "f", struct.pack(">f", turned)), (host, port))


def main(argv):
    what, host, port = argv[1], argv[2], int(argv[3])
    if what == "flood":
        flood(host, port, float(argv[4]), int(argv[5]))
    elif what == "yaw":
        yaw(host, port, float(argv[4]), int(argv[5]) if len(argv) > 5 else 1,
            float(argv[6]) if len(argv) > 6 else None)
    elif what == "flips":
        flips(host, port, float(argv[4]), int(argv[5]), argv[6])
    elif what == "spin":
        spin(host, port, float(argv[4]), int(argv[5]), float(argv[6]))
    else:
        sys.exit("osc_sender.py: flood, yaw, flips or spin, not " + what)


if __name__ == "__main__":
    main(sys.argv)
