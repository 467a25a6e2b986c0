#!/usr/bin/env bash
# A sound server that stops answering while `earshot latency` has its
# click out: a JACK dummy server is stopped (SIGSTOP) a second after the
# measurement starts. earshot must end by itself, well within 30 s, with
# exit status 1 and one line saying the device was lost (or that no round
# trip came), never wait for good. The server is let go after.
#   test_latency_stall.sh EARSHOT
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/jack_lib.sh"
jack_test_begin earshot-stall
# A stopped server takes no SIGTERM until it goes on: let it go first.
trap 'kill -CONT $jack 2>/dev/null; kill $jack 2>/dev/null; wait $jack 2>/dev/null; rm -rf "$dir"' EXIT
start=$(date +%s%N)
timeout 60 "$earshot" latency --device jack --block 256 --wait 0.7 >"$dir/out" 2>"$dir/err" &
pid=$!
sleep 1.2
kill -STOP $jack
wait $pid
rc=$?
took=$((($(date +%s%N) - start) / 1000000))
kill -CONT $jack
fail=0
lines=$(grep -c . "$dir/err")
if [ $rc = 1 ] && [ $took -lt 30000 ] && grep -qE "device was lost|no round trip within" "$dir/err"; then
    echo "ok   the server stopped with the click out: exit 1 after $took ms: $(grep -E 'latency: ' "$dir/err" | head -1)"
else
    echo "FAIL the server stopped with the click out: exit $rc after $took ms ($lines lines): $(cat "$dir/err")"
    fail=1
fi
exit $fail
