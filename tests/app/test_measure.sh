#!/usr/bin/env bash
# earshot measure in a real JACK graph (the dummy backend, 48 kHz, period
# 1024), the room being another client the test wires in:
#   - a room held by jconvolver (Debian's, a configuration of the test's
#     own: a direct sound at 10 ms and a 2 s decaying tail), measured with
#     a reference (earshot's output wired straight back to its second
#     input), at the defaults (a 5 s sweep at -12 dBFS): the room saved equals the known one within -40 dB of error
#     energy over the sweep's flat band, its T30 within 2 %, its direct
#     sound at 480 frames to the frame; its manifest says how it was
#     measured; the whole measurement (a 5 s sweep, a 2.5 s gap) within
#     10 s;
#   - the same room without a reference: time zero is the round trip
#     earshot computes (a loop in the graph: one period, 1024 frames), and
#     the direct sound lands within a frame of 480;
#   - two loudspeakers into two microphones (jconvolver's 2 x 2 matrix of
#     known paths, a reference wired from both outputs): a true-stereo
#     room, each path within -40 dB of its own;
#   - noise summed into earshot's input by a third client (es_jack_tap
#     playing noise): the PNR reported within 2 dB of the true one (the
#     noisy room less the clean one, its energy per frame, against the
#     clean one's peak), and 4 repeats averaged gain 10 log10 4 dB within
#     1.5 dB;
#   - a shaper of the test's own (es_jack_shaper: x + 0.1 x^2, then 50 ms
#     of delay, so that the band's ringing before the pulse is in the room
#     kept) in the loop: the second order reported at 20 log10(0.05 A)
#     within 1 dB, the linear response within -40 dB of a Dirac at 50 ms;
#   - the workstation: M's form, Enter measures with the defaults, MEASURING shows, and
#     the room plays in slot B within 10 s of the key, and 7.5 s more for each
#     sweep the screen says was played again (slot A kept);
#   - bad arguments (a list that is not one, NaN, out of range, a hidden
#     name, past Nyquist, a control character): one line each, exit 2;
#   - bad cases, each one line, exit 1 (2 for arguments) and nothing
#     added to the library: a clipped recording (the sweep at 0 dBFS into
#     the room, whose strongest frequencies it raises 12 dB), nothing wired, a measurement over the
#     600 s a measurement may take, and the server restarted at another
#     rate in the middle of a sweep.
#
#   test_measure.sh EARSHOT MAKE_WAV TAP SHAPER IR_COMPARE [release|sanitized]
# The two time limits (10 s a measurement, 10 s from M to slot B, a
# sweep's more for each one played again) are the
# release build's: the sanitizer build's analysis and room build are
# slower (14.9 s from M to slot B in a fresh root), so there the times
# are said, not judged; everything else is judged alike.
set -u
earshot=$(realpath "$1") make_wav=$2 tap=$3 shaper=$4 compare=$5 build=${6:-release}
# timed OK_TEXT BAD_TEXT CONDITION...: the time limit's verdict, or in the
# sanitizer build the time said.
timed() {
    local good=$1 poor=$2
    shift 2
    if "$@"; then
        ok "$good"
    elif [ "$build" = sanitized ]; then
        echo "     $poor: said, not judged (the sanitizer build)"
    else
        bad "$poor"
    fi
}
. "$(dirname "$0")/jack_lib.sh"
# A period of 1024: a sweep that loses a cycle is played again, and the
# machine loses fewer at 21 ms a cycle than at 5 ms.
jack_test_begin measure -p 1024
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
lib=$dir/lib
helpers=()
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; for h in "${helpers[@]}"; do kill "$h" 2>/dev/null; done; type tmux_cleanup >/dev/null 2>&1 && tmux_cleanup; kill $jack 2>/dev/null; wait $jack 2>/dev/null; rm -rf "$dir"' EXIT

