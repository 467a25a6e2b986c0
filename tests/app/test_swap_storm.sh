#!/usr/bin/env bash
# 1000 room and engine swaps written into play --headless --commands as
# fast as a pipe takes them, on the null device. Nothing may pile up: the
# preparer drops superseded requests, the processor refuses a swap it could
# not retire (the session tries again), and retired engines are destroyed.
# Threads and resident memory after the storm stay within 10 % of before
# it (after one warm-up round that loads each room and engine once: the
# room cache and FFTW's plans are meant to stay), every engine built is
# destroyed by exit, and LeakSanitizer (the ASan build) finds nothing.
set -u
earshot=$1
build=${2:-release} # "sanitized": ASan keeps freed memory in quarantine
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
field() { sed -n "s/^$1:[[:space:]]*\([0-9]*\).*/\1/p" "/proc/$pid/status"; }
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }

rooms=(vocal-booth living-room classroom stairwell)
engines=(cpu-partitioned cpu-nonuniform cpu-direct)
mkfifo "$dir/in"
"$earshot" play --device null --room vocal-booth --headless --seconds 300 --json --commands \
    <"$dir/in" >"$dir/out.json" 2>"$dir/err" &
pid=$!
exec 3>"$dir/in"
# Warm-up: every room and engine once, slowly.
for r in "${rooms[@]}"; do echo "room $r" >&3; sleep 0.4; done
for e in "${engines[@]}"; do echo "engine $e" >&3; sleep 0.4; done
# ... ending where the storm ends, so that before and after compare like
# with like (cpu-nonuniform has worker threads of its own).
last_room=${rooms[299 % 4]} last_engine=${engines[298 % 3]}
echo "room $last_room" >&3; sleep 0.4; echo "engine $last_engine" >&3
sleep 1.5
threads0=$(field Threads); rss0=$(field VmRSS)
# The storm: 1000 lines at once.
for ((i = 0; i < 1000; i++)); do
    if ((i % 2)); then echo "room ${rooms[i % 4]}"; else echo "engine ${engines[i % 3]}"; fi
done >&3
# Then 300 more at 100 a second: each is built before the next comes, so
# finished engines queue up faster than 50 ms crossfades retire them, and
# the processor's back-pressure (refuse, retry on the next poll) is what
# keeps them.
for ((i = 0; i < 300; i++)); do
    if ((i % 2)); then echo "room ${rooms[i % 4]}"; else echo "engine ${engines[i % 3]}"; fi
    sleep 0.01
done >&3
# The last change asked for, said once it plays.
for ((t = 0; t < 100; t++)); do
    tail -1 "$dir/err" | grep -q "$last_engine\|$last_room" && break
    sleep 0.2
done
sleep 1.5
threads1=$(field Threads); rss1=$(field VmRSS)
echo quit >&3
exec 3>&-
wait "$pid"
rc=$?
pid=
json=$(cat "$dir/out.json")
echo "$json"
grep -c . "$dir/err" | sed 's/^/stderr lines: /'
tail -5 "$dir/err" | sed 's/^/    stderr: /'
echo "threads $threads0 -> $threads1, resident $rss0 -> $rss1 kB"
counts=$(sed -n 's/.*engines: \([0-9]*\) built, \([0-9]*\) destroyed.*/\1 \2/p' "$dir/err")
check "exit 0" "[ $rc -eq 0 ]"
check "the last change plays ($last_room on $last_engine)" \
    "[ '$(sed -n 's/.*\"engine\":\"\([^\"]*\)\".*/\1/p' "$dir/out.json")' = $last_engine ]"
check "threads within 10 % ($threads0 -> $threads1)" \
    "awk -v a=$threads0 -v b=$threads1 'BEGIN { exit !(b <= a * 1.1 && b >= a * 0.9) }'"
if [ "$build" = sanitized ]; then
    echo "skip resident memory ($rss0 -> $rss1 kB): AddressSanitizer holds freed memory in quarantine; LeakSanitizer checks the frees"
else
    check "resident memory within 10 % ($rss0 -> $rss1 kB)" \
        "awk -v a=$rss0 -v b=$rss1 'BEGIN { exit !(b <= a * 1.1) }'"
fi
check "every engine built was destroyed ($counts)" \
    "[ -n '$counts' ] && awk -v c='$counts' 'BEGIN { split(c, x, \" \"); exit !(x[1] == x[2] && x[1] > 0) }'"
check "swaps crossfaded while changes queued up ($(num swaps "$json"))" \
    "[ '$(num swaps "$json")' -ge 20 ]"
check "no sanitizer report" "! grep -q 'Sanitizer' '$dir/err'"
exit $fail
