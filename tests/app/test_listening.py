#!/usr/bin/env python3
"""A blind listening test (earshot test PLAN) run headless on the null device
and driven only over OSC by scripted subjects (docs/examples/earshot_osc.py):
  1. a subject who answers at random (a seeded generator): about N/2 correct;
  2. a subject who "hears" (it reads the truth from the session log, which is
     the experimenter's): N of N;
  3. the summaries' p-values equal scipy.stats.binomtest's (one-sided for abx
     and same, two-sided for a preference) to 1e-9;
  4. while a trial runs nothing the subject can ask names a stimulus: gets of
     room or engine refused, other commands refused, the meters without the
     figures that tell engines apart, hear's reply a neutral line;
  5. kill -9 after 5 answers leaves 5 whole answers in the CSV and the JSONL;
  6. `loudness match`: the levels said are the quietest stimulus's loudness
     less each one's (plus its plan level), and what the session plays at
     those levels, recorded, measures within 0.5 LU of each other by a
     BS.1770 meter of the test's own (the standard's 48 kHz coefficients);
  7. a plan that cannot be run as it says (a room that is nowhere, an engine
     this machine lacks, headless with no way to answer): refused at once
     in one line, no answers file made.
test_listening.py EARSHOT MAKE_WAV DOCS_EXAMPLES WORKDIR"""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time

from scipy.stats import binomtest

earshot, make_wav, examples, work = sys.argv[1:5]
sys.path.insert(0, examples)
from earshot_osc import Earshot  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import osc_test_util  # noqa: E402
from osc_test_util import check, free_port, own_env  # noqa: E402


env = own_env(work)
subprocess.run([make_wav, work + "/noise.wav", "noise", "48000", "2", "144000", "5"], check=True)
NAMES = ("classroom", "living-room", "cpu-partitioned", "cpu-nonuniform")
with open(work + "/plan.txt", "w") as f:
    f.write("""# two CPU engines on one room, and two rooms
title   Two CPU engines, two rooms
source  noise.wav
alpha   0.05
stimulus part  room=classroom engine=cpu-partitioned
stimulus nonu  room=classroom engine=cpu-nonuniform
stimulus live  room=living-room engine=cpu-partitioned level=-2
test abx  part nonu  trials=16
test ab   part live  trials=6
test same part live  trials=8
""")
TRIALS = 30


def start(prefix, seed, port, log):
    return subprocess.Popen(
        [earshot, "test", work + "/plan.txt", "--headless", "--device", "null",
         "--osc", str(port), "--log", log, "--answers", prefix, "--seed", str(seed)],
        stdout=subprocess.PIPE, stderr=open(prefix + ".err", "w"), text=True, env=env)


def connect(port):
    e = Earshot(port, timeout=0.2)
    for _ in range(150):
        try:
            if e.ask("/earshot/ping")[0] == "/earshot/pong":
                break
        except socket.timeout:
            pass
    e.sock.settimeout(15.0)
    return e


def state(e):
    """running, trial, trials, kind, labels, hearing"""
    address, args = e.ask("/earshot/get", "test")
    return args[1:]


def wait_trial(e, number):
    for _ in range(1500):
        running, trial, trials, kind, labels, hearing = state(e)
        if not running or (trial == number and hearing):
            return running, kind, labels.split()
        time.sleep(0.02)
    return 0, "", []


def truth(log, number):
    """The experimenter's record of trial `number`, from the session log."""
    for line in reversed(open(log).read().splitlines()):
        v = json.loads(line)
        if v.get("event") == "trial" and v["trial"] == number:
            return v
    return None


def run(subject, prefix, seed, stop_after=None, probe=False):
    port = free_port()
    log = prefix + ".log"
    p = start(prefix, seed, port, log)
    e = connect(port)
    rng = random.Random(7)
    given = 0
    for number in range(1, TRIALS + 1):
        running, kind, labels = wait_trial(e, number)
        if not running:
            check(False, "%s: trial %d never became ready" % (subject, number))
            break
        if probe and number == 1:
            blind_probe(e, labels)
        for label in labels + labels[:1]:
            address, reply = e.ask("/earshot/hear", label)
            if address != "/earshot/done" or any(n in reply[1] for n in NAMES):
                check(False, "hear %s -> %s %s" % (label, address, reply))
        t = truth(log, number)
        if kind == "abx":
            answer = rng.choice("ab") if subject == "random" else t["x"]
        elif kind == "same":
            answer = (rng.choice(["same", "different"]) if subject == "random"
                      else "same" if t["same"] else "different")
        else:
            answer = rng.choice("ab")
        address, reply = e.ask("/earshot/answer", answer)
        if address != "/earshot/done":
            check(False, "answer %s -> %s %s" % (answer, address, reply))
        given += 1
        if stop_after and given == stop_after:
            time.sleep(0.2)
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            return given
    out, _ = p.communicate(timeout=30)
    check(p.returncode == 0, "%s subject: the test ended by itself, status %d; its summary:\n%s"
          % (subject, p.returncode, out.rstrip()))
    return given


