#!/usr/bin/env bash
# A library of 100,000 rooms. The workstation's first screen comes within
# 3 s with under 200 MB resident (rooms are listed at once and measured
# only when the screen shows one), the list reaches the last room, and
# `earshot rooms` lists all 100,000 (timed, and said). The sanitizer
# build runs four times slower and holds freed memory: its time limit is
# four times as long and its memory is not judged.
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
exit $fail
