#!/usr/bin/env bash
# earshot's own JACK client (--device jack) as a patch bay shows it,
# on JACK's dummy backend (period 128):
#   - jack_lsp lists client `earshot` (or --name's), ports in_1 and
#     out_L/out_R, wired to the physical ports when made;
#   - a connection the user makes by hand with jack_connect, to a client of
#     the test's own (es_jack_tap), and the ports' names, are the same
#     after `block 64`, `block 1024`, `engine cpu-nonuniform`, `room ...` and
#     `source signal` (from a file), each of which the stream takes (said);
#   - the server's period changed under the stream (jack_bufsize 256 at
#     block 1024): followed without a reopen or a word, the latency
#     published following it (768 gathered instead of 896);
#   - the latency earshot publishes on its ports (jack_lsp -l): its output
#     ports' capture latency is its input's plus its own (the block
#     gathered over the period), at block 256 over a period of 128;
#   - --no-connect wires nothing; --connect-out wires the outputs to the
#     ports a pattern lists; a client name in use is one line, and so is a
#     block longer than the period that is not a multiple of it;
#   - earshot's own latency through the graph: es_jack_tap plays noise into
#     earshot:in_1 and records earshot:out_L, the room a Dirac (a jconvolver
#     /impulse/dirac), the microphone as the source, at blocks 64, 128, 256
#     and 512 over the period of 128: the delay es_wav_match finds is
#     earshot's own part of the JSON's latency (engine, and what a block
#     longer than the period gathers) plus the one period the loop through
#     the tap adds, to the frame; and the JSON's total is the capture
#     latency jack_lsp -l gives earshot:in_1 plus that own part plus the
#     playback latency it gives earshot:out_L;
#   - a room that names its ports (a jconvolver configuration's
#     /input/name and /output/name) gives them those names, a name JACK
#     would not take (a colon) the usual one, and they keep them through
#     a change of room;
#   - a block change mid-stream loses no period: a file of noise through
#     a Dirac room, recorded by the test's client through block 64, 512,
#     128 and 1024, has no silent stretch at all (a lost period is 64 to
#     1024 silent frames);
#   - freewheeling (the test's client freewheels the server): noise played into earshot and its
#     output recorded by the test's client, the cathedral through
#     cpu-nonuniform, is the render of the noise (every tail level waited
#     for), every block counted as freewheeling and none a miss;
#   - the server stopped and started again under its name: earshot's ports
#     are back, wired as they were, within 2 s of the server answering,
#     and it plays on with 0 engine misses (the sanitizer build: its
#     misses are said, not judged; its client made again in a hurry on
#     memory it cannot lock missed 2 to 6 blocks in runs where the
#     release build missed none).
#
#   test_jack_client.sh EARSHOT MAKE_WAV JACK_TAP WAV_MATCH WAV_STATS [release|sanitized]
set -u
earshot=$1 make_wav=$2 tap=$3 wav_match=$4 wav_stats=$5 build=${6:-release}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
jack_test_begin es-client -p 128
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

"$make_wav" "$dir/in.wav" noise 48000 1 96000 >/dev/null
# The test's own client, to wire to earshot by hand: it records
# earshot's left output for as long as the test runs.
"$tap" --record "$dir/tap.wav" --from system:capture_1 --seconds 60 --name mine \
    >"$dir/tap.txt" 2>&1 &
tap_pid=$!
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; kill $tap_pid 2>/dev/null; kill $jack 2>/dev/null; wait $jack 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do jack_lsp | grep -q '^mine:' && break; sleep 0.1; done

jack_earshot "$dir/commands" "$dir/play.json" "$dir/said.txt" earshot:out_R --seconds 60 \
    --block 256 --input "$dir/in.wav"

ports() { jack_lsp | grep '^earshot:' | sort | tr '\n' ' '; }
wired() { jack_lsp -c earshot:out_L | grep -c "^   mine:"; }
want="earshot:in_1 earshot:out_L earshot:out_R "
[ "$(ports)" = "$want" ] && ok "client earshot, ports $want" || bad "ports: '$(ports)', want '$want'"
jack_lsp -c earshot:out_R | grep -q '^   system:playback_2' &&
    ok "out_R wired to system:playback_2 when made" || bad "out_R not wired: $(jack_lsp -c earshot:out_R)"