def blind_probe(e, labels):
    """What the subject may ask while a trial runs."""
    for name in ("room", "engine", "slot", "block", "latency"):
        address, reply = e.ask("/earshot/get", name)
        check(address == "/earshot/refused" and "hidden while a blind test runs" in reply[1],
              "blind: get %s -> %s" % (name, reply[-1]))
    address, reply = e.ask("/earshot/engine", "cpu-direct")
    check(address == "/earshot/refused" and "not while a blind test runs" in reply[1],
          "blind: engine cpu-direct -> %s" % reply[1])
    address, args = e.ask("/earshot/get", "meters")
    names = set(args[1::2])
    check(not names & {"misses", "load_p99", "slot", "latency_ms", "throughput"} and
          "elapsed" in names, "blind: the meters hold %s" % sorted(names))
    address, reply = e.ask("/earshot/hear", "x" if "x" in labels else labels[-1])
    check(address == "/earshot/done" and not any(n in reply[1] for n in NAMES),
          "blind: hear's reply names nothing: '%s'" % reply[1])


def summary(prefix):
    lines = [json.loads(l) for l in open(prefix + ".jsonl").read().splitlines()]
    return lines, [l for l in lines if "summary" in l][-1]["summary"]


# 1. At random.
run("random", work + "/random", 11, probe=True)
lines, tests = summary(work + "/random")
answers = [l for l in lines if "answer" in l]
abx = [t for t in tests if t["kind"] == "abx"][0]
check(len(answers) == TRIALS and 3 <= abx["k"] <= 13 and abx["p"] > 0.01 and
      not abx["significant"],
      "random subject: abx %d of %d correct, p %.3g, %s" % (abx["k"], abx["n"], abx["p"],
                                                        abx["decision"]))

# 2. One who hears.
run("hearing", work + "/hearing", 12)
lines, tests2 = summary(work + "/hearing")
by = {t["kind"]: t for t in tests2}
check(by["abx"]["k"] == by["abx"]["n"] == 16 and by["same"]["k"] == by["same"]["n"] == 8 and
      by["abx"]["significant"] and by["same"]["significant"],
      "hearing subject: abx %d of %d (p %.3g, %s), same %d of %d (p %.3g)" %
      (by["abx"]["k"], by["abx"]["n"], by["abx"]["p"], by["abx"]["decision"],
       by["same"]["k"], by["same"]["n"], by["same"]["p"]))

# 3. p-values against scipy.
worst = 0
for t in tests + tests2:
    alt = "two-sided" if t["kind"] == "ab" else "greater"
    want = binomtest(t["k"], t["n"], 0.5, alternative=alt).pvalue
    worst = max(worst, abs(t["p"] - want) / want)
check(worst < 1e-9, "p-values equal scipy.stats.binomtest's (largest relative difference %.2g)"
      % worst)

# 5. kill -9 after 5 answers.
prefix = work + "/killed"
run("killed", prefix, 13, stop_after=5)
rows = open(prefix + ".csv").read().splitlines()
jl = open(prefix + ".jsonl").read().splitlines()
whole = all(json.loads(l) is not None for l in jl)
check(len(rows) == 6 and len([l for l in jl if '"answer"' in l]) == 5 and whole,
      "kill -9 after 5 answers: %d CSV rows after the header, %d JSONL answers, every line whole"
      % (len(rows) - 1, len([l for l in jl if '"answer"' in l])))
# 6. Loudness matching, judged on what plays.
import numpy as np  # noqa: E402
from scipy.signal import lfilter  # noqa: E402
import wav_figures  # noqa: E402


