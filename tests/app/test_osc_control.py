#!/usr/bin/env python3
"""Every command over OSC (live/osc_control.h), from a client that builds its
own packets (docs/examples/earshot_osc.py: a socket, struct), against a
headless session on the null device with --osc and --log:
  1. every row of the command table (earshot play --osc-help) sent once,
     each answered at the sender's port with /earshot/done or
     /earshot/refused naming its address;
  2. refusals word for word the command line's (play --commands' stderr);
  3. gets answered with /earshot/value;
  4. a subscription at 20 a second counted over 5 s: within 10 %;
  5. malformed and unknown messages: a refusal each, counted;
  6. 1,000 messages a second for 10 s (gain, head, get, ping in turn), every
     one answered, 0 engine misses;
  7. the session log: a JSON object a line, each OSC command with its
     origin, status, reply and figures.
The misses of 6 are judged in the release build alone (its run has the
machine to itself); the sanitizer build counts them and says so.
test_osc_control.py EARSHOT DOCS_EXAMPLES release|sanitized"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

earshot = os.path.realpath(sys.argv[1])
release = len(sys.argv) < 4 or sys.argv[3] == "release"
sys.path.insert(0, sys.argv[2])
from earshot_osc import Earshot, message  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import osc_test_util  # noqa: E402
from osc_test_util import check, free_port, own_env  # noqa: E402


work = tempfile.mkdtemp()
env = own_env(work)

# The table's rows, from the program.
table = subprocess.run([earshot, "play", "--osc-help"], capture_output=True, text=True,
                       env=env).stdout
rows = [line.split("|")[1].strip() for line in table.splitlines()
        if line.startswith("| /earshot/")]
commands = [r[len("/earshot/"):] for r in rows]
check("block" in commands and "quit" in commands and "get" in commands,
      "--osc-help lists %d addresses from the command table" % len(rows))
doc = open(os.path.join(sys.argv[2], "..", "EXPERIMENTS.md")).read()
documented = doc.split("<!-- osc-table -->\n")[1].split("<!-- /osc-table -->")[0]
check(documented == table, "docs/EXPERIMENTS.md's table is --osc-help's, line for line")

# The values each command is sent with; None: none. The session plays on the
# null device, so latency and measure are refused there (no microphone).
values = {
    "room": ["living-room"], "engine": ["cpu-nonuniform"], "slot": ["b"], "block": [512],
    "partition": [1024], "pipelined": [True], "raw": [False], "level": [-3.0],
    "mix": [1.0, 0.0, 1.0], "trim": [-2.0], "wet": [-1.0], "dry": ["off"], "gain": [-3.0],
    "bypass": [False], "limiter": [-1.0], "source": ["signal"], "record": [work + "/take.wav"],
    "reset": [], "latency": [], "measure": [], "rescan": [], "head": [30.0, 10.0, 0.0],
    "pitch": [5.0], "roll": [5.0], "panic": [], "unmute": [], "hear": ["a"],
    "answer": ["a"], "quit": [],
}
# Those that must be done here (the rest may be refused, in the CLI's words).
must_do = {"room", "engine", "slot", "block", "level", "mix", "trim", "wet", "dry", "gain",
           "bypass", "limiter", "source", "record", "reset", "rescan", "head", "pitch",
           "roll", "panic", "unmute"}

port = free_port()
log = work + "/session.jsonl"
session = subprocess.Popen(
    [earshot, "play", "--headless", "--json", "--device", "null", "--room", "classroom",
     "--osc", str(port), "--log", log, "--seconds", "120"],
    stdout=subprocess.PIPE, stderr=open(work + "/session.err", "w"), text=True, env=env)
e = Earshot(port, timeout=10.0)
up = False
for _ in range(100):
    try:
        e.sock.settimeout(0.2)
        up = e.ask("/earshot/ping")[0] == "/earshot/pong"
        break
    except socket.timeout:
        continue
e.sock.settimeout(10.0)
check(up, "the session answers /earshot/ping on UDP 127.0.0.1:%d" % port)


def wait_ready():
    """Until nothing is being prepared (a room or engine change built)."""
    for _ in range(300):
        a, args = e.ask("/earshot/get", "meters")
        meters = dict(zip(args[1::2], args[2::2]))  # after the name, pairs
        if meters.get("preparing") == 0:
            return
        time.sleep(0.05)


# 1. Every row.
answered = {}
for name in commands:
    if name in ("get", "subscribe", "unsubscribe", "ping", "quit"):
        continue
    args = values.get(name)
    if args is None:
        check(False, "%s: no test values for it (a new command?)" % name)
        continue
    address, reply = e.ask("/earshot/" + name, *args)
    answered[name] = (address, reply)
    ok = address in ("/earshot/done", "/earshot/refused") and reply[0] == "/earshot/" + name
    if name in must_do:
        ok = ok and address == "/earshot/done"
    check(ok, "/earshot/%s %s -> %s %s" % (name, " ".join(map(str, args)), address,
                                           reply[1][:90] if len(reply) > 1 else ""))
    if name in ("room", "engine", "slot", "block", "level", "source", "panic"):
        wait_ready()
    if name == "record":  # stop it again
        e.ask("/earshot/record")

# 2. Refusals in the command line's words.
bad = ["block 5", "gain 99", "frobnicate", "engine nosuch", "trim x", "head 400",
       "answer a"]
cli = subprocess.run([earshot, "play", "--headless", "--commands", "--device", "null",
                      "--room", "classroom", "--seconds", "30"],
                     input="\n".join(bad) + "\nquit\n", capture_output=True, text=True,
                     env=env)
said = [l[len("earshot: "):] for l in cli.stderr.splitlines() if l.startswith("earshot: ")]
for line in bad:
    words = line.split()
    args = []
    for w in words[1:]:
        try:
            args.append(float(w))
        except ValueError:
            args.append(w)
    address, reply = e.ask("/earshot/" + words[0], *args)
    text = reply[1] if len(reply) > 1 else ""
    check(address == "/earshot/refused" and text in said,
          "'%s' refused in the CLI's words: %s" % (line, text))

# 3. Gets.
for name, want in (("block", 512), ("engine", "cpu-nonuniform"), ("slot", "b")):
    address, reply = e.ask("/earshot/get", name)
    check(address == "/earshot/value" and reply == [name, want],
          "get %s -> %s %s" % (name, address, reply))
address, reply = e.ask("/earshot/get", "nosuch")
check(address == "/earshot/refused" and "no such value" in reply[1],
      "get nosuch -> %s" % reply[1][:60])

# 4. A subscription at 20 a second for 5 s.
e.ask("/earshot/subscribe", 20.0)
start, meters, saids, last = time.monotonic(), 0, 0, None
e.sock.settimeout(0.5)
while time.monotonic() - start < 5.0:
    try:
        address, args = e.receive()
    except socket.timeout:
        continue
    if address == "/earshot/meters":
        meters += 1
        last = dict(zip(args[0::2], args[1::2]))
    elif address == "/earshot/said":
        saids += 1
    if meters == 30 and saids == 0:
        e.send("/earshot/gain", -4.0)  # a line said
e.sock.settimeout(10.0)
e.ask("/earshot/unsubscribe")
check(90 <= meters <= 110, "subscribed at 20 a second: %d meters in 5 s (100 +- 10 %%)" % meters)
check(last is not None and "misses" in last and "load_p99" in last and "elapsed" in last,
      "the meters name their figures: %s" % sorted(last or {}))
check(saids >= 1, "what the session said came too (%d /earshot/said)" % saids)

# 5. Malformed and unknown.
e.send_raw(b"\x01\x02garbage")
address, reply = e.receive()
check(address == "/earshot/refused" and "not an OSC message" in reply[1],
      "bytes that are not OSC: refused (%s)" % reply[1][:60])
address, reply = e.ask("/earshot/block", b"\x00" * 8)
check(address == "/earshot/refused" and "no value" in reply[1],
      "a blob as a value: refused (%s)" % reply[1][:70])
address, reply = e.ask("/earshot/frobnicate", 1)
check(address == "/earshot/refused" and reply[1].startswith("unknown command 'frobnicate'"),
      "an unknown address: refused (%s)" % reply[1][:50])
address, reply = e.ask("/earshot/a/b/c")
check(address == "/earshot/refused", "an address of more parts: refused (%s)" % reply[1][:50])

# 6. 1,000 messages a second for 10 s.
e.ask("/earshot/reset")
wait_ready()
flood = [message("/earshot/gain", -6.0), message("/earshot/head", 20.0),
         message("/earshot/get", "gain"), message("/earshot/ping")]
sent, got, start = 0, 0, time.monotonic()
e.sock.setblocking(False)
while True:
    now = time.monotonic() - start
    if now >= 10.0:
        break
    while sent < now * 1000:
        e.send_raw(flood[sent % 4])
        sent += 1
    try:
        while True:
            e.sock.recvfrom(65536)
            got += 1
    except BlockingIOError:
        pass
    time.sleep(0.002)
deadline = time.monotonic() + 3
while got < sent and time.monotonic() < deadline:
    try:
        e.sock.recvfrom(65536)
        got += 1
    except BlockingIOError:
        time.sleep(0.01)
e.sock.setblocking(True)
e.sock.settimeout(10.0)
address, args = e.ask("/earshot/get", "meters")
m = dict(zip(args[1::2], args[2::2]))
check(sent >= 9900 and got == sent, "%d messages in 10 s, %d replies" % (sent, got))
check(m.get("misses") == 0 or not release,
      "%s engine misses over the flood (%s blocks, %s stalls)%s" %
      (m.get("misses"), m.get("blocks"), m.get("stalls"),
       "" if release else " (not judged: sanitizers)"))

# The end: quit over OSC.
address, reply = e.ask("/earshot/quit")
check(address == "/earshot/done", "/earshot/quit -> %s" % address)
try:
    out, err = session.communicate(timeout=20)
except subprocess.TimeoutExpired:
    session.kill()
    out, err = session.communicate()
check(session.returncode == 0, "the session ended on quit (status %s)" % session.returncode)
try:
    report = json.loads(out)
    osc = report["head"]["osc"]
    check(osc["bad_packets"] >= 1 and osc["unknown"] >= 2 and osc["bad_form"] >= 1,
          "counted: %d bad packets, %d unknown, %d bad form, %d taken" %
          (osc["bad_packets"], osc["unknown"], osc["bad_form"], osc["taken"]))
except (ValueError, KeyError) as x:
    check(False, "the report: %s (%s)" % (x, out[:200]))

# 7. The log.
lines = open(log).read().splitlines()
events = []
for l in lines:
    try:
        events.append(json.loads(l))
    except ValueError:
        check(False, "a log line that is not JSON: %s" % l[:100])
oscs = [v for v in events if v.get("event") == "command" and v["origin"].startswith("osc 127.0.0.1:")]
blocks = [v for v in oscs if v["command"] == "block 512"]
# Every command but ping (answered, not run) is a line: 3 of the flood's 4.
check(len(oscs) >= sent * 3 // 4 and blocks and blocks[0]["status"] == "done" and
      "misses" in blocks[0]["figures"] and blocks[0]["time"].endswith("Z"),
      "the log: %d lines, %d OSC commands; block 512 %s at t %.3f s with its figures" %
      (len(lines), len(oscs), blocks[0]["status"] if blocks else "?",
       blocks[0]["t"] if blocks else 0))
sys.exit(1 if osc_test_util.failures else 0)