json_field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | head -1; }
rooms_count() { grep -c '^\[' "$lib/rooms.txt" 2>/dev/null || echo 0; }
# port_up PORT [PID]: 0 once PORT is in the graph; 1 after 10 s, or as
# soon as PID (the client that should make it) has exited.
port_up() {
    for _ in $(seq 100); do
        jack_lsp 2>/dev/null | grep -qx "$1" && return 0
        [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null && return 1
        sleep 0.1
    done
    return 1
}

# measure OUT WIRING ARG...: earshot measure as client `meas`, the room
# into $lib, --json to OUT.json (stderr OUT.err); WIRING (a function) runs
# once its ports are up, within the 2 s it waits before the first sweep.
# Its exit status in $rc, its wall time in $took (s).
measure() {
    local out=$1 wiring=$2
    shift 2
    local t0
    t0=$(date +%s.%N)
    "$earshot" measure --device jack --name meas --no-connect --into "$lib" --wait 2 --json \
        "$@" >"$out.json" 2>"$out.err" &
    pid=$!
    port_up meas:out_L $pid && $wiring
    wait $pid
    rc=$?
    pid=
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# The room: a 2 s decay behind a direct sound of 0.5 at 10 ms, in jconvolver.
"$make_wav" "$dir/room.wav" room 48000 1 96000 3 0.5 >/dev/null
cat >"$dir/room.conf" <<EOF
/cd $dir
/convolver/new 1 1 256 96000 1.0
/input/name 1 In
/output/name 1 Out
/impulse/read 1 1 1.0 0 0 0 1 room.wav
EOF
jconvolver -N room "$dir/room.conf" >"$dir/jconvolver.log" 2>&1 &
helpers+=($!)
port_up room:In || { echo "FAIL jconvolver did not start: $(cat "$dir/jconvolver.log")"; exit 1; }

through_room_ref() {
    jack_connect meas:out_L room:In && jack_connect room:Out meas:in_1 &&
        jack_connect meas:out_L meas:in_2
}
through_room() { jack_connect meas:out_L room:In && jack_connect room:Out meas:in_1; }

# 1. Through jconvolver, with a reference.
measure "$dir/ref" through_room_ref --inputs 2 --reference 2 --room jconv \
    --description "jconvolver's room"
peak=$(sed -n 's/.*"peak_at":\([0-9]*\).*/\1/p' "$dir/ref.json")
low=$(sed -n 's/.*"band":\[\([0-9.]*\),.*/\1/p' "$dir/ref.json")
high=$(sed -n 's/.*"band":\[[0-9.]*,\([0-9.]*\)\].*/\1/p' "$dir/ref.json")
seconds=$(json_field seconds "$dir/ref.json")
if [ $rc = 0 ] && [ -f "$lib/jconv.wav" ]; then
    got=$("$compare" "$lib/jconv.wav" "$dir/room.wav" "$low" "$high")
    err=$(sed -n 's/^error \(-*[0-9.]*\) dB.*/\1/p' <<<"$got")
    t30=$(sed -n 's/.*T30 \([0-9.]*\) s (want.*/\1/p' <<<"$got")
    want=$(sed -n 's/.*(want \([0-9.]*\) s).*/\1/p' <<<"$got")
    if awk -v e="$err" -v t="$t30" -v w="$want" 'BEGIN { exit !(e < -40 && t > 0 && (t / w - 1) ^ 2 < 0.0004) }' &&
        [ "$peak" = 480 ]; then
        ok "jconvolver's room, with a reference: $got; the direct sound at $peak frames (480)"
    else
        bad "jconvolver's room: $got; direct sound at '$peak' (480): $(cat "$dir/ref.json" "$dir/ref.err")"
    fi
    grep -A8 '^\[jconv\]' "$lib/rooms.txt" | grep -q 'source *= measured by earshot .*(JACK: meas, 48000 Hz): sweep 4.8[0-9] s 20-20000 Hz at -12 dBFS, 1 repeat, 2.5 s gap; reference input 2; PNR .* dB; 1 x 1' &&
        ok "its manifest: $(grep -A8 '^\[jconv\]' "$lib/rooms.txt" | grep source)" ||
        bad "its manifest: $(cat "$lib/rooms.txt")"
    timed "measured in $seconds s from the first sweep ($took s with the 2 s wait and the start)" \
        "measured in $seconds s ($took s in all): over 10 s" \
        awk -v s="$seconds" -v t="$took" 'BEGIN { exit !(s < 10 && t < 12.5) }'
else
    bad "jconvolver's room: exit $rc: $(cat "$dir/ref.json" "$dir/ref.err")"
fi

# 2. The same room without a reference: time zero the computed round trip.
measure "$dir/noref" through_room --seconds 2 --room jconv-noref
peak=$(sed -n 's/.*"peak_at":\([0-9]*\).*/\1/p' "$dir/noref.json")
zero=$(json_field zero "$dir/noref.json")
[ $rc = 0 ] && [ -n "$peak" ] && [ $((peak - 480)) -le 1 ] && [ $((480 - peak)) -le 1 ] &&
    ok "without a reference: time zero the round trip's $zero frames, the direct sound at $peak (480)" ||
    bad "without a reference: exit $rc, direct sound at '$peak', zero '$zero': $(cat "$dir/noref.json" "$dir/noref.err")"

# 2b. Two loudspeakers into two microphones: a 2 x 2 room (jconvolver's
# own matrix, four known paths), the outputs swept in turn, both inputs at
# once, and a third input wired from both outputs as the reference (only
# the output being swept plays).
for p in 1 2 3 4; do
    "$make_wav" "$dir/path$p.wav" room 48000 1 24000 $((20 + p)) "0.$((9 - p))" >/dev/null
done
cat >"$dir/matrix.conf" <<EOF
/cd $dir
/convolver/new 2 2 256 24000 1.0
/input/name 1 InL
/input/name 2 InR
/output/name 1 OutL
/output/name 2 OutR
/impulse/read 1 1 1.0 0 0 0 1 path1.wav
/impulse/read 1 2 1.0 0 0 0 1 path2.wav
/impulse/read 2 1 1.0 0 0 0 1 path3.wav
/impulse/read 2 2 1.0 0 0 0 1 path4.wav
EOF
jconvolver -N matrix "$dir/matrix.conf" >"$dir/matrix.log" 2>&1 &
helpers+=($!)
through_matrix() {
    port_up matrix:InL && jack_connect meas:out_L matrix:InL && jack_connect meas:out_R matrix:InR &&
        jack_connect matrix:OutL meas:in_1 && jack_connect matrix:OutR meas:in_2 &&
        jack_connect meas:out_L meas:in_3 && jack_connect meas:out_R meas:in_3
}
measure "$dir/matrix" through_matrix --outputs 1,2 --inputs 3 --reference 3 --seconds 2 \
    --gap 1 --room two-by-two
low=$(sed -n 's/.*"band":\[\([0-9.]*\),.*/\1/p' "$dir/matrix.json")
high=$(sed -n 's/.*"band":\[[0-9.]*,\([0-9.]*\)\].*/\1/p' "$dir/matrix.json")
if [ $rc = 0 ] && [ -f "$lib/two-by-two.wav" ]; then
    worst=-999 all=
    for p in 1 2 3 4; do
        got=$("$compare" "$lib/two-by-two.wav" "$dir/path$p.wav" "$low" "$high" $p)
        e=$(sed -n 's/^error \(-*[0-9.]*\) dB.*/\1/p' <<<"$got")
        all="$all path $p: $e dB;"
        worst=$(awk -v a="$worst" -v b="${e:-0}" 'BEGIN { print (b > a ? b : a) }')
    done
    layout=$(grep -A8 '^\[two-by-two\]' "$lib/rooms.txt" | sed -n 's/^layout *= *//p')
    awk -v w="$worst" 'BEGIN { exit !(w < -40) }' && [ "$layout" = true-stereo ] &&
        ok "a 2 x 2 room, outputs in turn, inputs at once: each path within -40 dB ($all), layout $layout" ||
        bad "a 2 x 2 room: $all layout '$layout': $(cat "$dir/matrix.json" "$dir/matrix.err")"
else
    bad "a 2 x 2 room: exit $rc: $(cat "$dir/matrix.json" "$dir/matrix.err")"
fi

# 3. Noise summed into earshot's input: the PNR against the true one, and
# what averaging gains.
# 120 s of it: a measurement that plays a sweep again after a lost cycle
# (a busy machine: 55 s for the 4 repeats, twice again) must still have
# noise behind its last sweep; each tap stops when the measurement is done.
"$make_wav" "$dir/noise.wav" noise 48000 1 5760000 11 0.02 >/dev/null
# The noise tap starts before earshot does (it loads 120 s of noise, and a
# busy machine can take seconds), wired to a port of the server's own and
# silent until it says it is ready; once earshot's ports are up it is
# wired to earshot's input and plays from the go, before the first sweep:
# a sweep without the noise behind it reads a PNR as high as the room
# allows (a sanitizer build in a fresh root once read 12 dB over 4
# repeats, the noise late for three). Each tap has left before the next
# starts.
noise_start() {
    "$tap" --play "$dir/noise.wav" --to system:playback_1 --seconds 120 --name noise --wait \
        >"$dir/noise.out" 2>&1 &
    noise_pid=$!
    helpers+=($noise_pid)
    for _ in $(seq 300); do
        grep -q '^jack_tap: ready' "$dir/noise.out" && return 0
        kill -0 $noise_pid 2>/dev/null || break
        sleep 0.1
    done
    bad "the noise tap was not ready in 30 s: $(cat "$dir/noise.out")"
}
noisy() {
    through_room_ref && jack_connect noise:out_1 meas:in_1 &&
        jack_disconnect noise:out_1 system:playback_1 && kill -USR1 $noise_pid
}
noise_off() { kill $noise_pid 2>/dev/null; wait $noise_pid 2>/dev/null; }
noise_start
measure "$dir/noisy" noisy --inputs 2 --reference 2 --room jconv-noisy
noise_off
reported=$(sed -n 's/.*"pnr_db":\([-0-9.]*\).*/\1/p' "$dir/noisy.json")
truth=$("$compare" --noise "$lib/jconv-noisy.wav" "$lib/jconv.wav" 2>&1 | sed -n 's/^PNR \(.*\) dB$/\1/p')
awk -v r="${reported:-0}" -v t="${truth:-999}" 'BEGIN { exit !((r - t) ^ 2 < 4) }' &&
    ok "noise in the loop: PNR $reported dB reported, $truth dB true (2 dB)" ||
    bad "noise in the loop: PNR '$reported' reported, '$truth' true: $(cat "$dir/noisy.json" "$dir/noisy.err")"
noise_start
measure "$dir/one" noisy --inputs 2 --reference 2 --seconds 2 --room once
noise_off
one=$(sed -n 's/.*"pnr_db":\([-0-9.]*\).*/\1/p' "$dir/one.json")
noise_start
measure "$dir/four" noisy --inputs 2 --reference 2 --seconds 2 --repeats 4 --room four
noise_off
four=$(sed -n 's/.*"pnr_db":\([-0-9.]*\).*/\1/p' "$dir/four.json")
awk -v a="${one:-0}" -v b="${four:-0}" 'BEGIN { d = b - a - 6.02; exit !(a != 0 && d * d < 2.25) }' &&
    ok "4 repeats: PNR $one -> $four dB ($(awk -v a="$one" -v b="$four" 'BEGIN { printf "%+.1f", b - a }'), 10 log10 4 = 6.0, 1.5 dB)" ||
    bad "4 repeats: PNR '$one' -> '$four': $(cat "$dir/one.err" "$dir/four.err" "$dir/noise.out")"

# 4. A memoryless non-linearity in the loop.
"$shaper" --name shaper --square 0.1 --delay 2400 >"$dir/shaper.log" 2>&1 &
helpers+=($!)
port_up shaper:in || bad "the shaper did not start: $(cat "$dir/shaper.log")"
through_shaper() {
    jack_connect meas:out_L shaper:in && jack_connect shaper:out meas:in_1 &&
        jack_connect meas:out_L meas:in_2
}
measure "$dir/shaped" through_shaper --inputs 2 --reference 2 --to 11000 --seconds 2 --gap 1 \
    --room shaped
h2=$(sed -n 's/.*"harmonics_db":\[\([-0-9.]*\).*/\1/p' "$dir/shaped.json")
want=$(awk 'BEGIN { printf "%.2f", 20 * log(0.05 * 10 ^ (-12 / 20)) / log(10) }')
low=$(sed -n 's/.*"band":\[\([0-9.]*\),.*/\1/p' "$dir/shaped.json")
high=$(sed -n 's/.*"band":\[[0-9.]*,\([0-9.]*\)\].*/\1/p' "$dir/shaped.json")
"$make_wav" "$dir/dirac.wav" dirac 48000 1 9600 2400 1.0 >/dev/null
lin=$("$compare" "$lib/shaped.wav" "$dir/dirac.wav" "$low" "$high" 2>&1)
lin_db=$(sed -n 's/^error \(-*[0-9.]*\) dB.*/\1/p' <<<"$lin")
awk -v h="${h2:-0}" -v w="$want" -v l="${lin_db:-0}" 'BEGIN { exit !((h - w) ^ 2 < 1 && l < -40) }' &&
    ok "x + 0.1 x^2: order 2 at $h2 dB (0.05 A: $want dB, 1 dB); the linear response $lin_db dB from a Dirac" ||
    bad "x + 0.1 x^2: order 2 '$h2' (want $want), linear '$lin': $(cat "$dir/shaped.json" "$dir/shaped.err")"

# 5. The workstation: M opens the form, Enter measures with its defaults
# (the sweep's: 5 s and a 2.5 s gap) and the room plays in slot B, the 2 s
# room within 10 s of the key (and a sweep's 7.5 s for each one played
# again).
if command -v tmux >/dev/null; then
    . "$(dirname "$0")/tmux_lib.sh"
    export XDG_DATA_HOME="$dir/data" # the user's library: the test's own
    ui_start 100 30 "$earshot" --device jack --name ws --no-connect --input mic \
        --room concert-hall --block 1024
    if wait_for 'block 1024' 15 && port_up ws:out_L; then
        jack_connect ws:out_L room:In && jack_connect room:Out ws:in_1
        sleep 1
        keys M
        wait_for 'Measure the room (M)' 3 && form=1 || form=0
        t0=$(date +%s.%N)
        keys Enter # the form's defaults
        wait_for 'MEASURING' 3 && saw=$form || saw=0
        # A sweep that lost frames to a busy machine is played again (the
        # screen says so, a line each, which later lines scroll away): up
        # to 60 s, the distinct lines counted as they come; the time
        # judged is 10 s and one sweep's 7.5 s for each.
        : >"$dir/again.txt"
        found=0
        for _ in $(seq 600); do
            s=$(screen)
            grep 'played again' <<<"$s" >>"$dir/again.txt"
            grep -qF 'room measured-' <<<"$s" && { found=1; break; }
            sleep 0.1
        done
        if [ $found = 1 ]; then
            took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            wait_for '>B measured-' 3
            s=$(screen)
            again=$(sort -u "$dir/again.txt" | grep -c .)
            limit=$(awk -v n="$again" 'BEGIN { printf "%.1f", 10 + 7.5 * n }')
            if [ $saw = 1 ] && grep -q '>B measured-' <<<"$s" && grep -q ' A concert-h' <<<"$s" &&
                ! grep -q 'measured-.*\[file\]' <<<"$s"; then
                timed "the workstation: M, MEASURING in the header, and the room (by its name in the library) plays in slot B $took s after the key ($again sweep(s) played again; under $limit), A still concert-hall" \
                    "the workstation: $took s from M to slot B (under $limit with $again sweep(s) played again)" \
                    awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t < l) }'
            else
                bad "the workstation: $took s from M to slot B, MEASURING seen: $saw"
                screen | sed 's/^/    | /'
            fi
        else
            bad "the workstation: M did not bring a measured room into slot B"
            screen | sed 's/^/    | /'
        fi
        ls "$XDG_DATA_HOME"/earshot/rooms/measured-*.wav >/dev/null 2>&1 &&
            ok "the room is in the user's library: $(ls "$XDG_DATA_HOME"/earshot/rooms/ | tr '\n' ' ')" ||
            bad "no room in the user's library"
    else
        bad "the workstation did not start on JACK"
        screen | sed 's/^/    | /'
    fi
    keys q
    quit_check "the workstation quits" || fails=$((fails + 1))
    tmux_cleanup
