#!/usr/bin/env bash
# A measured round trip: earshot plays the microphone on JACK's dummy
# backend, its first output port is connected to its input port in JACK's
# graph (a loopback cable), and the `latency` command (the workstation's l)
# sends a click and finds it in the input. JACK's graph implies the delay
# independently of earshot's model: a connection from a client's output
# back to its own input is read one period later, and a block longer than
# the period is gathered (block - period more): one period, or the block
# when it is longer. The measured figure must be exactly that, equal to
# the computed one, and said as a loop inside the graph.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
command -v jackd >/dev/null || { echo "FAIL: jackd is not installed (scripts/setup --test installs jackd2)"; exit 1; }
dir=$(mktemp -d)
export JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
jack=; player=
trap 'kill $player $jack 2>/dev/null; wait $player $jack 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
for period in 64 256; do
    export JACK_DEFAULT_SERVER="earshot-loop-$$-$period"
    jackd --no-realtime -d dummy -r 48000 -p "$period" >"$dir/jackd.log" 2>&1 &
    jack=$!
    jack_wait $jack "$dir/jackd.log" || { fail=1; kill $jack; wait $jack; continue; }
    for block in 32 $period 1024; do
        jack_earshot "$dir/in" /dev/null "$dir/log" earshot:in_1 --input mic --block "$block" \
            --seconds 30
        player=$pid
        jack_disconnect system:capture_1 earshot:in_1 2>/dev/null
        jack_connect earshot:out_L earshot:in_1
        echo latency >&3
        line=
        for _ in $(seq 50); do
            line=$(grep -E 'latency (measured|: no click)' "$dir/log") && break
            sleep 0.1
        done
        echo quit >&3; exec 3>&-; wait $player; player=
        measured=$(sed -n 's/.*latency measured \([0-9]*\) fr.*/\1/p' <<<"$line")
        computed=$(sed -n 's/.*computed \([0-9]*\) fr.*/\1/p' <<<"$line")
        want=$(( block > period ? block : period ))
        if [ "$measured" = $want ] && [ "$computed" = "$measured" ] &&
           grep -q 'inside the graph' <<<"$line"; then
            echo "ok   period $period block $block: $line"
        else
            echo "FAIL period $period block $block: expected $want, a loop inside the graph: ${line:-nothing said}"
            cat "$dir/log"; fail=1
        fi
    done
    kill $jack; wait $jack 2>/dev/null
done
exit $fail
