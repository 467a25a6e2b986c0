#!/usr/bin/env bash
# netjack2 on one machine. A master (JACK's dummy backend) with netmanager
# loaded, a slave (jackd -d net) over the loopback interface, earshot on the
# slave playing its capture port (what the master sends) through a room to
# its playback ports (what goes back). On the master, jack_tap plays noise
# into the slave's ports and records what comes back; wav_match finds the
# render of the same noise through the same room in the recording.
#
# What the audio shows, in three runs of 3 s, each with fresh servers, and
# once without the network (the same tap, earshot and room on one server):
#   - sample-exact: the recording equals the render (largest difference
#     under -120 dB of the peak; the float path through JACK and netjack2's
#     float encoding is exact, so it is -300, nothing) and is
#     silent outside it;
#   - the round trip is the same in the three runs;
#   - what netjack2 adds, the round trip less the one without the network,
#     is the latency the slave's ports declare;
#   - earshot's latency figure on the slave (capture + its own + playback,
#     read from the slave's graph) is the round trip the master measures,
#     less what the measuring tap's own loop adds (as without the network).
# A run counts when no cycle was lost in it anywhere (a tap watching the
# slave's server, the tap on the master, earshot's count, the slave's log):
# a lost cycle shifts or cuts the recording, so there is nothing exact to
# compare. A run that lost one is run again while the three runs have
# tries left, NETJACK_TRIES (5) each, shared: a busy spell of the machine
# can outlast five tries of one run (a fresh root lost cycles in ten tries
# in a row, the worst wake 18 ms, then none), and a later run then has
# fewer; a run that lost nothing and does not match fails at once. The baseline
# without the network too; one not had in five tries is tried five more
# times after the three runs (a busy spell of the machine can outlast five).
#
# What the timing shows, in a long run (NETJACK_SECONDS, 20; in the
# sanitizer build, whose point is memory, not time, the run's
# lost cycles are said, not judged: its slave lost one in 20 s outside
# every stall the probe saw, against a quiet control): netjack2 loses no
# cycle that the machine does not make it lose. Beside the master and the
# slave, a second dummy server (the control) runs an earshot of its own
# with the same room and block; one tap watches the slave, one the
# control, from the same moment, each with the probe (jack_tap --probe: a
# real-time thread on each CPU, waking every millisecond, that notes each
# stall of the machine longer than half a period). The slave's lost cycles
# (xruns and skipped cycles) must all come in or just after such a stall,
# or be no more than the control lost in the same run (within the
# counts' noise: jack_lib.sh's no_more_than_control). A slave that
# loses cycles of its own (packets late or missing, a clock that drifts
# from the master's, earshot late on the slave) loses them outside the
# stalls, and in a quiet run more than the control, which then loses
# none. When no cycle was lost anywhere, the long run's recording must match
# the render too.
#
# Why not "no lost cycle in a minute": the 2-core virtual machine this runs
# on stops every thread now and then (the probe's threads on both CPUs late
# at once; /proc/stat counts it as steal time), and any JACK server loses
# cycles then. In the minutes measured for this, the probe saw 5 to over
# 256 stalls a minute, with 0.6 to 4 s of steal time in the minute; a lone
# dummy server lost 0 to 218 cycles a minute, the slave beside it 0 to 74.
# Short stalls cost the slave more than the control (one of 3.5 ms: the
# slave 4 cycles, the control none; the dummy clock has a period's slack,
# the slave less), long ones cost the control more (it skips to catch up).
# Each alone would fail on this machine: the probe keeps 256 stalls and
# explains no loss past them, and the counts differ either way by a few.
# Period 256 at 48 kHz, netjack2's default network latency (5 cycles;
# NETJACK_LATENCY sets another, for docs/SCALING.md's table). The servers
# run with real-time scheduling where the machine grants it, as netjack2
# is meant to be run; without it a busy machine loses cycles every few
# seconds.
set -u
earshot=$(realpath "$1")
make_wav=$(realpath "$2")
tap=$(realpath "$3")
match=$(realpath "$4")
build=${5:-release}
long=${NETJACK_SECONDS:-20}
tries=${NETJACK_TRIES:-5}
. "$(dirname "$0")/jack_lib.sh"
for t in jackd jack_lsp jack_load jack_unload; do
    command -v $t >/dev/null ||
        { echo "FAIL: $t is not installed (scripts/setup --test installs jackd2)"; exit 1; }
