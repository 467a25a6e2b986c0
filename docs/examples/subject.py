#!/usr/bin/env python3
"""A listening test's subject over OSC (earshot test PLAN --osc PORT): each
trial is waited for, its labels are heard in turn, and the answer is asked
on the terminal; with --random SEED it answers at random (a pilot run of a
plan before a person sits down). Uses earshot_osc.py beside it.

    subject.py PORT [--random SEED] [--listen SECONDS]
"""
import argparse
import random
import socket
import time

from earshot_osc import Earshot


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--random", type=int, metavar="SEED")
    ap.add_argument("--listen", type=float, default=0.0, metavar="SECONDS",
                    help="how long each label plays before the next")
    a = ap.parse_args()
    e = Earshot(a.port, timeout=10.0)
    pick = random.Random(a.random)
    if not e.wait_up(30.0):
        raise SystemExit("subject.py: no test answers on port %d" % a.port)
    done = 0
    while True:
        try:
            _, v = e.ask("/earshot/get", "test")
        except socket.timeout:  # the test has ended, and earshot with it
            break
        running, trial, trials, kind, labels, hearing = v[1:]
        if not running:
            break
        if trial <= done or not hearing:  # the next trial is being prepared
            time.sleep(0.05)
            continue
        for label in labels.split():
            e.ask("/earshot/hear", label)
            time.sleep(a.listen)
        choices = "same different" if kind == "same" else "a b"
        if a.random is not None:
            answer = pick.choice(choices.split())
        else:
            answer = ""
            while answer not in choices.split():
                answer = input("trial %d of %d (%s): h%s to hear again; answer %s? " %
                               (trial, trials, kind, "/h".join(labels.split()),
                                " or ".join(choices.split()))).strip()
                if answer[1:] in labels.split() and answer[:1] == "h":
                    e.ask("/earshot/hear", answer[1:])
        address, reply = e.ask("/earshot/answer", answer)
        print("trial %d of %d: %s -> %s" % (trial, trials, answer, address.split("/")[-1]))
        done = trial
        if trial == trials:  # the last: the test ends
            break


if __name__ == "__main__":
    main()
