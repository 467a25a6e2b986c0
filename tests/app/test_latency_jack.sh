#!/usr/bin/env bash
# The latency a person hears on JACK (earshot's own client, --device jack),
# on the dummy backend at periods 64, 128 and 1024, for every block from 32
# to 2048. JACK calls back once a period: a block up to the period runs
# whole blocks inside it (nothing added), a longer one is gathered over
# periods (block - period added inside earshot). For each block, headless:
#   - the period earshot reports is the -p the server was started with;
#   - earshot's own part is the engine's latency + what gathering adds;
#   - the output part is the playback port's latency and the input part
#     the capture port's, as jack_lsp -l reads them (JACK's word, not
#     earshot's);
#   - the total is own + playback, and with the microphone capture + own +
#     playback;
# and the figure changes with the block. Then the same blocks stepped while
# playing (play --commands: the log line's latency) and in the workstation
# (] from 32: the header's, which shows the parts) must give the same
# figures.
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

for period in 64 128 1024; do
    export JACK_DEFAULT_SERVER="earshot-latency-$$-$period"
    jackd --no-realtime -d dummy -r 48000 -p "$period" >"$tmux_dir/jackd.log" 2>&1 &
    jack=$!
    jack_wait $jack "$tmux_dir/jackd.log" || { fail=1; kill $jack; wait $jack; continue; }
    # JACK's own word on its ports' latencies, independent of earshot.
    playback=$(jack_lsp -l system:playback_1 | sed -n 's/.*playback latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
    capture=$(jack_lsp -l system:capture_1 | sed -n 's/.*capture latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
    [ -n "$playback" ] && [ -n "$capture" ] || { bad "period $period: the JACK server did not come up"; cat "$tmux_dir/jackd.log"; kill $jack; wait $jack; continue; }
    declare -A total=() owned=()
    seen=""
    for b in $blocks; do
        json=$("$earshot" play --device jack --block "$b" --headless --seconds 0.3 --json 2>"$tmux_dir/err")
        t=$(field total "$json"); e=$(field engine "$json"); own=$(field own "$json")
        out=$(field output "$json"); p=$(field period "$json")
        if [ -z "$t" ]; then bad "period $period block $b: no latency in the report: $json $(cat "$tmux_dir/err")"; continue; fi
        total[$b]=$t
        owned[$b]=$own
        seen="$seen $t"
        gathered=$(( b > period ? b - period : 0 ))
        [ "$p" = "$period" ] || bad "period $period block $b: earshot says the period is $p"
        [ "$own" = $((e + gathered)) ] ||
            bad "period $period block $b: earshot's own $own, expected engine $e + gathered $gathered"
        [ "$out" = "$playback" ] ||
            bad "period $period block $b: output $out, JACK's playback latency $playback"
        [ "$t" = $((own + playback)) ] ||
            bad "period $period block $b: total $t, expected own $own + playback $playback"
        json=$("$earshot" play --device jack --input mic --block "$b" --headless --seconds 0.3 --json 2>"$tmux_dir/mic.err")
        t=$(field total "$json"); own=$(field own "$json"); in=$(field input "$json")
        [ -n "$t" ] && [ "$in" = "$capture" ] && [ "$t" = $((capture + own + playback)) ] ||
            bad "period $period block $b, microphone: total '$t', input '$in', own '$own'; expected capture $capture + own + playback $playback: $(head -c 300 "$tmux_dir/mic.err")"
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
            got=$(sed -n "s/.*block $b: latency now [0-9.]* ms (\([0-9]*\) fr.*/\1/p" "$tmux_dir/log" | tail -1)
            [ -n "$got" ] && break
            sleep 0.1
        done
        [ "$got" = "${total[$b]}" ] || bad "period $period: play --commands, block $b: log says '${got}', expected ${total[$b]}"
    done
    echo quit >&3
    exec 3>&-
    wait $player

    # The workstation: ] doubles the block; the header follows, with its parts.
    ui_start 140 30 "$earshot" --device jack --block 32
    # The header says the period beside a block shorter than it.
    wait_for "block 32 (period $period)  latency" 10 || bad "period $period: the workstation did not start"
    for b in $blocks; do
        shown="block $b"; [ "$b" -ge "$period" ] || shown="block $b (period $period)"
        [ "$b" = 32 ] || { keys ']'; wait_for "$shown  latency" 10 || { bad "period $period: ] did not reach block $b"; break; }; }
        sleep 0.2 # the header is redrawn each frame; read it once the block shows
        head=$(screen | head -1)
        got=$(sed -n 's/.*latency [0-9.]* ms (\([0-9]*\) fr = \([0-9]*\) earshot + \([0-9]*\) out).*/\1 \2 \3/p' <<<"$head")
        [ "$got" = "${total[$b]} ${owned[$b]} $playback" ] ||
            bad "period $period: workstation block $b: header '$head', expected ${total[$b]} fr = ${owned[$b]} earshot + $playback out"
    done
    keys q
    quit_check "period $period: q" >/dev/null || bad "period $period: q did not exit cleanly"
    [ $fail -eq 0 ] && echo "ok   period $period: totals by block:$seen (capture $capture, playback $playback)"
    kill $jack; wait $jack 2>/dev/null
    unset total owned
done
exit $fail
