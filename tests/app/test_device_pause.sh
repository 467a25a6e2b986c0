#!/usr/bin/env bash
# A device that pauses is waited for; one whose blocks are long is not
# called stalled (live/session_watch.c, es_device_paused):
#  - block 8192 at 8 kHz on the null device: each block is a second, on
#    time; in 6 s no "no audio" line (a device is stalled after
#    max(1 s, 3 periods) without audio);
#  - the JACK server stopped (SIGSTOP) for 8 s and then 15 s (three
#    times the 5 s after which a device is lost): it still holds earshot's
#    client and ports, so earshot waits, says so once, and
#    plays on when it resumes: the same ports, blocks counting again, a
#    change taken, and `quit` exits 0. Before, a pause past 5 s was a
#    device lost for good (every change refused, exit 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
earshot=$(realpath "$1")
. "$here/jack_lib.sh"
jack_test_begin earshot-pause
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
cd "$dir" || exit 1

"$earshot" play --device null --headless --rate 8000 --block 8192 --seconds 6 >long.out \
    2>long.err
rc=$?
blocks=$(sed -n 's/^ *blocks *\([0-9]*\).*/\1/p' long.out)
if [ $rc -eq 0 ] && ! grep -Eq "no audio|running again" long.err && [ "${blocks:-0}" -ge 4 ]; then
    ok "block 8192 at 8 kHz: $blocks blocks in 6 s (a stall is 3 of its periods), no stall said"
else
    bad "block 8192 at 8 kHz: exit $rc, ${blocks:-?} blocks: $(head -c 300 long.err)"
fi

ports() { jack_lsp 2>/dev/null | grep '^earshot:' | sort | paste -sd ' '; }
jack_earshot cmds out.txt err.txt earshot:out_R --room concert-hall --seconds 120
before=$(ports)
[ -n "$before" ] && ok "earshot's ports: $before" || bad "earshot's ports are not in the graph"
for pause in 8 15; do
    seen=$(wc -l <err.txt)
    kill -STOP "$jack"
    sleep "$pause"
    kill -CONT "$jack"
    sleep 2
    printf 'wet -%d\n' "$pause" >&3
    sleep 1.5
    after=$(ports)
    alive=$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)
    since=$(tail -n +$((seen + 1)) err.txt)
    if [ "$alive" = yes ] && [ "$after" = "$before" ] && grep -q "audio running again" <<<"$since" &&
        grep -q "wet -$pause.0 dB" <<<"$since" && ! grep -Eq "device lost: |is lost" err.txt; then
        ok "jackd stopped for $pause s: earshot waited and plays on, the same ports"
    else
        bad "jackd stopped for $pause s: alive $alive, ports '$after' (before '$before'): $since"
    fi
done
grep -q "still holds earshot's ports (paused?)" err.txt &&
    ok "the wait is said: $(grep -m1 'paused?' err.txt | cut -c1-120)" || bad "the wait was not said"
echo quit >&3
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
wait "$pid"
rc=$?
pid=
exec 3>&-
blocks=$(sed -n 's/^ *blocks *\([0-9]*\).*/\1/p' out.txt | tail -1)
[ $rc -eq 0 ] && ok "quit: exit 0 ($blocks blocks)" || bad "quit: exit $rc: $(tail -3 err.txt)"
exit $fail
