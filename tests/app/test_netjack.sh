#!/usr/bin/env bash
# netjack2 on one machine. A master (JACK's dummy backend) with netmanager
# loaded, a slave (jackd -d net) over the loopback interface, earshot on the
# slave playing its capture port (what the master sends) through a room to
# its playback ports (what goes back). On the master, jack_tap plays noise
# into the slave's ports and records what comes back; wav_match finds the
# render of the same noise through the same room in the recording.
#   - sample-exact: the recording equals the render (largest difference
#     under -120 dB of the peak; the float path through JACK, netjack2's
#     float encoding and PortAudio is exact, so it is -300, nothing) and is
#     silent outside it, for the whole run: a lost cycle would show;
#   - the round trip is the same in three runs, each with fresh servers;
#   - what netjack2 adds, the round trip less that of the same tap, earshot
#     and room on a server of their own, is the latency the slave's ports
#     declare;
#   - the first run lasts NETJACK_SECONDS (60 by default; 20 in the
#     sanitizer build, whose point is memory, not time), the others 3 s:
#     no xrun and no skipped cycle on the slave (a tap watching its server,
#     and the slave's log), earshot counts no xrun, and the master (the tap
#     that plays) lost none either, or only in a stall of the machine (below).
# Period 256 at 48 kHz, netjack2's default network latency (5 cycles;
# NETJACK_LATENCY sets another, for docs/SCALING.md's table).
#
# A machine that stops every thread for a few milliseconds loses cycles on
# any JACK server, netjack2 or not; the 2-core virtual machine this was
# written on does, with nothing else running, for 5 to 70 ms once or twice
# a minute. The taps' probe (jack_tap --probe: a real-time thread on each
# CPU, waking every millisecond) tells such a stop apart. When the dummy
# master's clock alone wakes late in one, the slave may lose nothing: that
# counts as clean. A try whose lost cycles on the slave all came during or
# just after a stall is the machine's and is run again (NETJACK_TRIES times
# at most, 5 by default); lost cycles outside a stall fail at once. The
# servers run with real-time scheduling where the machine grants it, as
# netjack2 is meant to be run; without it a busy machine loses cycles every
# few seconds.
set -u
earshot=$(realpath "$1")
make_wav=$(realpath "$2")
tap=$(realpath "$3")
match=$(realpath "$4")
build=${5:-release}
long=${NETJACK_SECONDS:-$([ "$build" = sanitized ] && echo 20 || echo 60)}
tries=${NETJACK_TRIES:-5}
for t in jackd jack_lsp jack_load jack_unload; do
    command -v $t >/dev/null ||
        { echo "FAIL: $t is not installed (scripts/setup --test installs jackd2)"; exit 1; }
done
dir=$(mktemp -d)
export JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
period=256 cycles=${NETJACK_LATENCY:-5}
rt=--no-realtime # real-time where the machine grants it (above)
chrt -f 1 true 2>/dev/null && rt=--realtime
master=; server=; slave=; player=; watch=; sender=
# The slave first; then netmanager unloaded, or the master waits 6 s for it
# to deactivate (and leaves its semaphores behind).
stop_all() {
    [ -n "$player" ] && { echo quit >&3; exec 3>&-; wait $player; } 2>/dev/null
    # (wait with no process waits for every child: each one by itself.)
    for p in $watch $sender $slave; do kill $p; wait $p; done 2>/dev/null
    if [ -n "$master" ]; then
        JACK_DEFAULT_SERVER=$server jack_unload netmanager >/dev/null 2>&1
        kill $master; wait $master
    fi 2>/dev/null
    player=; watch=; sender=; slave=; master=
}
trap 'stop_all; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
trap '' PIPE # a closed output or a dead earshot's FIFO: an error, not the end
fail=0
bad() { echo "FAIL $*"; fail=1; }
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2"; }
# Waits up to 10 s for a line matching $2 from jack_lsp on server $1 (or,
# with $1 a file, in that file).
seen() {
    for _ in $(seq 100); do
        if [ -f "$1" ]; then
            grep -q "$2" "$1"
        else
            JACK_DEFAULT_SERVER=$1 jack_lsp 2>/dev/null | grep -q "$2"
        fi && return 0
        sleep 0.1
    done
    return 1
}
start_master() {
    server=$1
    JACK_DEFAULT_SERVER=$1 jackd $rt -d dummy -r 48000 -p $period >"$dir/master.log" 2>&1 &
    master=$!
    seen "$1" system:playback_2 ||
        { bad "the master $1 did not come up: $(cat "$dir/master.log")"; return 1; }
}
# earshot on server $1: the microphone (capture_1) through the room; it
# quits through the FIFO.
start_player() {
    rm -f "$dir/in"; mkfifo "$dir/in"
    JACK_DEFAULT_SERVER=$1 "$earshot" play --device jack --input mic --ir "$dir/room.wav" \
        --engine cpu-partitioned --block $period --headless --commands --json \
        --seconds 600 <"$dir/in" >"$dir/play.json" 2>"$dir/play.err" &
    player=$!
    exec 3>"$dir/in"
    seen "$1" PortAudio:out_1 ||
        { bad "earshot did not start on $1: $(cat "$dir/play.err")"; return 1; }
}
stop_player() {
    echo quit >&3; exec 3>&-; wait $player; player=
}
# The try was the machine's: every lost cycle the taps saw came with a
# stall, and there was one.
machine_stalled() {
    local f
    for f in "$@"; do grep -q 'lost cycles outside a stall 0$' "$f" || return 1; done
    grep -q -E 'machine: .*, [1-9][0-9]* stalls' "$@"
}

