#!/usr/bin/env bash
# The workstation in a real terminal (tmux) on the null device, or on JACK's
# dummy backend with "jack" as the second argument: it starts and shows the
# header, rooms, engines and meters; keys swap the room, switch engines,
# play the other A/B slot (Tab) and change the block size, and the screen and the stream's
# stats follow; it redraws for larger and smaller panes; q and Ctrl-C quit
# with status 0 and leave the terminal sane.
set -u
earshot=$(realpath "$1")
backend=${2:-null}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
. "$here/jack_lib.sh"

device=null
if [ "$backend" = jack ]; then
    command -v jackd >/dev/null || { echo "FAIL: jackd is not installed"; exit 1; }
    export JACK_DEFAULT_SERVER="earshot-ui-$$" JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
    jackd --no-realtime -d dummy -r 48000 -p 256 >"$tmux_dir/jackd.log" 2>&1 &
    jack=$!
    trap 'kill $jack 2>/dev/null; wait $jack 2>/dev/null; tmux_cleanup' EXIT
    jack_wait $jack "$tmux_dir/jackd.log" || exit 1
    device=jack
else
    trap tmux_cleanup EXIT
fi

report="$tmux_dir/report.json"
ui_start 80 24 "$earshot" --device "$device" --room concert-hall --report "$report"
check "starts: header with source, device, rate, block, latency" \
    "wait_for 'block 256  latency' 10 && screen | head -1 | grep -q '48 kHz  test signal > '"
[ "$device" = jack ] && check "plays on JACK" "screen | head -1 | grep -q 'JACK'"
# The room's parameters are measured off the screen's thread: "measuring..."
# until they come.
wait_for 'T30 ' 10
s=$(screen)
check "room list with the playing room and its parameters" \
    "grep -q '> concert-hall *playing' <<<\"\$s\" && grep -q 'T30 1\\.[0-9][0-9] s' <<<\"\$s\""
check "the energy decay plot" "grep -q ' -60 |' <<<\"\$s\""
check "all six engines, cpu-partitioned playing, the GPU ones said" \
    "grep -q '2 A  cpu-partitioned *playing' <<<\"\$s\" && grep -q 'cuda-circular' <<<\"\$s\" &&
     grep -q 'cpu-nonuniform' <<<\"\$s\" && grep -q '6    cuda-nonuniform' <<<\"\$s\" &&
     grep -q 'cuda-partitioned' <<<\"\$s\" && grep -q '1    cpu-direct' <<<\"\$s\""
# 80x24 is one row short of a row per output: the outputs share one.
check "meters: DSP load, slot A's figures, B empty, xruns, levels (outputs on one row)" \
    "grep -q 'DSP \\[' <<<\"\$s\" && grep -q '>A concert-h  256 ' <<<\"\$s\" &&
     grep -q ' B (empty' <<<\"\$s\" && grep -q 'xruns' <<<\"\$s\" && grep -q 'in    \\[' <<<\"\$s\" &&
     grep -q 'out \\* \\[' <<<\"\$s\""
check "the spectrum with its axis" "grep -q 'Spectrum' <<<\"\$s\" && grep -q '1k' <<<\"\$s\""

# A room: four up from concert-hall is the vocal booth.
keys k k k k Enter
check "Enter swaps the room (header and message)" \
    "wait_for 'room vocal-booth |' 5 && screen | grep -Eq '^[0-9:]{8} room vocal-booth' &&
     screen | grep -q '> vocal-booth *playing'"
keys Tab
check "Tab: slot B starts as a copy of A and plays" \
    "wait_for 'slot B plays' 8 && wait_for '2 AB cpu-partitioned   playing' 5"
keys 1
check "1: slot B now holds cpu-direct; A keeps cpu-partitioned" \
    "wait_for '1  B cpu-direct        playing' 5 && wait_for 'engine cpu-direct |' 5 &&
     screen | grep -q '2 A  cpu-partitioned'"
keys Tab
check "Tab: slot A, cpu-partitioned, plays again" \
    "wait_for '2 A  cpu-partitioned   playing' 5 && screen | grep -q '1  B cpu-direct'"
keys 3
check "3: cpu-nonuniform plays in A" "wait_for '3 A  cpu-nonuniform' 5 && wait_for 'engine cpu-nonuniform |' 5"
keys 2
# Changes play once prepared, and each is said then: wait for this one, so
# that its line does not push the refusal below off the message line.
wait_for '2 A  cpu-partitioned   playing' 5
keys 4
check "4: the unavailable GPU engine is refused in words (no GPU here)" \
    "wait_for 'cuda-circular is unavailable here' 5 || screen | grep -q '4 A  cuda-circular'"
keys ']'
check "]: block 512, the header shows the new latency" \
    "wait_for 'block 512  latency' 8"
keys c
check "c: the meters are cleared: slot A counts from 0 s, xruns 0" \
    "wait_for 'meters cleared' 5 && screen | grep -Eq 'Meters  A: [01] s' &&
     screen | grep -q 'xruns 0 '"
keys , -
check ", and -: wetter/drier mix and output level in the header, in dB" \
    "wait_for 'trim 0 wet 0 dry -16 out -1 dB' 5"
keys r
check "r: recording, shown in the header" "wait_for 'REC ' 5"
sleep 1
keys r
check "r again: the take is finished and said, the files are there" \
    "wait_for 'frames to earshot-' 5 && ls '$tmux_dir'/earshot-*-dry.wav >/dev/null &&
     [ \$(ls '$tmux_dir'/earshot-*.wav | wc -l) -eq 2 ]"
keys s
if [ "$device" = jack ]; then
    check "s: the source is now JACK's capture (the microphone)" \
        "wait_for 'source: microphone' 8 && screen | head -1 | grep -q 'microphone'"
else
    check "s: with no file and no microphone, says there is no other source" \
        "wait_for 'no other source' 5"
fi

t resize-window -t ui -x 120 -y 40
sleep 0.5
check "120x40: redrawn larger (wider header, taller spectrum, a level row per output)" \
    "[ \$(screen | wc -l) -eq 40 ] && screen | grep -q 'Meters' && screen | sed -n '30,40p' | grep -q 'Hz' &&
     screen | grep -q 'out L \\[' && screen | grep -q 'out R \\['"
t resize-window -t ui -x 60 -y 20
check "60x20: says it needs 80x24" "wait_for 'needs at least 80x24' 5"
t resize-window -t ui -x 80 -y 24
check "80x24 again: the full screen is back" "wait_for 'Engines' 5"
keys '?'
check "?: the help lists the keys" "wait_for 'earshot workstation: keys' 5 && screen | grep -q 'Tab '"
keys x
sleep 1.2
keys q
quit_check "q" || fail=1
json=$(cat "$report" 2>/dev/null)
echo "    report: $json"
# The stream's own figures come first; the slots' follow.
num() { grep -o "\"$1\":[0-9.]*" <<<"$json" | head -1 | cut -d: -f2; }
check "the stats follow: block 512, blocks counted against the clock since the reopen" \
    "[ '$(num block)' = 512 ] && awk -v b='$(num blocks)' -v e='$(num blocks_expected)' \
     'BEGIN { exit !(b > 0 && b >= 0.9 * e - 2 && b <= 1.02 * e + 2) }'"

ui_start 80 24 "$earshot" --device "$device"
wait_for 'Meters' 10
sleep 0.5
keys C-c
quit_check "Ctrl-C" || fail=1
exit $fail