else
    bad "tmux is not installed (scripts/setup --test installs it)"
fi

# 6. Bad cases: one line each, and nothing added to the library.
before=$(rooms_count)
measure "$dir/clip" through_room --level 0 --seconds 1 --room clipped
line=$(cat "$dir/clip.err")
[ $rc = 1 ] && [ "$(wc -l <"$dir/clip.err")" = 1 ] && grep -q 'clipped: .* measure at -10 dBFS or lower' <<<"$line" &&
    [ ! -e "$lib/clipped.wav" ] && ok "a clipped recording: $line" ||
    bad "a clipped recording: exit $rc: $line $(cat "$dir/clip.json")"
nothing() { :; }
measure "$dir/none" nothing --room none --seconds 1 --gap 0.5
line=$(cat "$dir/none.err")
[ $rc = 1 ] && [ "$(wc -l <"$dir/none.err")" = 1 ] && grep -q 'nothing came back' <<<"$line" &&
    ok "nothing wired: $line" || bad "nothing wired: exit $rc: $line"
measure "$dir/long" nothing --room long --seconds 60 --repeats 11
line=$(cat "$dir/long.err")
[ $rc = 2 ] && [ "$(wc -l <"$dir/long.err")" = 1 ] && grep -q 'over the 600 s a measurement may take' <<<"$line" &&
    ok "too long: $line" || bad "too long: exit $rc: $line"
