#!/usr/bin/env bash
# The screen never holds up the audio path: SECONDS (16 in the suite) of
# headless play, then as long of the workstation at its full rate (every
# panel redrawn 30 times a second; spectrum for half the time and
# spectrogram for the other), same room, engine and default block (256) on the null device. The
# workstation's run may not have more deadline misses than the headless
# one.
#
# One pair can be spoilt by the machine rather than the screen: CI's 2-core
# machine once stalled a real-time audio thread for 28 ms in one block of
# 11,242 (with 6 xruns), which no local run of this test reproduced. A
# screen that blocks the audio path does it in every run, a stall of the
# machine does not: so a pair with added misses is run once more and the
# test fails only if the second pair shows them too. Both pairs are
# printed, with when each miss happened (miss_at_s, seconds from the start)
# and the xruns and worst block, to be read.
#
#   test_ui_load.sh EARSHOT [SECONDS] [release|sanitized]
# A sanitized build skips (exit 77): it cannot lock its memory, so its
# audio thread takes page faults the product's does not, and two CI runs
# of it showed one added miss per 60 s in both pairs.
set -u
earshot=$(realpath "$1")
seconds=${2:-60}
if [ "${3:-release}" = sanitized ]; then
    echo "SKIP the sanitizer build cannot lock memory; its timing is not the product's"
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
args=(--device null --room concert-hall --engine cpu-partitioned --block 256 --seconds "$seconds")
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }
list() { sed -n "s/.*\"$1\":\(\[[^]]*\]\).*/\1/p" <<<"$2"; }

# run_pair N: headless then the workstation; 0 when the screen added no
# misses and redrew at its rate, 1 when it added misses, 2 when a run failed.
run_pair() {
    local headless ui rate mh mu
    headless=$("$earshot" play "${args[@]}" --headless --json 2>/dev/null)
    echo "pair $1 headless:    $headless"
    rm -f "$tmux_dir/report.json"
    ui_start 80 24 "$earshot" "${args[@]}" --fps 30 --report "$tmux_dir/report.json"
    sleep $((seconds / 2))
    keys v
    if ! wait_for "MODES-SHOWN" $((seconds / 2 + 30)); then
        echo "FAIL the workstation did not finish"; screen; return 2
    fi
    ui=$(cat "$tmux_dir/report.json" 2>/dev/null)
    echo "pair $1 workstation: $ui"
    rate=$(screen | sed -n 's/.*redraws in .* (\([0-9]*\) a second).*/\1/p')
    mh=$(num misses "$headless"); mu=$(num misses "$ui")
    if [ -z "$mh" ] || [ -z "$mu" ] || [ -z "$rate" ]; then
        echo "FAIL a run did not report"; return 2
    fi
    echo "     p99 load: headless $(num load_p99 "$headless"), workstation $(num load_p99 "$ui");" \
         "worst block: $(num load_max "$headless"), $(num load_max "$ui");" \
         "xruns: $(num xruns "$headless"), $(num xruns "$ui");" \
         "misses at: $(list miss_at_s "$headless"), $(list miss_at_s "$ui") s"
    if [ "$rate" -ge 25 ]; then
        echo "ok   the screen redrew $rate times a second"
    else
        echo "FAIL the screen redrew only $rate times a second"; return 2
    fi
    if [ "$mu" -le "$mh" ]; then
        echo "ok   no added misses: $mu with the screen ($(num blocks "$ui") blocks)," \
             "$mh headless ($(num blocks "$headless") blocks)"
        return 0
    fi
    echo "     the screen's run had $mu misses, the headless one $mh"
    return 1
}

run_pair 1
first=$?
[ $first -eq 2 ] && exit 1
[ $first -eq 0 ] && exit 0
echo "     once more, to tell the screen from a stall of the machine"
run_pair 2
second=$?
if [ $second -eq 1 ]; then
    echo "FAIL the screen added misses in both pairs"
fi
[ $second -eq 0 ] && exit 0
exit 1