done
dir=$(mktemp -d)
export JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
period=256 cycles=${NETJACK_LATENCY:-5}
rt=--no-realtime # real-time where the machine grants it (above)
chrt -f 1 true 2>/dev/null && rt=--realtime
master=; server=; slave=; player=; watch=; sender=; control=; cplayer=; cwatch=
# The slave first; then netmanager unloaded, or the master waits 6 s for it
# to deactivate (and leaves its semaphores behind).
stop_all() {
    [ -n "$player" ] && { echo quit >&3; exec 3>&-; wait $player; } 2>/dev/null
    [ -n "$cplayer" ] && { echo quit >&4; exec 4>&-; wait $cplayer; } 2>/dev/null
    # (wait with no process waits for every child: each one by itself.)
    for p in $watch $sender $cwatch $slave $control; do kill $p; wait $p; done 2>/dev/null
    if [ -n "$master" ]; then
        # Bounded: jack_unload once waited on the master for good (a fresh
        # root, 2026-11-28), and ctest's 25 minutes with it.
        JACK_DEFAULT_SERVER=$server timeout -k 2 10 jack_unload netmanager >/dev/null 2>&1
        kill $master; wait $master
    fi 2>/dev/null
    player=; watch=; sender=; slave=; master=; control=; cplayer=; cwatch=
}
trap 'stop_all; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
trap '' PIPE # a closed output or a dead earshot's FIFO: an error, not the end
fail=0
bad() { echo "FAIL $*"; fail=1; }
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2"; }
# Waits up to $3 (10) s for a line matching $2 from jack_lsp on server $1
# (or, with $1 a file, in that file).
seen() {
    for _ in $(seq $((${3:-10} * 10))); do
        if [ -f "$1" ]; then
            grep -q "$2" "$1"
        else
            JACK_DEFAULT_SERVER=$1 jack_lsp 2>/dev/null | grep -q "$2"
        fi && return 0
        sleep 0.1
    done
    return 1
}
# A dummy server $1 (the master, or with $2 "control" the control).
start_master() {
    local log=$dir/${2:-master}.log
    JACK_DEFAULT_SERVER=$1 jackd $rt -d dummy -r 48000 -p $period >"$log" 2>&1 &
    if [ "${2:-master}" = control ]; then control=$!; else server=$1 master=$!; fi
    seen "$1" system:playback_2 || { bad "the server $1 did not come up: $(cat "$log")"; return 1; }
}
# earshot on server $1: the microphone (capture_1) through the room; it
# quits through the FIFO. With $2 "control", the control's (fd 4, its own
# files).
start_player() {
    local name=${2:-play}
    rm -f "$dir/in-$name"; mkfifo "$dir/in-$name"
    JACK_DEFAULT_SERVER=$1 "$earshot" play --device jack --input mic --ir "$dir/room.wav" --raw \
        --engine cpu-partitioned --block $period --headless --commands --json \
        --seconds 600 <"$dir/in-$name" >"$dir/$name.json" 2>"$dir/$name.err" &
    if [ "$name" = control ]; then
        cplayer=$!; exec 4>"$dir/in-$name"
    else
        player=$!; exec 3>"$dir/in-$name"
    fi
    seen "$1" earshot:out_R ||
        { bad "earshot did not start on $1: $(cat "$dir/$name.err")"; return 1; }
}
stop_player() {
    echo quit >&3; exec 3>&-; wait $player; player=
    [ -z "$cplayer" ] || { echo quit >&4; exec 4>&-; wait $cplayer; cplayer=; }
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
# The latency earshot said it had (its report's latency total), frames.
figure() { sed -n 's/.*"latency":{"total":\([0-9]*\).*/\1/p' "$1"; }
# A tap's count: 0 when it reported; the cycles it saw lost (xruns and
# skipped cycles) in $lost.
counted() {
    lost=$(sed -n 's/^jack_tap: [0-9]* frames at .*; xruns \([0-9]*\), skipped \([0-9]*\)$/\1 \2/p' "$1" |
           awk '{ print $1 + $2 }')
    [ -n "$lost" ]
}
tap_clean() { counted "$1" && [ "$lost" = 0 ]; }
tap_says() {
    sed -n '/^jack_tap: ready$/d; s/^jack_tap: //p' "$1" | sed 's/^[0-9]* frames at .*; //' |
        paste -sd ' '
}

# One try of the baseline: the tap feeds earshot on a server of their own.
# 0: measured (local_delay); 1: failed; 2: cycles were lost, again.
local_try() {
    start_master "earshot-nj-local-$$" && start_player "$server" || return 1
    # The tap alone on earshot's ports: its figure then counts no port of
    # the server's, as the tap's loop passes none.
    JACK_DEFAULT_SERVER=$server jack_disconnect system:capture_1 earshot:in_1
    JACK_DEFAULT_SERVER=$server jack_disconnect earshot:out_L system:playback_1
    JACK_DEFAULT_SERVER=$server jack_disconnect earshot:out_R system:playback_2
    JACK_DEFAULT_SERVER=$server "$tap" --play "$dir/noise-3.wav" --to earshot:in_1 \
        --record "$dir/rec.wav" --from earshot:out_L --from earshot:out_R --seconds 4 \
        --probe >"$dir/tap.out" 2>&1
    stop_player
    local_figure=$(figure "$dir/play.json")
    local what; what="the tap: $(tap_says "$dir/tap.out")"
    counted "$dir/tap.out" || { bad "without the network: the tap did not count: $(cat "$dir/tap.out")"; return 1; }
    [ "$lost" = 0 ] || { echo "     without the network, cycles lost: $what; again"; return 2; }
    if check_match 3; then
        local_delay=$delay
        echo "     without the network: $match_line"
        return 0
    fi
    bad "without the network, no cycle lost but not the render: $what; ${match_line:-no match}"
    return 1
}

# One try of netjack2: run $1 (1 to 3, or "long"), $2 seconds of noise.
# The long run has the control beside it and is judged against it (the top
# of this file); a run counts when nothing was lost. 0: measured (delay);
# 1: failed; 2: cycles were lost in a run, again.
net_try() {
    local run=$1 s=$2 name=earshot-net slave_server="earshot-nj-slave-$$-$1"
    local ctl="earshot-nj-control-$$" n=$1
    [ "$run" = long ] && n=4
    # A port of its own, so that two runs on one machine never pair up.
    local port=$((20000 + ($$ * 7 + n) % 20000))
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
    [ "$run" = long ] && { start_master "$ctl" control || return 1; }
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
    local taps="tap watch"
    if [ "$run" = long ]; then
        # A name of its own: libjack names a client's socket after the
        # client, not the server, so two clients of one name opening at once
        # on two servers take each other's ("Cannot open watch client").
        JACK_DEFAULT_SERVER=$ctl "$tap" --name control-watch --seconds $((s + 2)) --wait --hold \
            --probe >"$dir/cwatch.out" 2>&1 &
        cwatch=$!
        taps+=" cwatch"
    fi
    local t
    for t in $taps; do
        seen "$dir/$t.out" '^jack_tap: ready' 20 && continue
        bad "run $run: the tap $t did not start in 20 s: $(cat "$dir/$t.out");" \
            "the slave's log: $(tail -n 5 "$dir/slave.log")"
        return 1
    done
    start_player "$slave_server" || return 1
    [ "$run" = long ] && { start_player "$ctl" control || return 1; }
    # What the slave's log says while the taps count (joins and leaves out).
    local from; from=$(wc -l <"$dir/slave.log")
    kill -USR1 $watch $cwatch; sleep 0.2; kill -USR1 $sender
    for t in tap:$sender watch:$watch ${cwatch:+cwatch:$cwatch}; do
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
    kill $sender $watch $cwatch; wait $sender $watch $cwatch; sender=; watch=; cwatch=
    local xruns; xruns=$(num xruns "$dir/play.json")
    check_match "$s"; local matched=$?
    local what="the slave's watch: $(tap_says "$dir/watch.out");"
    what+=" the master's tap: $(tap_says "$dir/tap.out"); earshot: ${xruns:-no} xruns;"
    what+=" ${match_line:-no match}${logged:+; in the slave log: $(sort <<<"$logged" | uniq -c | paste -sd ';')}"
    for t in $taps; do
        counted "$dir/$t.out" || { bad "run $run: a tap did not count: $what"; return 1; }
    done
    [ -n "$xruns" ] || { bad "run $run: earshot gave no report: $(cat "$dir/play.err")"; return 1; }
    counted "$dir/watch.out"; local slave_lost=$lost
    counted "$dir/tap.out"; local master_lost=$lost
    local clean=0
    [ "$slave_lost" = 0 ] && [ "$master_lost" = 0 ] && [ "$xruns" = 0 ] && [ -z "$logged" ] && clean=1
    if [ "$run" = long ]; then
        counted "$dir/cwatch.out"; local control_lost=$lost cxruns
        cxruns=$(num xruns "$dir/control.json")
        echo "     the long run ($s s): lost cycles on the slave $slave_lost, on the control" \
             "$control_lost, on the master $master_lost; earshot's xruns on the slave $xruns," \
             "on the control ${cxruns:-none}; the control's watch: $(tap_says "$dir/cwatch.out"); $what"
        # The probe's word on the slave's losses; it keeps 256 stalls, and
        # past them explains none.
        local outside stalls
        outside=$(sed -n 's/.*; lost cycles outside a stall \([0-9]*\)$/\1/p' "$dir/watch.out")
        stalls=$(sed -n 's/^jack_tap: machine: .*, \([0-9]*\) stalls over .*/\1/p' "$dir/watch.out")
        if [ "$slave_lost" = 0 ]; then
            echo "ok   in $s s the slave lost no cycle (the control beside it $control_lost)"
        elif [ "${outside:-1}" = 0 ] && [ "${stalls:-256}" -lt 256 ]; then
            echo "ok   in $s s the slave lost $slave_lost cycles, each in a stall of the machine" \
                 "($stalls stalls; the control beside it lost $control_lost)"
        elif no_more_than_control "$slave_lost" "$control_lost"; then
            echo "ok   in $s s the slave lost $slave_lost cycles, no more than a plain server" \
                 "beside it ($control_lost)"
        elif [ "$build" = sanitized ]; then
            echo "     in $s s the slave lost $slave_lost cycles, ${outside:-?} outside the machine's" \
                 "stalls, a plain server beside it $control_lost: said, not judged (the sanitizer build)"
        else
            bad "the long run: the slave lost $slave_lost cycles, ${outside:-?} of them outside the" \
                "${stalls:-?} stalls of the machine the probe saw, and a plain server beside it" \
                "lost $control_lost"
        fi
        if [ $clean = 1 ]; then
            [ $matched = 0 ] && [ "$delay" = "${delays[0]:-$delay}" ] &&
                echo "ok   the long run lost no cycle anywhere: sample-exact for $s s, round trip $delay" ||
                bad "the long run lost no cycle, but the recording is not the render: $match_line"
        else
            echo "     the long run lost cycles: its recording is not compared"
        fi
        return 0
    fi
    if [ $clean = 0 ]; then
        echo "     run $run ($s s), cycles lost: $what; again"
        return 2
    fi
    if [ $matched != 0 ]; then
        bad "run $run ($s s): no cycle lost, but not the render: $what"
        return 1
    fi
    echo "     run $run ($s s): $match_line; taps on the slave and the master:" \
         "$(tap_says "$dir/watch.out"), $(tap_says "$dir/tap.out");" \
         "earshot: $xruns xruns in $(num blocks "$dir/play.json") blocks"
    # Judged against the baseline once it is measured (judge_run).
    run_said[$run]=$(figure "$dir/play.json") run_declared[$run]=$declared run_delay[$run]=$delay
    return 0
}

# What netjack2 adds against its ports' word, and earshot's figure on the
# slave against what the master hears: the round trip measured there, less
# what the measuring tap's own loop adds (the same without the network: its
# delay less earshot's figure there).
judge_run() {
    local run=$1 delay=${run_delay[$1]} said=${run_said[$1]} declared=${run_declared[$1]}
    if [ -n "${local_delay:-}" ] && [ $((delay - local_delay)) != "$declared" ]; then
        bad "run $run: netjack2 adds $((delay - local_delay)) frames; its ports declare $declared"
    fi
    if [ -n "${local_delay:-}" ] && [ -n "$said" ] &&
       [ $((delay - said)) = $((local_delay - local_figure)) ]; then
        echo "ok   run $run: earshot on the slave says $said frames; the master measured $delay," \
             "the tap's own loop $((local_delay - local_figure))"
    else
        bad "run $run: earshot on the slave says '${said}' frames; the master measured $delay," \
            "the tap's own loop $((${local_delay:-0} - ${local_figure:-0})) (without the network" \
            "the round trip ${local_delay:-?}, earshot's figure ${local_figure:-?})"
    fi
}
# The baseline, up to $tries tries; 0 when measured. A try loses cycles only
# when the machine stalls (the tap's probe says so on each); a busy spell can
# outlast five tries of 4 s (the sanitizer build in a fresh root did), so
# a baseline not had before the runs is tried again after them.
baseline() {
    local try r=2
    for try in $(seq "$tries"); do
        local_try; r=$?
        stop_all
        [ $r = 2 ] || break
    done
    return $r
}
local_delay= local_figure=
declare -A run_said=() run_declared=() run_delay=()
baseline; base=$?
delays=()
left=$((3 * tries))
for run in 1 2 3; do
    r=2
    while [ $left -gt 0 ]; do
        left=$((left - 1))
        net_try $run 3; r=$?
        stop_all
        [ $r = 2 ] || break
    done
    [ $r = 0 ] && delays+=("$delay")
    [ $r = 2 ] && bad "run $run: cycles lost in every try (the three runs had $((3 * tries)) among them)"
done
if [ $base = 2 ]; then
    echo "     without the network: cycles lost in each of $tries tries; again after the runs"
    baseline; base=$?
fi
[ $base = 2 ] && bad "without the network: cycles lost in each of $((2 * tries)) tries"
for run in 1 2 3; do [ -z "${run_delay[$run]:-}" ] || judge_run $run; done

if [ ${#delays[@]} = 3 ] && [ "$(printf '%s\n' "${delays[@]}" | sort -u | wc -l)" = 1 ] &&
   [ -n "$local_delay" ]; then
    added=$((delays[0] - local_delay))
    ms() { awk -v d="$1" 'BEGIN { printf "%.2f ms", d / 48 }'; }
    echo "ok   sample-exact, round trip ${delays[*]} frames in three runs of 3 s," \
         "$(ms "${delays[0]}"); without the network $local_delay; netjack2 adds $added" \
         "frames ($(ms $added), $((added / period)) periods of $period at -l $cycles, $rt)"
else
    bad "round trips: ${delays[*]:-none} frames (without the network: ${local_delay:-none})"
fi

net_try long "$long"
stop_all
exit $fail