# A library that cannot take the room (its folder under a file; a full
# disk or a read-only folder fail the same way): the measurement is kept
# in the cache folder's library, and its line says where.
: >"$dir/afile"
export XDG_CACHE_HOME=$dir/cache
"$earshot" measure --device jack --name meas --no-connect --into "$dir/afile/lib" --wait 2 \
    --json --room unwritable --seconds 2 >"$dir/kept.json" 2>"$dir/kept.err" &
pid=$!
port_up meas:out_L $pid && through_room
wait $pid
rc=$?
pid=
kept=$dir/cache/earshot/measured/unwritable.wav
line=$(sed -n 's/.*"line":"\([^"]*\)".*/\1/p' "$dir/kept.json")
[ $rc = 0 ] && [ -s "$kept" ] && grep -q '^\[unwritable\]' "$dir/cache/earshot/measured/rooms.txt" &&
    grep -q "kept in $kept" <<<"$line" &&
    ok "an unwritable library: the room kept in the cache, said: ...${line#*not in the library}" ||
    bad "an unwritable library: exit $rc, $(ls "$dir/cache/earshot/measured" 2>&1): $line $(cat "$dir/kept.err")"
# Bad arguments: each one line naming it, exit 2, before any device opens.
for arg in "--outputs 1,x" "--outputs 0" "--level nan" "--seconds 1e308" "--room .hidden" \
    "--to 30000" "--description $(printf 'a\033b')"; do
    # shellcheck disable=SC2086
    "$earshot" measure --device null --into "$lib" $arg >/dev/null 2>"$dir/arg.err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$dir/arg.err")" = 1 ] && ! grep -q "$(printf '\033')" "$dir/arg.err" &&
        ok "bad argument $(printf %q "$arg"): $(cat "$dir/arg.err")" ||
        bad "bad argument $(printf %q "$arg"): exit $rc: $(cat "$dir/arg.err")"
