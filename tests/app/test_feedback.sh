#!/usr/bin/env bash
# A real feedback loop, as a microphone that hears its own speaker makes
# one: under a JACK server (dummy backend), earshot's output is wired back
# to its own input in JACK's graph, with the dry path at +6 dB (a loop gain
# of 2 a period) and the limiter off, and a JACK client (es_jack_tap)
# sends a 0.1 s burst of noise at -14 dBFS into the input to start it.
# earshot must mute within 0.5 s of the burst, say why in one line, count
# the runaway and say muted in its JSON, and its recording (what it sent)
# must never go above +6 dBFS. Before the runaway detector, such a loop
# ran to +300 dBFS in seconds, then to NaN.
set -u
earshot=$1
make_wav=$2
jack_tap=$3
wav_stats=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
jack_test_begin earshot-loop
fail=0
"$make_wav" "$dir/burst.wav" noise 48000 1 4800 7 0.4 >/dev/null

mkfifo "$dir/cmd"
"$earshot" play --device jack --input mic --input-device jack --room living-room \
    --limiter off --headless --commands --seconds 30 --record "$dir/rec.wav" --json \
    <"$dir/cmd" >"$dir/out.json" 2>"$dir/err.txt" &
pid=$!
exec 3>"$dir/cmd"
for _ in $(seq 100); do jack_lsp 2>/dev/null | grep -qx 'earshot:in_1' && break; sleep 0.1; done
echo "mix 1 2 1" >&3 # wet 1, dry 2 (+6 dB), output 1
sleep 0.5
# The loop: earshot's first output into its own input (the server's
# capture port is taken off it, so the loop is all it hears).
jack_disconnect system:capture_1 earshot:in_1 2>/dev/null
jack_connect earshot:out_L earshot:in_1 || { echo "FAIL: jack_connect"; fail=1; }
sleep 0.5
"$jack_tap" --play "$dir/burst.wav" --to earshot:in_1 --seconds 1 >"$dir/tap.txt" 2>&1
sleep 1
echo quit >&3
exec 3>&-
wait "$pid"
rc=$?
pid=
sed 's/^/    earshot: /' "$dir/err.txt"
runaways=$(sed -n 's/.*"runaways":\([0-9]*\).*/\1/p' "$dir/out.json")
muted=$(sed -n 's/.*"muted":\("[a-z]*"\|null\).*/\1/p' "$dir/out.json")
said=$(grep -c 'runaway:' "$dir/err.txt")
# The recording: its loudest sample, and how long it sounded from the
# burst's arrival (its first sample over -40 dBFS) to the mute (its last
# sample not exactly 0).
read -r peak first last < <("$wav_stats" "$dir/rec.wav" || echo "- - -")
verdict=$(awk -v p="$peak" -v f="$first" -v l="$last" 'BEGIN {
    ok = p != "-" && p <= 2.0 && f >= 0 && l >= f && l - f <= 0.5
    printf "%s %.2f %.3f", ok ? "ok" : "FAIL", (p > 0 ? 20 * log(p) / log(10) : -300), l - f }')
set -- $verdict
echo "$1   the loop: muted $3 s after the burst came (at most 0.5), the recording's loudest sample $2 dBFS (at most +6)"
[ "$1" = ok ] || fail=1
if [ "$rc" = 0 ] && [ "${runaways:-0}" -ge 1 ] && [ "$muted" = '"runaway"' ] && [ "$said" = 1 ]; then
    echo "ok   exit 0, runaways $runaways and muted $muted in the JSON, said in $said line: $(grep 'runaway:' "$dir/err.txt")"
else
    echo "FAIL exit $rc, runaways '$runaways', muted '$muted', said in $said lines"
    sed 's/^/    tap: /' "$dir/tap.txt"
    fail=1
fi
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
