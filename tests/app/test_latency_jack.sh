#!/usr/bin/env bash
# The latency a person hears, on JACK's dummy backend at periods 64, 128
# and 256, for every block from 32 to 2048 (PortAudio's JACK host calls back
# once a period whatever block is asked, and adapts the two with a buffer).
# For each block, headless:
#   - the host period earshot reports is the -p the server was started with;
#   - PortAudio's own output figure is JACK's playback port latency less a
#     period (jack_lsp -l), i.e. earshot passes on what PortAudio said;
#   - the total is the engine's latency + PortAudio's reported output + the
#     part of the block PortAudio buffers without reporting it (output
#     only: block - period when the block is longer), i.e. it is within one
#     period of PortAudio's sum for blocks up to the period and grows with
#     the block beyond it;
#   - with the microphone (duplex), PortAudio's own sum is the whole buffer
#     (it reports the block it primes): total = engine + reported in + out,
#     and that is block + period (what a loopback in JACK's graph measures);
# and the figure changes with the block. Then the same blocks stepped while
# playing (play --commands: the log line's latency) and in the workstation
# (] from 32: the header's) must give the same figures.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
command -v jackd >/dev/null || { echo "FAIL: jackd is not installed (scripts/setup --test installs jackd2)"; exit 1; }
command -v jack_lsp >/dev/null || { echo "FAIL: jack_lsp is not installed (jackd2 has it)"; exit 1; }
. "$here/tmux_lib.sh"
. "$here/jack_lib.sh"
export JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
jack=
trap 'kill $jack 2>/dev/null; wait $jack 2>/dev/null; tmux_cleanup' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
field() { sed -n "s/.*\"latency\":{[^}]*\"$1\":\([0-9a-z]*\).*/\1/p" <<<"$2"; }
blocks="32 64 128 256 512 1024 2048"

for period in 64 128 256; do
    export JACK_DEFAULT_SERVER="earshot-latency-$$-$period"
    jackd --no-realtime -d dummy -r 48000 -p "$period" >"$tmux_dir/jackd.log" 2>&1 &
    jack=$!
    jack_wait $jack "$tmux_dir/jackd.log" || { fail=1; kill $jack; wait $jack; continue; }
    # JACK's own word on its playback latency, independent of earshot.
    playback=$(jack_lsp -l system:playback_1 | sed -n 's/.*playback latency = \[ \([0-9]*\).*/\1/p')
    [ -n "$playback" ] || { bad "period $period: the JACK server did not come up"; cat "$tmux_dir/jackd.log"; kill $jack; wait $jack; continue; }
    declare -A total=()
    seen=""
    for b in $blocks; do
        json=$("$earshot" play --device jack --block "$b" --headless --seconds 0.3 --json 2>/dev/null)
        t=$(field total "$json"); e=$(field engine "$json"); ro=$(field reported_output "$json")
        p=$(field period "$json")
        if [ -z "$t" ]; then bad "period $period block $b: no latency in the report: $json"; continue; fi
        total[$b]=$t
        seen="$seen $t"
        extra=$(( b > period ? b - period : 0 ))
        [ "$p" = "$period" ] || bad "period $period block $b: earshot says the period is $p"
        [ "$ro" = $((playback - period)) ] ||
            bad "period $period block $b: PortAudio's output $ro, JACK's playback latency $playback less a period"
        [ "$t" = $((e + ro + extra)) ] ||
            bad "period $period block $b: total $t, expected engine $e + reported $ro + unreported $extra"
        if [ "$b" -le "$period" ] && [ $((t - e - ro)) -gt "$period" ]; then
            bad "period $period block $b: $t is more than a period from PortAudio's sum"
        fi
        # A duplex client may fail to start on a loaded machine (the sanitizer
        # build, 2 cores): said with its words, and tried once more.
        json=$("$earshot" play --device jack --input mic --block "$b" --headless --seconds 0.3 --json 2>"$tmux_dir/mic.err")
        if [ -z "$json" ]; then
            echo "     period $period block $b, microphone: no report the first time: $(head -c 300 "$tmux_dir/mic.err")"
            json=$("$earshot" play --device jack --input mic --block "$b" --headless --seconds 0.3 --json 2>"$tmux_dir/mic.err")
        fi
        t=$(field total "$json"); e=$(field engine "$json"); ri=$(field reported_input "$json")
        ro=$(field reported_output "$json")
        [ -n "$t" ] && [ "$t" = $((e + ri + ro)) ] && [ $((ri + ro)) = $((b + period)) ] ||
            bad "period $period block $b, microphone: total $t, engine $e, PortAudio in $ri out $ro; expected in + out = block + period = $((b + period))"
    done
    distinct=$(tr ' ' '\n' <<<"$seen" | sed '/^$/d' | sort -u | wc -l)
    [ "$distinct" -gt 1 ] || bad "period $period: the latency does not change with the block:$seen"

    # Stepped while playing: each block's log line carries the figure above.
    # Each line is written once the one before has been said: lines that
    # come together supersede each other.
    rm -f "$tmux_dir/in"; mkfifo "$tmux_dir/in"
    "$earshot" play --device jack --block 2048 --headless --commands --seconds 30 \
        <"$tmux_dir/in" >/dev/null 2>"$tmux_dir/log" &
    player=$!
    exec 3>"$tmux_dir/in"
    for b in $blocks; do
        [ "$b" = 2048 ] && continue
        echo "block $b" >&3
        got=
        for _ in $(seq 100); do
            got=$(sed -n "s/.*block $b: latency now [0-9.]* ms (\([0-9]*\) fr).*/\1/p" "$tmux_dir/log" | tail -1)
            [ -n "$got" ] && break
            sleep 0.1
        done
        [ "$got" = "${total[$b]}" ] || bad "period $period: play --commands, block $b: log says '${got}', expected ${total[$b]}"
    done
    echo quit >&3
    exec 3>&-
    wait $player

    # The workstation: ] doubles the block; the header follows.
    ui_start 100 30 "$earshot" --device jack --block 32
    # The header says the period beside a block shorter than it.
    wait_for "block 32 (period $period)  latency" 10 || bad "period $period: the workstation did not start"
    for b in $blocks; do
        shown="block $b"; [ "$b" -ge "$period" ] || shown="block $b (period $period)"
        [ "$b" = 32 ] || { keys ']'; wait_for "$shown  latency" 10 || { bad "period $period: ] did not reach block $b"; break; }; }
        sleep 0.2 # the header is redrawn each frame; read it once the block shows
        got=$(screen | head -1 | sed -n 's/.*latency [0-9.]* ms (\([0-9]*\) fr).*/\1/p')
        [ "$got" = "${total[$b]}" ] || bad "period $period: workstation block $b: header says '$got' fr, expected ${total[$b]}"
    done
    keys q
    quit_check "period $period: q" >/dev/null || bad "period $period: q did not exit cleanly"
    [ $fail -eq 0 ] && echo "ok   period $period: totals by block:$seen (playback latency $playback)"
    kill $jack; wait $jack 2>/dev/null
    unset total
done
exit $fail
