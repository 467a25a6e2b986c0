#!/usr/bin/env bash
# A device that dies: the workstation in tmux plays on a JACK dummy server,
# which is killed (-9) while it plays. The screen must say "device lost" in
# its header (before the stream's line, never over it: at 100 and 132
# columns the row reads " device lost  earshot  block 256 ...") and log, the engine line no longer say "playing", nothing the
# dying server or PortAudio print may land on the screen outside the
# message log, a change that would reopen the device is refused in words
# that name the lost device, and q exits within a few seconds with status
# 1 (the run failed, as headless play's does) and the terminal restored.
# First, on the null device, a test hook writes a line on stderr from
# another thread: it must land in the message log and nowhere else.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
command -v jackd >/dev/null || { echo "FAIL: jackd is not installed (scripts/setup --test installs jackd2)"; exit 1; }
. "$here/tmux_lib.sh"
. "$here/jack_lib.sh"
export JACK_DEFAULT_SERVER="earshot-lost-ui-$$" JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
jackd --no-realtime -d dummy -r 48000 -p 256 >"$tmux_dir/jackd.log" 2>&1 &
jack=$!
# A server killed with -9 keeps its place in JACK's table of servers (8
# places on a machine) and its shared memory: starting it again under the
# same name and stopping it cleanly gives both back.
release_server() {
    jackd --no-realtime -d dummy -r 48000 -p 256 >/dev/null 2>&1 &
    local again=$!
    jack_wait $again /dev/null >/dev/null
    kill $again 2>/dev/null; wait $again 2>/dev/null
}
trap 'kill -9 $jack 2>/dev/null; wait $jack 2>/dev/null; release_server; tmux_cleanup' EXIT
jack_wait $jack "$tmux_dir/jackd.log" || exit 1
# Like ui_start (its own settings folder too), but stderr goes to the pane
# as a terminal's would.
ui_start_stderr() { ui_stderr_to_pane=1 ui_start 100 30 "$@"; }

# A line on fd 2 from another thread while the screen is up (the test
# hook): it becomes a message of the log; after q it is not printed again.
EARSHOT_TEST_STDERR=1 ui_start_stderr "$earshot" --device null --room concert-hall
check "a line on stderr lands in the log as the host API's" \
    "wait_for 'host API: earshot test: a line on stderr' 10"
check "and nowhere else on the screen" \
    "[ \$(screen | grep -c 'earshot test: a line on stderr') = 1 ]"
keys C-l
check "Ctrl-L repaints (the screen is still there)" "wait_for 'Engines' 3"
keys q
check "q: exit 0, terminal restored" "quit_check 'q after stderr' >/dev/null"

ui_start_stderr "$earshot" --device jack --room concert-hall
check "plays on JACK" "wait_for '2 A  cpu-partitioned   playing' 10 && screen | head -1 | grep -q JACK"
kill -9 $jack
wait $jack 2>/dev/null
check "the header says device lost" "wait_for ' device lost ' 10 && screen | head -1 | grep -q '^ device lost '"
check "  before the stream's line, not over it: ' device lost  ...  block 256'" \
    "screen | head -1 | grep -Eq '^ device lost +(earshot +)?block 256  latency'"
# Wider (the pane is 100 columns), the row is the flag and the whole line
# after it.
t resize-window -t ui -x 132
check "  at 132 columns too" "sleep 0.5; screen | head -1 | grep -q '^ device lost  earshot  block 256  latency .* > JACK'"
t resize-window -t ui -x 100
sleep 0.5
s=$(screen)
check "the log says why" "grep -q 'device lost: JACK' <<<\"\$s\""
check "the meters are marked stale" "grep -q 'Meters  STALE (device lost)' <<<\"\$s\" && grep -q 'now     -' <<<\"\$s\""
check "the engine is no longer marked playing" \
    "! grep -q 'cpu-partitioned *playing' <<<\"\$s\" && grep -q 'cpu-partitioned *stopped (device lost)' <<<\"\$s\""
# Text from the host API or the server (JACK's and PortAudio's lines) may
# only appear as messages of the log, which start with a clock.
check "no foreign text on the screen" \
    "! grep -E 'Jack|jack_|JackClient|Cannot|ALSA lib|PortAudio' <<<\"\$s\" | grep -vEq '^[0-9:]{8} '"
keys ']'
check "a block change is refused, naming the lost device" \
    "wait_for 'is lost: its stream stopped' 5"
start=$(date +%s.%N)
keys q
# The run failed (its device died): status 1, as headless play's; the
# terminal must be back as it was.
check "q exits, status 1 (the device was lost), terminal restored" \
    "wait_for MODES-SHOWN 15 && screen | grep -q 'EXIT=1' && screen | grep -qx icanon && screen | grep -qx echo"
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "q took ${took} s (under 5)" "awk -v t=$took 'BEGIN { exit !(t < 5) }'"
exit $fail