done
# The server stopped and started again at 44.1 kHz under a 10 s sweep.
"$earshot" measure --device jack --name meas --no-connect --into "$lib" --wait 1 --json \
    --room restarted --seconds 10 >"$dir/rate.json" 2>"$dir/rate.err" &
pid=$!
port_up meas:out_L $pid && through_room
sleep 4
kill $jack
wait $jack 2>/dev/null
jackd --no-realtime -d dummy -r 44100 -p 256 >"$dir/jackd2.log" 2>&1 &
jack=$!
jack_wait $jack "$dir/jackd2.log"
for _ in $(seq 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { bad "a rate change: earshot still runs 15 s on"; kill $pid; }
wait $pid
rc=$?
pid=
line=$(grep measure "$dir/rate.err" | head -1)
[ $rc = 1 ] && grep -q 'during the sweep' <<<"$line" && [ ! -e "$lib/restarted.wav" ] &&
    ok "the server back at 44.1 kHz mid-sweep: $line" ||
    bad "a rate change mid-sweep: exit $rc: $(cat "$dir/rate.err")"
after=$(rooms_count)
[ "$before" = "$after" ] && ok "the library: $after rooms before and after the bad cases" ||
    bad "the library: $before rooms before the bad cases, $after after"

[ $fails = 0 ] && echo "all passed" || { echo "$fails FAILED"; exit 1; }