# The noise and its render, for each length used; the room is a short
# decaying noise, 1 input to 2 outputs, used as it is.
"$make_wav" "$dir/room.wav" decay 48000 2 2400 7 0.1
for s in 3 "$long"; do
    "$make_wav" "$dir/noise-$s.wav" noise 48000 1 $((48000 * s)) 3 0.5
    "$earshot" render --ir "$dir/room.wav" --engine cpu-partitioned --block $period \
        "$dir/noise-$s.wav" "$dir/render-$s.wav" >/dev/null 2>&1 ||
        { echo "FAIL: earshot render"; exit 1; }
done
# Lines the recording up against the render of $2 seconds: sets delay and
# says the errors in $match_line; 1 when it is not the render.
match_line=
check_match() {
    match_line=$("$match" "$dir/rec.wav" "$dir/render-$1.wav" 48000) || return 1
    delay=$(sed -n 's/^delay \([0-9]*\) frames.*/\1/p' <<<"$match_line")
    awk -v w="$(sed -n 's/.*worst \([-0-9.]*\) dB.*/\1/p' <<<"$match_line")" \
        -v o="$(sed -n 's/.*outside \([-0-9.]*\) dB.*/\1/p' <<<"$match_line")" \
        'BEGIN { exit !(w <= -120 && o <= -120) }'
}
tap_clean() { grep -q '^jack_tap: .*xruns 0, skipped 0$' "$1"; }
tap_says() {
    sed -n '/^jack_tap: ready$/d; s/^jack_tap: //p' "$1" | sed 's/^[0-9]* frames at .*; //' |
        paste -sd ' '
}

# One try of the baseline: the tap feeds earshot on a server of their own.
# 0: measured (local_delay); 1: failed; 2: the machine stalled.
local_try() {
    start_master "earshot-nj-local-$$" && start_player "$server" || return 1
    JACK_DEFAULT_SERVER=$server jack_disconnect system:capture_1 PortAudio:in_0
    JACK_DEFAULT_SERVER=$server "$tap" --play "$dir/noise-3.wav" --to PortAudio:in_0 \
        --record "$dir/rec.wav" --from PortAudio:out_0 --from PortAudio:out_1 --seconds 4 \
        --probe >"$dir/tap.out" 2>&1
    stop_player
    if tap_clean "$dir/tap.out" && check_match 3; then
        local_delay=$delay
        echo "     without the network: $match_line"
        return 0
    fi
    local what; what="the tap: $(tap_says "$dir/tap.out"); ${match_line:-no match}"
    machine_stalled "$dir/tap.out" &&
        { echo "     without the network, the machine stalled: $what; again"; return 2; }
    bad "without the network: $what"
    return 1
}

