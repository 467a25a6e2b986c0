#!/usr/bin/env bash
# A blind listening test: test_listening.py drives `earshot test` headless
# over OSC (scripted subjects, scipy's p-values, kill -9); then the same plan
# on the workstation in tmux at 80 x 24: during a trial the screen names no
# room, engine or slot and shows no meter; keys hear and answer; the answer
# is in the CSV at once.
#   test_listening.sh EARSHOT MAKE_WAV DOCS_EXAMPLES
set -u
earshot=$(realpath "$1") make_wav=$(realpath "$2") examples=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 -c "import scipy" 2>/dev/null || { echo "SKIP python3-scipy is missing (scripts/setup --test)"; exit 77; }
dir=$(mktemp -d)
trap 'tmux_cleanup; rm -rf "$dir"' EXIT
export XDG_DATA_HOME=$dir/xdg XDG_CONFIG_HOME=$dir/config XDG_CACHE_HOME=$dir/cache EARSHOT_WISDOM=off
. "$here/tmux_lib.sh"
fail=0
/usr/bin/python3 "$here/test_listening.py" "$earshot" "$make_wav" "$examples" "$dir" || fail=1

# The workstation: blind while a trial runs.
ui_start 80 24 "$earshot" test "$dir/plan.txt" --device null --answers "$dir/screen" --seed 5
check "the first trial is ready" "wait_for 'Hearing A: switch' 20"
check "80 x 24: no room, engine, slot or meter on the screen during a trial" \
    "! screen | grep -Eiq 'classroom|living-room|cpu-|cuda-|slot|miss|load|latency|dB'"
check "the trial's question and labels are there" "screen | grep -q 'Trial 1 of 30' && screen | grep -q '\[ A \]'"
kind=$(screen | grep -o 'ABX\|A/B preference\|same or different' | head -1)
case $kind in
    ABX) keys b x; heard=X answer=A ;;
    "A/B preference") keys b; heard=B answer=B ;;
    *) keys 2; heard=2 answer=S ;;
esac
check "keys hear a label: 'Hearing $heard'" "wait_for 'Hearing $heard' 5"
keys "$answer"
check "an answer moves to the next trial" "wait_for 'answered 1 of 30' 10"
check "the answer is in the CSV at once" "[ \$(wc -l <'$dir/screen.csv') = 2 ]"
keys q
quit_check "q" >/dev/null || check "q quits cleanly" "false"
exit $fail
