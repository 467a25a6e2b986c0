#!/usr/bin/env bash
# earshot latency on JACK's dummy backend: earshot's first output port is
# wired to its input port in JACK's graph while it waits. Such a loop
# passes no port's latency: a click comes back one period later, plus what
# gathering a block longer than the period adds (block - period). The
# measured round trip must be that, equal to the computed one, said as a
# loop inside the graph, exit 0, the five clicks agreeing; the same figure
# ten times in a row. A loop cut while the clicks play: exit 1, no
# figure, said. With nothing wired: exit 1 and the line saying no click
# came back. On the null device: refused in one line
# (no microphone), as is a bad block.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
command -v jackd >/dev/null || { echo "FAIL: jackd is not installed (scripts/setup --test installs jackd2)"; exit 1; }
dir=$(mktemp -d)
export JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1 JACK_DEFAULT_SERVER="earshot-latcmd-$$"
jack=; wirer=
trap 'kill $wirer $jack 2>/dev/null; wait $wirer $jack 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; cat "$dir/out" "$dir/err"; fail=1; fi; }

"$earshot" latency --device null >"$dir/out" 2>"$dir/err"; rc=$?
check "null device: refused in one line naming the missing microphone, exit 2" \
    "[ $rc = 2 ] && [ \$(wc -l <'$dir/err') = 1 ] && grep -q 'no microphone' '$dir/err'"
"$earshot" latency --block 7 >"$dir/out" 2>"$dir/err"; rc=$?
check "--block 7: exit 2, one line naming --block" "[ $rc = 2 ] && grep -q -- '--block 7' '$dir/err'"

period=256
jackd --no-realtime -d dummy -r 48000 -p $period >"$dir/jackd.log" 2>&1 &
jack=$!
jack_wait $jack "$dir/jackd.log" || exit 1
# wire_loop [DROP_AFTER]: the loopback cable, wired as soon as earshot's
# ports are there (and cut DROP_AFTER seconds later).
wire_loop() {
    for _ in $(seq 100); do jack_lsp | grep -qx 'earshot:in_1' && break; sleep 0.05; done
    jack_disconnect system:capture_1 earshot:in_1 2>/dev/null
    jack_connect earshot:out_L earshot:in_1
    if [ -n "${1:-}" ]; then
        sleep "$1"
        jack_disconnect earshot:out_L earshot:in_1
    fi
}
for block in 64 512; do
    wire_loop &
    wirer=$!
    "$earshot" latency --device jack --block $block --wait 1 >"$dir/out" 2>"$dir/err"; rc=$?
    wait $wirer; wirer=
    want=$(( block > period ? block : period )) # one period, and block - period gathered
    check "block $block: exit 0, measured = computed = $want, said as a loop inside the graph: $(cat "$dir/out")" \
        "[ $rc = 0 ] && grep -q '^measured $want frames (.* ms; the median of 5 clicks, $want to $want), computed $want frames (the output wired straight to the input inside the graph' '$dir/out'"
done
# The same figure ten times in a row.
figures=
for run in $(seq 10); do
    wire_loop &
    wirer=$!
    "$earshot" latency --device jack --block 64 --wait 0.5 --json >"$dir/out" 2>"$dir/err"
    wait $wirer; wirer=
    figures+="$(sed -n 's/.*"measured":\([0-9]*\).*/\1/p' "$dir/out") "
done
check "ten in a row: $figures" "[ \"\$(tr ' ' '\\n' <<<'$figures' | grep -c '^$period$')\" = 10 ]"
# A loop cut while the clicks play: refused, no figure.
wire_loop 2.2 &
wirer=$!
"$earshot" latency --device jack --block 64 --wait 1 >"$dir/out" 2>"$dir/err"; rc=$?
wait $wirer; wirer=
check "a loop cut mid-way: exit 1, $(cat "$dir/err")" \
    "[ $rc = 1 ] && grep -Eq 'of 5 clicks came back .*: the loop drops sound; no figure|no click came back' '$dir/err'"
"$earshot" latency --device jack --block 64 --wait 0.2 >"$dir/out" 2>"$dir/err"; rc=$?
check "nothing wired: exit 1, 'no click came back within 0.5 s'" \
    "[ $rc = 1 ] && grep -q 'no click came back within 0.5 s: is the output looped to the input' '$dir/err'"
exit $fail
