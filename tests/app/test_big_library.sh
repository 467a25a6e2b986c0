#!/usr/bin/env bash
# A library of 100,000 rooms. The workstation's first screen comes within
# 3 s with under 200 MB resident (rooms are listed at once and measured
# only when the screen shows one), the list reaches the last room, and
# `earshot rooms` lists all 100,000 (timed, and said). The sanitizer
# build runs four times slower and holds freed memory: its time limit is
# four times as long and its memory is not judged.
# Then a manifest of 100,000 entries with one name: the lines left out are
# kept to 100 and counted in one, so a rescan (R, `rescan`) costs a read,
# and q, `quit` and SIGTERM each end the process within 2 s of asking.
set -u
here=$(cd "$(dirname "$0")" && pwd)
earshot=$(realpath "$1")
make_wav=$(realpath "$2")
build=${3:-release}
. "$here/tmux_lib.sh"
dir=$(mktemp -d)
trap 'tmux_cleanup; rm -rf "$dir"' EXIT
export EARSHOT_WISDOM=off XDG_DATA_HOME=$dir/xdg
rooms=100000
limit_s=3 limit_mb=200
[ "$build" = sanitized ] && limit_s=12
now() { date +%s.%N; }

mkdir "$dir/lib"
"$make_wav" "$dir/lib/a.wav" decay 48000 2 4800
awk -v n=$rooms 'BEGIN { for (i = 0; i < n; i++)
    printf "[room-%06d]\nfile = a.wav\ndescription = room %d of a big library\nsource = generated\n\n", i, i }' \
    >"$dir/lib/rooms.txt"
echo "manifest: $rooms rooms, $(($(stat -c %s "$dir/lib/rooms.txt") / 1024)) KB"

start=$(now)
ui_start 100 30 "$earshot" --device null --rooms "$dir/lib"
wait_for "room-000000" $((limit_s * 4))
took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
check "the first screen with $rooms rooms in $took s (at most $limit_s)" \
    "screen | grep -q room-000000 && awk -v t=$took -v l=$limit_s 'BEGIN { exit !(t < l) }'"
pid=$(ui_pid)
keys End
check "End: the last room, measured when shown" "wait_for 'room-099999' 10 && wait_for 'T30 0.' 10"
rss=$(($(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status") / 1024))
if [ "$build" = sanitized ]; then
    echo "skip resident memory ($rss MB): AddressSanitizer's shadow and quarantine"
else
    check "resident memory $rss MB (at most $limit_mb)" "[ $rss -lt $limit_mb ]"
fi
keys q
quit_check "q" >/dev/null || check "q quits cleanly" "false"

start=$(now)
listed=$("$earshot" rooms --rooms "$dir/lib" --json 2>"$dir/err" | grep -c '"name":"room-')
took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
check "earshot rooms lists all $rooms, each measured, in $took s" \
    "[ $listed -eq $rooms ] && [ ! -s '$dir/err' ]"

# -- 100,000 entries by one name
mkdir "$dir/dup"
cp "$dir/lib/a.wav" "$dir/dup/"
awk -v n=$rooms 'BEGIN { for (i = 0; i < n; i++) printf "[same]\nfile = a.wav\n\n" }' \
    >"$dir/dup/rooms.txt"
dup_limit=2
[ "$build" = sanitized ] && dup_limit=4
ui_start 100 30 "$earshot" --device null --rooms "$dir/dup"
wait_for "r:record" 20
keys R
wait_for "rooms: " 20
start=$(now)
keys q
quit_check "q after a rescan of $rooms entries by one name" >/dev/null ||
    check "q quits cleanly" "false"
took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
check "q took $took s (at most $dup_limit)" "awk -v t=$took -v l=$dup_limit 'BEGIN { exit !(t < l) }'"
for how in quit TERM; do
    fifo=$dir/cmds.$how
    mkfifo "$fifo"
    "$earshot" play --device null --headless --commands --rooms "$dir/dup" --seconds 60 \
        <"$fifo" >"$dir/out.$how" 2>"$dir/err.$how" &
    pid=$!
    exec 7>"$fifo"
    echo rescan >&7
    for _ in $(seq 200); do grep -q "^earshot: rooms: " "$dir/err.$how" && break; sleep 0.05; done
    start=$(now)
    if [ $how = quit ]; then echo quit >&7; else kill -TERM $pid; fi
    while kill -0 $pid 2>/dev/null &&
        awk -v a="$start" -v b="$(now)" 'BEGIN { exit !(b - a < 10) }'; do sleep 0.02; done
    took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    exec 7>&-
    said=$(grep -c "left out" "$dir/err.$how")
    check "$how after a rescan: ended in $took s (at most $dup_limit), $said lines said of $((rooms - 1)) left out, one counting the rest" \
        "awk -v t=$took -v l=$dup_limit 'BEGIN { exit !(t < l) }' && [ $said -le 202 ] && grep -q 'more lines like these' '$dir/err.$how'"
done
exit $fail
