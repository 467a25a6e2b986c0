#!/usr/bin/env bash
# A room played live from several inputs: under a JACK server (dummy
# backend), earshot plays a true-stereo room from the microphone with
# --inputs 2, its two input ports fed by a JACK client (es_jack_tap) with
# two different noises, the output and the dry input recorded. The dry
# recording must hold both inputs (2 channels, neither silent, not equal),
# and the output must equal `earshot render` of the dry recording through
# the same room (below -110 dB of its peak: the render plans its own
# FFTs). Then a 2 x 3 room: without --inputs the stream opens as many
# input ports as the room has inputs (2).
#
#   test_live_inputs.sh EARSHOT MAKE_WAV JACK_TAP WAV_MATCH WAV_STATS
set -u
earshot=$1 make_wav=$2 jack_tap=$3 wav_match=$4 wav_stats=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
jack_test_begin earshot-inputs -C 4 -P 4
fail=0
"$make_wav" "$dir/ts.wav" decay 48000 4 9600 3 0.05 >/dev/null  # true stereo, 0.2 s
"$make_wav" "$dir/noise.wav" noise 48000 2 96000 9 0.5 >/dev/null

# play_live ROOM EXTRA...: plays ROOM from the microphone for a while, the
# tap feeding its input ports; wet.wav, dry.wav, err.txt, ports.txt.
play_live() {
    local room=$1
    shift
    rm -f "$dir/cmd"
    mkfifo "$dir/cmd"
    "$earshot" play --device jack --input mic --input-device jack --room "$room" --raw "$@" \
        --limiter off --headless --commands --seconds 30 --record "$dir/wet.wav" \
        --record-input "$dir/dry.wav" <"$dir/cmd" >/dev/null 2>"$dir/err.txt" &
    pid=$!
    exec 3>"$dir/cmd"
    for _ in $(seq 100); do jack_lsp 2>/dev/null | grep -qx 'earshot:in_1' && break; sleep 0.1; done
    sleep 0.3
    jack_lsp 2>/dev/null | grep '^earshot:in_' >"$dir/ports.txt"
    for p in $(cat "$dir/ports.txt"); do
        for c in $(jack_lsp -c "$p" 2>/dev/null | sed -n 's/^ \{1,\}//p'); do jack_disconnect "$c" "$p"; done
    done
    # (A quit to an earshot that ended is no write error: SIGPIPE ignored.)
    trap '' PIPE
    "$jack_tap" --play "$dir/noise.wav" --to earshot:in_1 --to earshot:in_2 --seconds 1.5 \
        >"$dir/tap.txt" 2>&1
    echo quit >&3
    exec 3>&-
    wait "$pid"
    local rc=$?
    [ $rc = 0 ] || sed 's/^/    earshot: /' "$dir/err.txt"
    pid=
    return $rc
}

play_live "$dir/ts.wav" --inputs 2
rc=$?
ports=$(wc -l <"$dir/ports.txt")
# Both inputs heard: each dry channel loud, the two different.
read -r left right apart < <("$wav_stats" "$dir/dry.wav" | sed -n 2p)
"$earshot" render --ir "$dir/ts.wav" "$dir/dry.wav" "$dir/ref.wav" >"$dir/render.txt" 2>&1
result=$("$wav_match" "$dir/ref.wav" "$dir/wet.wav" 0 2>&1)
worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$result")
inputs=$(sed -n 's/.*: [0-9]* frames, \([0-9]*\) in -> .*/\1/p' "$dir/render.txt")
if [ "$rc" = 0 ] && [ "$ports" = 2 ] && [ "$inputs" = 2 ] &&
   awk -v w="${worst:-0}" -v l="${left:-0}" -v r="${right:-0}" -v a="${apart:-0}" \
       'BEGIN { exit !(w <= -110 && l > 0.1 && r > 0.1 && a > 0.1) }'; then
    echo "ok   a true-stereo room live from 2 JACK ports: $ports input ports, the dry take has $inputs channels (peaks $left and $right, apart by up to $apart), the output is the render of it to $worst dB"
else
    echo "FAIL a true-stereo room live from 2 JACK ports: exit $rc, $ports ports, $inputs inputs: $result"
    sed 's/^/    /' "$dir/err.txt" "$dir/tap.txt"
    fail=1
fi
# A 2 x 3 jconvolver room, no --inputs: the room's 2 inputs open.
"$make_wav" "$dir/paths.wav" decay 48000 6 4800 4 0.1 >/dev/null
{
    echo "/convolver/new 2 3 256 4800"
    for k in 0 1 2 3 4 5; do
        echo "/impulse/read $((k / 3 + 1)) $((k % 3 + 1)) 1 0 0 0 $((k + 1)) $dir/paths.wav"
    done
} >"$dir/room23.conf"
play_live "$dir/room23.conf"
rc=$?
ports=$(wc -l <"$dir/ports.txt")
"$earshot" render --ir "$dir/room23.conf" "$dir/dry.wav" "$dir/ref.wav" >"$dir/render.txt" 2>&1
result=$("$wav_match" "$dir/ref.wav" "$dir/wet.wav" 0 2>&1)
worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$result")
outs=$(sed -n 's/.* -> \([0-9]*\) out,.*/\1/p' "$dir/render.txt")
read -r left right apart < <("$wav_stats" "$dir/dry.wav" | sed -n 2p)
if [ "$rc" = 0 ] && [ "$ports" = 2 ] && [ "$outs" = 3 ] &&
   awk -v w="${worst:-0}" -v l="${left:-0}" -v r="${right:-0}" \
       'BEGIN { exit !(w <= -110 && l > 0.1 && r > 0.1) }'; then
    echo "ok   a 2 x 3 room, no --inputs: $ports input ports opened, $outs outputs, the output is the render of the dry take to $worst dB"
else
    echo "FAIL a 2 x 3 room, no --inputs: exit $rc, $ports ports, $outs outputs: $result"
    sed 's/^/    /' "$dir/err.txt"
    fail=1
fi
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
