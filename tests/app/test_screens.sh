#!/usr/bin/env bash
# The workstation key by key, at 80x24 and at 120x40 (tmux, null device):
# the panels are there; the help's pages hold every key of the key table
# and every meter's definition; each key does what the help says, seen on
# the screen (the header, the A/B panel, the meters, the messages); the
# meters panel shows the DSP bar, the slots, the short figures and the
# levels at both sizes.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
export EARSHOT_WISDOM=off

# Every key the help must name (keys.c's table), and every meter it defines.
help_keys=("up/down Enter" "up down j k" "1-9" "Tab" "[ ]" "{ }" "p" "< >" ", ." "- +"
           "b Space" "L" "g" "z x" "Z X" "C V" "s" "r" "c" "l" "M" "R" "q F10" "/ n N" "o" "v" "m" "? h F1" "Esc"
           "Ctrl-C" "Ctrl-L" "mouse" "Shift+drag")
help_meters=("miss" "xruns" "stalls" "wake" "DSP load" "p50 p99 max" "latency" "Msmp/s"
             "x RT" "GPU")

# key_says KEY TEXT WHAT: after KEY the screen shows TEXT within 8 s.
key_says() { keys "$1"; check "$3" "wait_for '$2' 8"; }

for size in 80x24 120x40; do
    cols=${size%x*} lines=${size#*x}
    echo "--- $size"
    export XDG_CONFIG_HOME="$tmux_dir/config-$size"
    ui_start "$cols" "$lines" "$earshot" --device null
    check "$size: up (header, rooms, engines, meters, spectrum, status)" \
        "wait_for 'block 256  latency' 15 && wait_for 'Rooms (Enter' 2 && wait_for 'Engines  1-6' 2 &&
         wait_for 'Meters  A:' 2 && wait_for 'Spectrum' 2 && wait_for '?:help q:quit' 2"
    check "$size: the meters: DSP bar, slots, short figures, levels" \
        "screen | grep -q 'DSP \\[' && screen | grep -q 'slot .*blk' && screen | grep -q '>A concert-h' &&
         screen | grep -q 'xruns 0  stalls 0' && screen | grep -q ' in .*pk' && screen | grep -q 'out.*pk'"

    # The help, page by page.
    keys '?'
    check "$size: ? opens the help" "wait_for 'earshot workstation: keys' 5"
    pages=$(screen | sed -n 's/.*keys (and play --commands lines)  1\/\([0-9]*\).*/\1/p')
    # The labels: the first 14 columns of each help line, from where the
    # title starts.
    col=$(screen | grep 'earshot workstation: keys' | awk '{ print index($0, "earshot workstation") }')
    labels=$(screen | cut -c"$col"- | cut -c1-14 | sed 's/ *$//')
    for _ in $(seq 2 "${pages:-1}"); do
        keys Space
        sleep 0.3
        labels+=$'\n'$(screen | cut -c"$col"- | cut -c1-14 | sed 's/ *$//')
    done
    missing=
    for k in "${help_keys[@]}" "${help_meters[@]}"; do
        grep -qxF -- "$k" <<<"$labels" || missing+="'$k' "
    done
    check "$size: the help's ${pages:-?} pages name every key and meter${missing:+ (missing: $missing)}" \
        "[ -n '$pages' ] && [ -z \"$missing\" ]"
    keys Escape
    check "$size: Esc closes the help" "sleep 0.3; ! screen | grep -q 'earshot workstation: keys'"

    # Key by key.
    key_says ']' 'block 512  latency' "$size: ] doubles the block"
    key_says '[' 'block 256  latency' "$size: [ halves it"
    key_says '}' 'partition 512' "$size: } doubles the partition"
    key_says '3' 'engine cpu-nonuniform |' "$size: 3 picks cpu-nonuniform"
    key_says '3' 'cpu-nonuniform is playing already' "$size: 3 again says it plays already"
    key_says p 'has no pipelined mode' "$size: p on a CPU engine says why not"
    key_says Tab 'slot B plays' "$size: Tab plays B"
    check "$size: the A/B panel marks B playing" "wait_for '>B concert-h' 5"
    key_says Tab 'slot A plays' "$size: Tab again plays A"
    key_says '>' 'trim +1.0 dB' "$size: > raises the trim"
    key_says '<' 'trim +0.0 dB' "$size: < lowers it"
    key_says '+' 'gain +1.0 dB' "$size: + raises the output"
    key_says '-' 'gain +0.0 dB' "$size: - lowers it"
    key_says ',' 'wet -0.1 dB, dry -16.1 dB' "$size: , moves the balance towards dry"
    key_says '.' 'dry off' "$size: . back to wet"
    key_says b 'BYPASS' "$size: b bypasses"
    key_says Space 'bypass off' "$size: Space ends it"
    key_says L 'NO LIMIT' "$size: L turns the limiter off (it is on by default)"
    key_says L 'limiter at -1.0 dBFS' "$size: L again on"
    key_says s 'no other source' "$size: s on the null device with no file says why"
    key_says v 'Spectrogram' "$size: v shows the spectrogram"
    key_says v 'Spectrum  (dry o' "$size: v again the spectrum"
    key_says c 'meters cleared' "$size: c clears the meters"
    key_says l 'latency: it needs the microphone' "$size: l on the test signal says why not"
    key_says R 'rooms: 6 (no change)' "$size: R reads the library again"
    key_says z 'head: yaw 15.0, pitch 0.0, roll 0.0 held' "$size: z turns the head left"
    key_says Z 'head: yaw 15.0, pitch 15.0, roll 0.0 held' "$size: Z tilts it up"
    key_says V 'head: yaw 15.0, pitch 15.0, roll 15.0 held' "$size: V rolls it to the right ear"
    key_says C 'pitch 15.0, roll 0.0 held' "$size: C rolls it back"
    keys k
    check "$size: k moves the cursor up" "wait_for '> stairwell' 3"
    keys j
    check "$size: j moves it down" "wait_for '> concert-hall' 3"
    keys / c a t h Enter
    check "$size: / finds a room" "wait_for '> cathedral' 3"
    key_says n 'cathedral' "$size: n finds it again"
    keys o
    check "$size: o opens the file prompt" "wait_for 'open IR file:' 3"
    keys Escape
    key_says m 'Messages: the last' "$size: m opens the message history"
    keys Escape
    check "$size: Esc closes it" "sleep 0.3; ! screen | grep -q 'Messages: the last'"
    keys Escape
    check "$size: Esc on the screen says how to quit" "wait_for 'q or F10 quits' 3"
    keys q
    quit_check "$size: q" || fail=1
done
exit $fail
