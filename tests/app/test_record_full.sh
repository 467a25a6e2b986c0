#!/usr/bin/env bash
# A recording onto a disk that fills: a 1 MB tmpfs. The workstation (r
# records into the folder it runs in) turns REC into "REC FAILED: disk
# full" within a second of the disk filling, and says why in the message
# log; the take keeps what fitted, a valid WAV; q quits cleanly. The same
# headless: one line, at once, and exit 1. Mounting needs root (or a user
# namespace): skipped (77) where neither is allowed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
earshot=$(realpath "$1")
. "$here/tmux_lib.sh"
mnt=$(mktemp -d)
cleanup() { tmux_cleanup; umount "$mnt" 2>/dev/null; rmdir "$mnt" 2>/dev/null; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
    echo "skip: cannot mount a tmpfs here (not root)"
    exit 77
fi
export EARSHOT_WISDOM=off
now() { date +%s.%N; }
# Full: less left than a write of each take (4096 frames: 32 KB of the
# stereo output, 16 KB of the dry input) needs, so the next write fails. A
# write that does not fit can leave up to that much free: a fresh root's
# sanitizer run saw REC FAILED with 4 KB or more still free, and a
# threshold of 4 KB never saw the disk fill.
full() { [ "$(df --output=avail -B1 "$mnt" | tail -1)" -lt 65536 ]; }
seconds_of() { "$earshot" rooms --show "$1" 2>/dev/null | sed -n 's/^[^:]*: \([0-9.]*\) s, .*/\1/p'; }

ui_start 100 30 sh -c "cd '$mnt' && exec '$earshot' --device null"
check "the workstation is up" "wait_for 'r:record' 15"
keys r
check "r: REC" "wait_for 'REC ' 5"
filled=
for _ in $(seq 300); do
    if [ -z "$filled" ] && full; then filled=$(now); fi
    screen | grep -q "REC FAILED: disk full" && break
    sleep 0.02
done
shown=$(now)
late=$(awk -v a="${filled:-$shown}" -v b="$shown" 'BEGIN { printf "%.2f", b - a }')
check "REC FAILED: disk full, $late s after the disk filled (at most 1 s)" \
    "screen | grep -q 'REC FAILED: disk full' && [ -n '$filled' ] && awk -v l=$late 'BEGIN { exit !(l < 1) }'"
check "the message log says why, and what is kept" \
    "screen | grep -q 'recording FAILED: .*No space left'"
keys r
sleep 0.5
take=$(ls "$mnt"/earshot-*.wav 2>/dev/null | grep -v dry | head -1)
kept=$(seconds_of "$take")
check "r stops it: the take is a valid WAV of what fitted (${kept:-?} s)" \
    "awk -v s='${kept:-0}' 'BEGIN { exit !(s > 0.3) }'"
keys q
quit_check "q" >/dev/null || check "q quits cleanly" "false"
rm -f "$mnt"/*.wav

start=$(now)
"$earshot" play --device null --headless --seconds 4 --record "$mnt/full.wav" >/dev/null \
    2>"$mnt/../err.$$"
rc=$?
err=$(cat "$mnt/../err.$$"); rm -f "$mnt/../err.$$"
check "headless: exit 1, the failure said in one line: $(grep FAILED <<<"$err")" \
    "[ $rc -eq 1 ] && [ \"\$(grep -c 'FAILED\|failed' <<<\"\$err\")\" -eq 1 ] && grep -q 'recording FAILED: .*No space left' <<<\"\$err\""
kept=$(seconds_of "$mnt/full.wav")
check "  and full.wav is a valid WAV of $kept s" "awk -v s='${kept:-0}' 'BEGIN { exit !(s > 1) }'"
exit $fail
