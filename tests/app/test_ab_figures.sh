#!/usr/bin/env bash
# The A/B figures count all the CPU the stream uses while a slot plays:
# cpu-nonuniform on the cathedral at block 64 (its tail levels run on
# worker threads) and cpu-partitioned (no helpers), each for 4 s after a
# `reset` of the meters, on the null device. The slot's mean load times the
# time it counted must equal the CPU time that the audio thread
# (es-audio-null) and the engine's workers (es-tail-worker) took over the
# same window, read per thread from /proc/PID/task/TID/schedstat, within
# 20 % (it agrees within 3 % on an idle 2-core machine). Before, the load
# counted the audio thread's processing only, and cpu-nonuniform's claim
# was 2.5 times short of its CPU time.
set -u
earshot=$1
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
export XDG_CONFIG_HOME="$dir" EARSHOT_WISDOM=off
fail=0

# CPU ns of the audio thread and the engine's workers of process $1.
cpu_ns() {
    local sum=0 t
    for t in /proc/"$1"/task/*; do
        case $(cat "$t/comm" 2>/dev/null) in
            es-audio-null | es-tail-worker) sum=$((sum + $(cut -d' ' -f1 "$t/schedstat"))) ;;
        esac
    done
    echo "$sum"
}

# A number from the first slot of the JSON report in $1.
slot_figure() {
    tr ',' '\n' <"$1" | sed -n '/"slots"/,$p' | grep -m1 "\"$2\":" | sed 's/.*://; s/[]}]//g'
}

for engine in cpu-nonuniform cpu-partitioned; do
    rm -f "$dir/cmd"
    mkfifo "$dir/cmd"
    "$earshot" play --headless --commands --device null --room cathedral --engine "$engine" \
        --block 64 --seconds 60 --json <"$dir/cmd" >"$dir/out.json" 2>"$dir/err.txt" &
    pid=$!
    exec 3>"$dir/cmd"
    sleep 2 # the room built, the stream warm
    echo reset >&3
    sleep 0.2
    before=$(cpu_ns "$pid")
    # The meters were reset 0.2 s before `before`: the window starts then.
    sleep 4
    after=$(cpu_ns "$pid")
    echo quit >&3
    exec 3>&-
    wait "$pid"
    rc=$?
    pid=
    mean=$(slot_figure "$dir/out.json" load_mean)
    helpers=$(slot_figure "$dir/out.json" helpers_load_mean)
    seconds=$(slot_figure "$dir/out.json" counted_seconds)
    # The CPU over the window the JSON counted: what /proc saw over 4 s,
    # scaled to the counted seconds (the reset and quit lines land a few
    # ms from the reads).
    verdict=$(awk -v m="${mean:-0}" -v s="${seconds:-0}" -v ns=$((after - before)) 'BEGIN {
        measured = ns / 1e9 / 4.0 * s; claimed = m * s
        ratio = measured > 0 ? claimed / measured : 0
        printf "%s %.1f %.1f %.3f", (ratio > 0.8 && ratio < 1.2) ? "ok" : "FAIL",
               1e3 * claimed, 1e3 * measured, ratio }')
    set -- $verdict
    printf '%s  %s: slot mean load %s (helpers %s) x %s s = %s ms; the audio thread and the workers took %s ms (ratio %s, exit %s)\n' \
        "$(
            [ "$1" = ok ] && [ "$rc" = 0 ] && echo "ok  " || echo FAIL
        )" "$engine" "$mean" "$helpers" "$seconds" "$2" "$3" "$4" "$rc"
    [ "$1" = ok ] && [ "$rc" = 0 ] || { fail=1; cat "$dir/err.txt"; }
    if [ "$engine" = cpu-nonuniform ]; then
        awk -v h="${helpers:-0}" 'BEGIN { exit !(h > 0) }' ||
            { echo "FAIL cpu-nonuniform's helpers counted nothing"; fail=1; }
    fi
done
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
