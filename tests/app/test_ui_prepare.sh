#!/usr/bin/env bash
# A draw never waits: in the workstation, Enter on the cathedral starts a
# preparation that takes seconds here (a cold FFTW wisdom file, FFTW_MEASURE,
# the room resampled to 44.1 kHz, cpu-nonuniform's tail levels), and the
# screen goes on redrawing meanwhile. The header's clock ("up 12.3 s",
# tenths of a second since the stream started) is read from the screen
# every ~50 ms: between two reads it may advance by little more than the
# time between them, never by the length of the preparation, which is
# measured too so that the check can fail (a screen that waited would show
# one jump of about that length).
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT

export EARSHOT_WISDOM="$tmux_dir/cold.wisdom" # no wisdom: every plan measured
ui_start 100 30 "$earshot" --device null --rate 44100 --engine cpu-nonuniform \
    --room concert-hall
check "starts on concert-hall" "wait_for 'concert-hall     playing' 15"
sleep 1
# Put the cursor on the cathedral (the last room) and press Enter.
for _ in 1 2 3 4 5 6; do keys Down; done
keys Enter
start=$(date +%s.%N)
: >"$tmux_dir/samples"
prepared=
for _ in $(seq 200); do
    s=$(screen)
    now=$(date +%s.%N)
    up=$(sed -n 's/.*up \([0-9]*\.[0-9]\) s.*/\1/p' <<<"$s" | head -1)
    preparing=0
    grep -q 'preparing' <<<"$s" && preparing=1
    echo "$now $up $preparing" >>"$tmux_dir/samples"
    if [ -z "$prepared" ] && grep -q 'cathedral *playing' <<<"$s"; then
        prepared=$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.2f", b - a }')
        break
    fi
    sleep 0.05
done
# The largest step of the screen's clock beyond the wall time between reads.
worst=$(awk 'NR > 1 && $2 != "" && last != "" {
                 lag = ($2 - last) - ($1 - t); if (lag > w) w = lag }
             { if ($2 != "") { last = $2; t = $1 } }
             END { printf "%.2f", w + 0 }' "$tmux_dir/samples")
seen=$(awk '$3 == 1' "$tmux_dir/samples" | wc -l)
reads=$(wc -l <"$tmux_dir/samples")
echo "preparation took ${prepared:-?} s; $reads reads, $seen showing 'preparing'; worst clock jump beyond wall time ${worst} s"
check "the cathedral plays after its preparation" "[ -n '$prepared' ]"
check "'preparing' was on screen meanwhile ($seen reads)" "[ $seen -ge 3 ]"
check "the preparation was long enough to tell (${prepared:-?} s > 0.5 s)" \
    "awk -v p='${prepared:-0}' 'BEGIN { exit !(p > 0.5) }'"
check "the clock kept moving: no jump over 0.25 s beyond wall time (worst ${worst} s)" \
    "awk -v w=$worst 'BEGIN { exit !(w <= 0.25) }'"
keys q
quit_check "q after the preparation" || fail=1
exit $fail
