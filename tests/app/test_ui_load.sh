#!/usr/bin/env bash
# The screen never holds up the audio path: 60 s of headless play, then 60 s
# of the workstation at its full rate (every panel redrawn 30 times a
# second; spectrum for half the time and spectrogram for the other), same
# room, engine and default block (256) on the null device. The
# workstation's run may not have more deadline misses than the headless
# one. xruns and the worst block are printed for both, to be read.
# (Redrawing 1000 times a second, 33 times the usual rate, once showed one
# block of 1.4 budgets in 11,246 on a 2-core CI machine: see the README.)
set -u
earshot=$(realpath "$1")
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
args=(--device null --room concert-hall --engine cpu-partitioned --block 256 --seconds "$seconds")
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }

headless=$("$earshot" play "${args[@]}" --headless --json 2>/dev/null)
echo "headless:    $headless"

ui_start 80 24 "$earshot" "${args[@]}" --fps 30 --report "$tmux_dir/report.json"
sleep $((seconds / 2))
keys v
if ! wait_for "MODES-SHOWN" $((seconds / 2 + 30)); then
    echo "FAIL the workstation did not finish"; screen; exit 1
fi
ui=$(cat "$tmux_dir/report.json" 2>/dev/null)
echo "workstation: $ui"
rate=$(screen | sed -n 's/.*redraws in .* (\([0-9]*\) a second).*/\1/p')
echo "workstation redraws: $rate a second"
fail=0
mh=$(num misses "$headless"); mu=$(num misses "$ui")
bh=$(num blocks "$headless"); bu=$(num blocks "$ui")
if [ -z "$mh" ] || [ -z "$mu" ] || [ -z "$rate" ]; then
    echo "FAIL a run did not report"; exit 1
fi
if [ "$mu" -le "$mh" ]; then
    echo "ok   no added misses: $mu with the screen ($bu blocks), $mh headless ($bh blocks)"
else
    echo "FAIL the screen added misses: $mu with it, $mh headless"; fail=1
fi
if [ "$rate" -ge 25 ]; then
    echo "ok   the screen redrew $rate times a second"
else
    echo "FAIL the screen redrew only $rate times a second"; fail=1
fi
echo "     p99 load: headless $(num load_p99 "$headless"), workstation $(num load_p99 "$ui");" \
     "worst block: $(num load_max "$headless"), $(num load_max "$ui");" \
     "xruns: $(num xruns "$headless"), $(num xruns "$ui")"
exit $fail