# One try of netjack2: run $1, $2 seconds of noise. 0: measured (delay);
# 1: failed; 2: the machine stalled.
net_try() {
    local run=$1 s=$2 name=earshot-net slave_server="earshot-nj-slave-$$-$1"
    # A port of its own, so that two runs on one machine never pair up.
    local port=$((20000 + ($$ * 7 + run) % 20000))
    start_master "earshot-nj-master-$$-$run" || return 1
    JACK_DEFAULT_SERVER=$server jack_load -i "-p $port" netmanager >/dev/null ||
        { bad "run $run: netmanager did not load: $(cat "$dir/master.log")"; return 1; }
    JACK_DEFAULT_SERVER=$slave_server jackd $rt -d net -a 127.0.0.1 -p $port \
        -n $name -C 1 -P 2 -l $cycles >"$dir/slave.log" 2>&1 &
    slave=$!
    if ! seen "$server" "$name:from_slave_2" || ! seen "$slave_server" system:playback_2; then
        bad "run $run: the slave did not join: $(cat "$dir/master.log" "$dir/slave.log")"
        return 1
    fi
    # JACK's word on the network's latency: the slave's port latencies.
    lat() { JACK_DEFAULT_SERVER=$slave_server jack_lsp -l "$1" |
            sed -n "s/.*$2 latency = \[ \([0-9]*\).*/\1/p"; }
    declared=$(( $(lat system:capture_1 capture) + $(lat system:playback_1 playback) ))
    # Both taps join (and the master's touches its buffers) before earshot
    # starts, and leave (and write the recording) after it has quit: no
    # client comes or goes while anything counts (jack_tap.c says why).
    # The watch on the slave counts from before the noise leaves the master
    # to after it is back.
    JACK_DEFAULT_SERVER=$server "$tap" --play "$dir/noise-$s.wav" --to $name:to_slave_1 \
        --record "$dir/rec.wav" --from $name:from_slave_1 --from $name:from_slave_2 \
        --seconds $((s + 1)) --wait --hold --probe >"$dir/tap.out" 2>&1 &
    sender=$!
    JACK_DEFAULT_SERVER=$slave_server "$tap" --name watch --seconds $((s + 2)) --wait --hold \
        --probe >"$dir/watch.out" 2>&1 &
    watch=$!
    if ! seen "$dir/tap.out" '^jack_tap: ready' || ! seen "$dir/watch.out" '^jack_tap: ready'
    then
        bad "run $run: the taps did not start: $(cat "$dir/tap.out" "$dir/watch.out")"
        return 1
    fi
    start_player "$slave_server" || return 1
    # What the slave's log says while the taps count (joins and leaves out).
    local from; from=$(wc -l <"$dir/slave.log")
    kill -USR1 $watch; sleep 0.2; kill -USR1 $sender
    local t
    for t in tap:$sender watch:$watch; do
        for _ in $(seq $((10 * s + 150))); do
            grep -q '^jack_tap: [0-9]' "$dir/${t%:*}.out" && break
            kill -0 ${t#*:} 2>/dev/null || break
            sleep 0.1
        done
    done
    # netjack2 says a packet it did not get, or a late cycle, in its log.
    local logged
    logged=$(tail -n +$((from + 1)) "$dir/slave.log" | grep -i -E 'missing|lost|error|xrun')
    stop_player
    kill $sender $watch; wait $sender $watch; sender=; watch=
    local xruns; xruns=$(num xruns "$dir/play.json")
    check_match "$s"; local matched=$?
    # The slave clean; the master clean too, or what its clock lost (the
    # dummy backend waking late) all in stalls of the machine.
    if tap_clean "$dir/watch.out" && [ "$xruns" = 0 ] && [ -z "$logged" ] && [ $matched = 0 ] &&
       { tap_clean "$dir/tap.out" || machine_stalled "$dir/tap.out"; }; then
        echo "     run $run ($s s): $match_line; taps on the slave and the master:" \
             "$(tap_says "$dir/watch.out"), $(tap_says "$dir/tap.out");" \
             "earshot: $xruns xruns in $(num blocks "$dir/play.json") blocks"
        if [ -n "${local_delay:-}" ] && [ $((delay - local_delay)) != "$declared" ]; then
            bad "run $run: netjack2 adds $((delay - local_delay)) frames;" \
                "its ports declare $declared"
        fi
        return 0
    fi
    local what="the slave's watch: $(tap_says "$dir/watch.out");"
    what+=" the master's tap: $(tap_says "$dir/tap.out"); earshot: ${xruns:-no} xruns;"
    what+=" ${match_line:-no match}${logged:+; in the slave log: $logged}"
    machine_stalled "$dir/tap.out" "$dir/watch.out" &&
        { echo "     run $run ($s s), the machine stalled: $what; again"; return 2; }
    bad "run $run ($s s): $what"
    return 1
}

local_delay=
for try in $(seq "$tries"); do
    local_try; r=$?
    stop_all
    [ $r = 2 ] || break
done
[ $r = 2 ] && bad "without the network: the machine stalled in each of $tries tries"
delays=()
for run in 1 2 3; do
    s=3; [ $run = 1 ] && s=$long
    for try in $(seq "$tries"); do
        net_try $run $s; r=$?
        stop_all
        [ $r = 2 ] || break
    done
    [ $r = 0 ] && delays+=("$delay")
    [ $r = 2 ] && bad "run $run: the machine stalled in each of $tries tries"
done

if [ ${#delays[@]} = 3 ] && [ "$(printf '%s\n' "${delays[@]}" | sort -u | wc -l)" = 1 ] &&
   [ -n "$local_delay" ]; then
    added=$((delays[0] - local_delay))
    ms() { awk -v d="$1" 'BEGIN { printf "%.2f ms", d / 48 }'; }
    echo "ok   round trip ${delays[*]} frames in three runs (${long} s, 3 s, 3 s)," \
         "$(ms "${delays[0]}"); without the network $local_delay; netjack2 adds $added" \
         "frames ($(ms $added), $((added / period)) periods of $period at -l $cycles, $rt)"
else
    bad "round trips: ${delays[*]:-none} frames (without the network: ${local_delay:-none})"
fi
[ $fail = 0 ] && echo "ok   sample-exact; no xrun nor skipped cycle on the slave in $long s"
exit $fail
