#!/usr/bin/env python3
"""A small OSC client for earshot: a UDP socket and packets built by hand
(no library), as docs/EXPERIMENTS.md describes them.

    from earshot_osc import Earshot
    e = Earshot(port=9000)               # earshot play --osc 9000 ...
    print(e.ask("/earshot/block", 256))  # ('/earshot/done', ['/earshot/block', 'block 256: ...'])
    print(e.ask("/earshot/get", "block"))  # ('/earshot/value', ['block', 256])

Run as a script it sends one command and prints the reply:
    earshot_osc.py PORT get block      earshot_osc.py PORT gain -6
`ping` waits (10 s at most) until earshot answers.
"""
import socket
import struct
import sys
import time


def _pad(data):
    return data + b"\0" * (4 - len(data) % 4)


def _string(text):
    return _pad(text.encode("utf-8"))


def message(address, *args):
    """One OSC message: int -> i, float -> f, str -> s, bool -> T/F,
    bytes -> b (a blob)."""
    tags, body = ",", b""
    for a in args:
        if isinstance(a, bool):
            tags += "T" if a else "F"
        elif isinstance(a, int):
            tags += "i"
            body += struct.pack(">i", a)
        elif isinstance(a, float):
            tags += "f"
            body += struct.pack(">f", a)
        elif isinstance(a, bytes):
            tags += "b"
            body += struct.pack(">i", len(a)) + a + b"\0" * (-len(a) % 4)
        else:
            tags += "s"
            body += _string(str(a))
    return _string(address) + _string(tags) + body


def _read_string(data, at):
    end = data.index(b"\0", at)
    return data[at:end].decode("utf-8", "replace"), (end + 4) & ~3


def parse(data):
    """A message's address and arguments (i, f, s, d, h, T, F)."""
    address, at = _read_string(data, 0)
    tags, at = _read_string(data, at)
    args = []
    for t in tags[1:]:
        if t == "i":
            args.append(struct.unpack_from(">i", data, at)[0])
            at += 4
        elif t == "f":
            args.append(struct.unpack_from(">f", data, at)[0])
            at += 4
        elif t == "h":
            args.append(struct.unpack_from(">q", data, at)[0])
            at += 8
        elif t == "d":
            args.append(struct.unpack_from(">d", data, at)[0])
            at += 8
        elif t == "s":
            text, at = _read_string(data, at)
            args.append(text)
        elif t in "TF":
            args.append(t == "T")
    return address, args


class Earshot:
    """A session's OSC port on this machine (or `host`)."""

    def __init__(self, port, host="127.0.0.1", timeout=5.0):
        self.where = (host, port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1" if host.startswith("127.") else "0.0.0.0", 0))
        self.sock.settimeout(timeout)

    def send(self, address, *args):
        self.sock.sendto(message(address, *args), self.where)

    def send_raw(self, packet):
        self.sock.sendto(packet, self.where)

    def receive(self):
        """The next reply: (address, args)."""
        data, _ = self.sock.recvfrom(65536)
        return parse(data)

    def wait_up(self, seconds=10.0):
        """Pings until earshot answers (it may still be starting): True once
        it does."""
        was = self.sock.gettimeout()
        self.sock.settimeout(0.2)
        try:
            for _ in range(int(seconds / 0.2)):
                try:
                    if self.ask("/earshot/ping")[0] == "/earshot/pong":
                        return True
                except socket.timeout:
                    pass
            return False
        finally:
            self.sock.settimeout(was)

    def ask(self, address, *args, skip=("/earshot/meters", "/earshot/said")):
        """Sends and waits for its reply (done, refused, value or pong),
        passing over meters and said lines a subscription sends."""
        self.send(address, *args)
        while True:
            reply = self.receive()
            if reply[0] not in skip:
                return reply


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: earshot_osc.py PORT COMMAND [VALUES...]   (get block, gain -6, ...)")
    e = Earshot(int(sys.argv[1]))
    if sys.argv[2] == "ping":
        sys.exit(0 if e.wait_up() else "earshot_osc.py: no answer on port %s" % sys.argv[1])
    values = []
    for v in sys.argv[3:]:
        try:
            values.append(int(v))
        except ValueError:
            try:
                values.append(float(v))
            except ValueError:
                values.append(v)
    print(e.ask("/earshot/" + sys.argv[2], *values))