def lufs(path, skip=1.0):
    """BS.1770-4 (48 kHz: the standard's own coefficients), after `skip` s."""
    rate, x = wav_figures.read(path)
    x = x.astype(float)[int(skip * rate):]
    assert rate == 48000
    b1, a1 = [1.53512485958697, -2.69169618940638, 1.19839281085285], \
        [1.0, -1.69065929318241, 0.73248077421585]
    b2, a2 = [1.0, -2.0, 1.0], [1.0, -1.99004745483398, 0.99007225036621]
    z = lfilter(b2, a2, lfilter(b1, a1, x, axis=0), axis=0)
    block, hop = 19200, 4800
    p = np.array([np.sum(np.mean(z[i:i + block] ** 2, axis=0))
                  for i in range(0, len(z) - block + 1, hop)])
    loud = -0.691 + 10 * np.log10(p)
    p = p[loud > -70]
    gate = -0.691 + 10 * np.log10(p.mean()) - 10
    p = p[-0.691 + 10 * np.log10(p) > gate]
    return -0.691 + 10 * np.log10(p.mean())


with open(work + "/loud.txt", "w") as f:
    f.write("source noise.wav\nloudness match\n"
            "stimulus near room=vocal-booth\nstimulus far room=cathedral level=-3\n"
            "test ab near far trials=2\n")
r = subprocess.run([earshot, "test", work + "/loud.txt", "--headless", "--device", "null",
                    "--osc", str(free_port()), "--seconds", "1", "--answers", work + "/loud"],
                   capture_output=True, text=True, env=env)
said = {}
for line in r.stderr.splitlines():
    if line.startswith("earshot: test: loudness: "):
        name, value, _, _, played, _ = line.split()[3:9]
        said[name] = (float(value), float(played))
ok = len(said) == 2
if ok:
    quiet = min(v[0] for v in said.values())
    ok = (abs(said["near"][1] - (quiet - said["near"][0])) < 0.051 and
          abs(said["far"][1] - (quiet - said["far"][0] - 3)) < 0.051)
check(ok, "loudness match: %s (LUFS, dB played: the quietest's loudness less each one's, "
      "far's plan level -3 on top)" % said)
heard = {}
for name, room in (("near", "vocal-booth"), ("far", "cathedral")):
    out = work + "/heard-%s.wav" % name
    level = said.get(name, (0, 0))[1] + (3 if name == "far" else 0)
    subprocess.run([earshot, "play", "--headless", "--commands", "--device", "null",
                    "--room", room, "--input", work + "/noise.wav", "--seconds", "7",
                    "--record", out], input="level %.2f\n" % level, capture_output=True,
                   text=True, env=env)
    heard[name] = lufs(out, skip=2.0)
check(abs(heard["near"] - heard["far"]) < 0.5,
      "played at those levels (far without its -3), recorded: %.2f and %.2f LUFS" %
      (heard["near"], heard["far"]))
# 7. Plans that cannot be run as they say: refused at the start, one line.
def refused(plan_text, *flags):
    with open(work + "/bad.txt", "w") as f:
        f.write("source noise.wav\n" + plan_text)
    r = subprocess.run([earshot, "test", work + "/bad.txt", "--device", "null",
                        "--answers", work + "/bad-%d" % len(plan_text)] + list(flags),
                       capture_output=True, text=True, env=env)
    lines = [l for l in r.stderr.splitlines() if l.startswith("earshot: ")]
    return r.returncode != 0 and not os.path.exists(work + "/bad-%d.csv" % len(plan_text)), \
        lines[-1] if lines else r.stderr.strip()


# (the second stimulus: the first is what the session opens on, refused
# there already)
ok, line = refused("stimulus a room=classroom\nstimulus b room=no-such-room\ntest ab a b\n",
                   "--headless", "--osc", str(free_port()))
check(ok and "neither in the library nor a file" in line, "a room that is nowhere: %s" % line)
ok, line = refused("stimulus a room=classroom\nstimulus b room=classroom\ntest ab a b\n",
                   "--headless")
check(ok and "--headless needs --osc" in line, "headless without OSC: %s" % line)
engines = subprocess.run([earshot, "engines"], capture_output=True, text=True, env=env).stdout
if any(l.startswith("cuda-partitioned") and "unavailable" in l for l in engines.splitlines()):
    ok, line = refused("stimulus a room=classroom\n"
                       "stimulus b room=classroom engine=cuda-partitioned\ntest abx a b\n",
                       "--headless", "--osc", str(free_port()))
    check(ok and "cuda-partitioned cannot run here" in line,
          "an engine that cannot run here (it would fall back): %s" % line)
sys.exit(1 if osc_test_util.failures else 0)