mine=$(jack_lsp | grep '^mine:' | head -1)
jack_connect earshot:out_L "$mine" && [ "$(wired)" = 1 ] &&
    ok "earshot:out_L wired by hand to $mine" || bad "jack_connect earshot:out_L $mine"

# Its own latency on its ports, at block 256 over a period of 128.
in_cap=$(jack_lsp -l earshot:in_1 | sed -n 's/.*capture latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
out_cap=$(jack_lsp -l earshot:out_L | sed -n 's/.*capture latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
[ -n "$in_cap" ] && [ "$out_cap" = $((in_cap + 128)) ] &&
    ok "published: out_L's capture latency $out_cap = in_1's $in_cap + 128 gathered" ||
    bad "published: out_L's capture latency '$out_cap', in_1's '$in_cap' (want + 128)"

step=0
for change in "block 64" "block 1024" "engine cpu-nonuniform" "room stairwell" "source signal"; do
    step=$((step + 1))
    lines=$(wc -l <"$dir/said.txt")
    echo "$change" >&3
    for _ in $(seq 100); do [ "$(wc -l <"$dir/said.txt")" -gt "$lines" ] && break; sleep 0.1; done
    sleep 0.5
    said=$(tail -n +$((lines + 1)) "$dir/said.txt" | head -2 | tr '\n' ' ')
    if [ "$(ports)" = "$want" ] && [ "$(wired)" = 1 ]; then
        ok "after '$change' ($said): the same ports, the hand-made wire kept"
    else
        bad "after '$change' ($said): ports '$(ports)', out_L to mine: $(wired)"
    fi
done
# The server's period changed under the stream (jack_bufsize 256, at block
# 1024): followed by callback, not a reopen; what earshot publishes as its
# own latency follows (block - period gathered: 896, then 768).
lines=$(wc -l <"$dir/said.txt")
jack_bufsize 256 >/dev/null 2>&1
sleep 1
in_cap=$(jack_lsp -l earshot:in_1 | sed -n 's/.*capture latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
out_cap=$(jack_lsp -l earshot:out_L | sed -n 's/.*capture latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
said=$(tail -n +$((lines + 1)) "$dir/said.txt" | tr '\n' ' ')
if [ -n "$in_cap" ] && [ "$out_cap" = $((in_cap + 768)) ] && [ "$(ports)" = "$want" ] &&
   [ "$(wired)" = 1 ] && [ -z "$said" ]; then
    ok "the server's period 128 -> 256 under block 1024: followed without a word or a reopen," \
       "out_L's capture latency $out_cap = in_1's $in_cap + 768 gathered, the ports and the wire kept"
else
    bad "period 128 -> 256: out_L's capture latency '$out_cap', in_1's '$in_cap' (want + 768)," \
        "ports '$(ports)', wired $(wired), said '$said'"
fi
jack_bufsize 128 >/dev/null 2>&1
sleep 0.5
echo quit >&3
exec 3>&-
wait $pid
rc=$?
pid=
[ $rc = 0 ] && ok "quit: exit 0" || bad "quit: exit $rc: $(cat "$dir/said.txt")"
jack_lsp | grep -q '^earshot:' && bad "earshot's ports left behind" || ok "its ports gone with it"

# --no-connect, --connect-out, --name.
"$earshot" play --device jack --headless --seconds 3 --no-connect --name quiet \
    >/dev/null 2>"$dir/err" &
pid=$!
for _ in $(seq 50); do jack_lsp | grep -q '^quiet:out_R$' && break; sleep 0.1; done
n=$(jack_lsp -c quiet:out_L quiet:out_R quiet:in_1 2>/dev/null | grep -c '^   ')
[ "$n" = 0 ] && ok "--no-connect --name quiet: ports quiet:*, wired to nothing" ||
    bad "--no-connect: $n wires: $(jack_lsp -c | grep -A1 '^quiet')"
"$earshot" play --device jack --headless --seconds 1 --name quiet >/dev/null 2>"$dir/err2"
rc=$?
[ $rc != 0 ] && [ "$(grep -c . "$dir/err2")" -ge 1 ] && grep -q "already there" "$dir/err2" &&
    ok "a name in use: $(grep already "$dir/err2")" || bad "a name in use: exit $rc: $(cat "$dir/err2")"
wait $pid
pid=
"$earshot" play --device jack --headless --seconds 3 --name toward \
    --connect-out "$mine" >/dev/null 2>"$dir/err" &
pid=$!
for _ in $(seq 50); do jack_lsp | grep -q '^toward:out_R$' && break; sleep 0.1; done
sleep 0.3
[ "$(jack_lsp -c toward:out_L | grep -c "^   $mine")" = 1 ] &&
    ok "--connect-out '$mine': out_L wired to it" ||
    bad "--connect-out: $(jack_lsp -c toward:out_L)"
wait $pid
pid=
# A block longer than the period must hold a whole number of periods.
"$earshot" play --device jack --headless --seconds 1 --block 192 >/dev/null 2>"$dir/err3"
rc=$?
[ $rc != 0 ] && grep -q "block 192 is not a multiple of the server's period 128" "$dir/err3" &&
    ok "block 192 over a period of 128: refused, $(grep multiple "$dir/err3")" ||
    bad "block 192 over 128: exit $rc: $(cat "$dir/err3")"

# Earshot's own latency, measured through the graph.
printf '/convolver/new 1 1 256 64\n/impulse/dirac 1 1 1 0\n' >"$dir/dirac.conf"
"$make_wav" "$dir/noise.wav" noise 48000 1 24000 5 >/dev/null
period=128
# A try in which the tap saw the machine lose a cycle (its xruns or skips)
# is judged on what it recorded before the first loss (less 4 periods):
# a lost cycle shifts everything after it. One whose loss came too early to
# leave a window of the noise whole is run again, three times at most.
for block in 64 128 256 512; do
  for try in 1 2 3; do
    "$earshot" play --device jack --name lat --input mic \
        --ir "$dir/dirac.conf" --block $block --limiter off --headless --seconds 4 --json \
        >"$dir/lat.json" 2>"$dir/lat.err" &
    pid=$!
    for _ in $(seq 50); do jack_lsp | grep -q '^lat:out_1$' && break; sleep 0.1; done
    sleep 0.5
    cap=$(jack_lsp -l lat:in_1 | sed -n 's/.*capture latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
    play=$(jack_lsp -l lat:out_1 | sed -n 's/.*playback latency = \[ [0-9]* \([0-9]*\) \].*/\1/p')
    "$tap" --play "$dir/noise.wav" --to lat:in_1 --record "$dir/rec.wav" --from lat:out_1 \
        --seconds 1.5 >"$dir/lat.tap" 2>&1
    # Recorded: earshot ends there (its report says the latency), not at 4 s.
    kill -TERM $pid 2>/dev/null
    wait $pid
    pid=
    lost=$(sed -n 's/.*xruns \([0-9]*\), skipped \([0-9]*\).*/\1 \2/p' "$dir/lat.tap" | head -1)
    rate=$(sed -n 's/.* frames at \([0-9]*\) Hz.*/\1/p' "$dir/lat.tap" | head -1)
    first=$(sed -n 's/^jack_tap: \(xruns\|skips\) at \([0-9.]*\) s.*/\2/p' "$dir/lat.tap" |
        sort -g | head -1)
    clean=
    [ -n "$first" ] && clean=$(awk -v s="$first" -v r="${rate:-48000}" -v p=$period \
        'BEGIN { c = int(s * r) - 4 * p; print c < 0 ? 0 : c }')
    got=$("$wav_match" "$dir/rec.wav" "$dir/noise.wav" 4096 $clean 2>&1)
    delay=$(sed -n 's/^delay \([0-9]*\) frames.*/\1/p' <<<"$got")
    worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$got")
    if awk -v w="${worst:-0}" 'BEGIN { exit !(w > -100) }' && [ "${lost:-0 0}" != "0 0" ] &&
        [ $try -lt 3 ]; then
        echo "     block $block, try $try: $got; the tap lost cycles (xruns, skips: $lost," \
            "the first at ${first:-?} s); again"
        continue
    fi
    break
  done
    lat=$(grep -o '"latency":{[^}]*}' "$dir/lat.json")
    field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$lat"; }
    gathered=$((block > period ? block - period : 0))
    own=$(($(field engine) + gathered))
    total=$(field total)
    if [ -n "$delay" ] && [ "$delay" = $((own + period)) ] &&
        awk -v w="${worst:-0}" 'BEGIN { exit !(w <= -100) }' &&
        [ -n "$cap" ] && [ "$total" = $((cap + own + play)) ]; then
        ok "block $block over $period: through the graph $delay = own $own + the loop's $period;" \
            "the total $total = capture $cap + own $own + playback $play (jack_lsp -l)" \
            "${clean:+(judged on the first $clean frames: the tap lost cycles from $first s)}"
    else
        bad "block $block over $period: delay '$delay' ($got) against own $own + $period;" \
            "total '$total' against capture '$cap' + $own + playback '$play': $lat $(cat "$dir/lat.err" "$dir/lat.tap")"
    fi
done
# Ports named by the room, kept through a change of room.
printf '%s\n' '/convolver/new 1 2 256 64' '/impulse/dirac 1 1 1 0' '/impulse/dirac 1 2 1 0' \
    '/input/name 1 Mic' '/output/name 1 Left' '/output/name 2 a:b' >"$dir/named.conf"
jack_earshot "$dir/commands" /dev/null "$dir/named.err" named:Left --name named \
    --ir "$dir/named.conf" --seconds 30
named() { jack_lsp | grep '^named:' | sort | tr '\n' ' '; }
want_named="named:Left named:Mic named:out_R "
before=$(named)
echo "room stairwell" >&3
for _ in $(seq 100); do grep -q 'stairwell' "$dir/named.err" && break; sleep 0.1; done
sleep 0.5
after=$(named)
echo quit >&3
exec 3>&-
wait $pid
pid=
if [ "$before" = "$want_named" ] && [ "$after" = "$want_named" ]; then
    ok "a room's /input/name and /output/name: ports $before(a:b is no port name: out_R), the same after 'room stairwell'"
else
    bad "named ports: '$before' then '$after', want '$want_named': $(cat "$dir/named.err")"
fi

# A block change mid-stream loses no period: noise through a Dirac room,
# recorded by the test's client while the block changes four times. A
# try that lost a cycle to the machine (the client's xruns) is run again.
printf '%s\n' '/convolver/new 1 1 256 64' '/impulse/dirac 1 1 1 0' >"$dir/one.conf"
for try in 1 2 3; do
    jack_earshot "$dir/commands" /dev/null "$dir/cont.err" cont:out_1 --name cont \
        --ir "$dir/one.conf" --input "$dir/in.wav" --block 256 --seconds 30
    "$tap" --record "$dir/cont.wav" --from cont:out_1 --seconds 4 --name contrec \
        >"$dir/cont.tap" 2>&1 &
    recorder=$!
    sleep 0.6
    for b in 64 512 128 1024; do echo "block $b" >&3; sleep 0.7; done
    wait $recorder
    echo quit >&3
    exec 3>&-
    wait $pid
    pid=
    changed=$(grep -c 'latency now' "$dir/cont.err")
    read -r _ gap at < <("$wav_stats" "$dir/cont.wav" | sed -n 3p)
    xruns=$(sed -n 's/.*xruns \([0-9]*\).*/\1/p' "$dir/cont.tap" | head -1)
    # A silent stretch while the recorder saw the machine lose cycles is
    # the machine's: tried again (three times at most, then judged).
    [ "${gap:-1}" != 0 ] && [ "${xruns:-0}" != 0 ] && [ $try -lt 3 ] &&
        { echo "     try $try: $gap silent frames, the recorder saw $xruns xruns; again"; continue; }
    break
done
if [ "$changed" = 4 ] && [ "${gap:-1}" = 0 ]; then
    ok "block 256 -> 64 -> 512 -> 128 -> 1024 while recording: $changed changes said, no silent frame in the recording"
else
    bad "block changes: $changed said, the longest silence ${gap:-?} frames at ${at:-?} s: $(cat "$dir/cont.err" "$dir/cont.tap")"
fi

# Freewheeling (an export): the server runs cycles as fast as its clients
# make them. The test's client plays 2 s of noise into earshot (the
# cathedral through cpu-nonuniform, whose tail levels run on worker
# threads) and records what comes out: it must be the render of that noise
# (every tail level waited for, none left out), with the blocks counted
# as freewheeling and none a miss; how long it took is said (faster than
# real time here, but a sanitizer build need not be).
"$make_wav" "$dir/fw-in.wav" noise 48000 1 96000 11 0.5 >/dev/null
jack_earshot "$dir/commands" "$dir/fw.json" "$dir/fw.err" fw:out_R --name fw --input mic \
    --room cathedral --engine cpu-nonuniform --block 128 --limiter off --json --seconds 120
jack_disconnect system:capture_1 fw:in_1
# The test's client freewheels the server itself, and stays in the graph
# until it has stopped freewheeling (jack_tap.c says why).
"$tap" --play "$dir/fw-in.wav" --to fw:in_1 --record "$dir/fw-rec.wav" --from fw:out_L \
    --from fw:out_R --seconds 12 --name fwtap --freewheel >"$dir/fw.tap" 2>&1
took=$(sed -n 's/^jack_tap: freewheeled .* in \([0-9.]*\) s$/\1/p' "$dir/fw.tap")
sleep 0.5
echo quit >&3
exec 3>&-
wait $pid
pid=
"$earshot" render --room cathedral --engine cpu-nonuniform --block 128 "$dir/fw-in.wav" \
    "$dir/fw-ref.wav" >/dev/null 2>"$dir/fw-render.err"
got=$("$wav_match" "$dir/fw-rec.wav" "$dir/fw-ref.wav" 4096 2>&1)
delay=$(sed -n 's/^delay \([0-9]*\) frames.*/\1/p' <<<"$got")
worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$got")
fw_blocks=$(sed -n 's/.*"freewheel_blocks":\([0-9]*\).*/\1/p' "$dir/fw.json")
fw_misses=$(grep -o '"misses":[0-9]*' "$dir/fw.json" | head -1 | cut -d: -f2)
fw_late=$(grep -o '"late_results":[0-9]*' "$dir/fw.json" | head -1 | cut -d: -f2)
if [ "${fw_blocks:-0}" -gt 1000 ] && [ "$fw_misses" = 0 ] && [ "$fw_late" = 0 ] &&
   [ -n "$delay" ] && awk -v w="${worst:-0}" 'BEGIN { exit !(w <= -100) }'; then
    ok "freewheeling: 12 s recorded in ${took:-?} s; the recording is the render of the noise" \
       "(delay $delay, worst $worst dB); $fw_blocks blocks freewheeled, 0 misses, 0 late results"
else
    bad "freewheeling: 12 s in ${took:-?} s, $got; freewheel_blocks '$fw_blocks', misses '$fw_misses'," \
        "late results '$fw_late': $(cat "$dir/fw.err" "$dir/fw.tap")"
fi

# The server stopped and started again.
"$earshot" play --device jack --headless --seconds 8 --json >"$dir/restart.json" \
    2>"$dir/restart.err" &
pid=$!
for _ in $(seq 50); do jack_lsp | grep -q '^earshot:out_R$' && break; sleep 0.1; done
sleep 1
kill $jack
wait $jack 2>/dev/null
jack_dummy es-client -p 128 || exit 1
answered=$(date +%s%N)
back=
for _ in $(seq 50); do
    if jack_lsp -c earshot:out_L 2>/dev/null | grep -q '^   system:playback_1'; then
        back=$(( ($(date +%s%N) - answered) / 1000000 ))
        break
    fi
    sleep 0.1
done
wait $pid
rc=$?
pid=
misses=$(grep -o '"misses":[0-9]*' "$dir/restart.json" | head -1 | cut -d: -f2)
blocks=$(grep -o '"blocks":[0-9]*' "$dir/restart.json" | head -1 | cut -d: -f2)
misses_ok=0
[ "${misses:-1}" = 0 ] || { [ "$build" = sanitized ] && [ -n "$misses" ]; } && misses_ok=1
if [ -n "$back" ] && [ "$back" -le 2000 ] && [ $rc = 0 ] && [ $misses_ok = 1 ]; then
    ok "server restarted: earshot's ports back and wired $back ms after it answered;" \
        "exit 0, $blocks blocks, $misses misses"
else
    bad "server restarted: back after '${back:-never}' ms, exit $rc, misses '$misses':" \
        "$(cat "$dir/restart.err")"
fi
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
