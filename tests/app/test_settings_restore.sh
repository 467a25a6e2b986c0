#!/usr/bin/env bash
# Remembered settings as a person meets them, in tmux on the null device,
# each case with a settings folder of its own:
#   - after a restart with B playing, the cursor sits on the room that
#     plays and the panel shows that room's figures (once: concert-hall's);
#   - start-up says each thing once: no "levels unchanged", no "slot B was
#     empty" for a B that was saved, no line twice;
#   - a saved B is restored as B: shown in the A/B panel before it plays,
#     and Tab plays it as it was;
#   - --no-restore neither reads nor writes the file (it was overwritten);
#   - LIM shows only while the limiter acts, and for its 2 s hold (it once
#     stayed lit for minutes after the limiter was off, even after c).
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
export EARSHOT_WISDOM=off

# The T30 `earshot rooms` lists for a room.
t30_of() { "$earshot" rooms | awk -v r="$1" '$1 == r { print $2 }'; }

# settings DIR: a settings folder holding A on vocal-booth, B on stairwell
# at block 512 with cpu-nonuniform, B playing, and levels.
settings() {
    mkdir -p "$1/earshot"
    cat >"$1/earshot/workstation.conf" <<EOF
slot = b
a.room = vocal-booth
a.engine = cpu-partitioned
a.block = 256
b.room = stairwell
b.engine = cpu-nonuniform
b.block = 512
trim = -3.0
wet = -2.0
limiter = -1.0
EOF
}

# 1. The cursor and the panel after a restart.
export XDG_CONFIG_HOME="$tmux_dir/case1"
settings "$XDG_CONFIG_HOME"
ui_start 80 24 "$earshot" --device null
check "B plays stairwell at block 512, as saved" \
    "wait_for 'block 512  latency' 15 && wait_for 'room stairwel' 5"
want=$(t30_of stairwell)
check "the cursor is on the room that plays" "screen | grep -Eq '^> stairwell +playing'"
check "the levels as saved: trim -3, wet -2, the limiter at its default (not said)" \
    "screen | grep -q 'trim -3 wet -2 dry off out +0 dB' && ! screen | grep -q 'LIMIT'"
check "the panel shows that room's T30 ($want s, as earshot rooms lists it)" \
    "wait_for 'T30 $want s' 5"
keys q
quit_check "q" || fail=1

# 2. Each start-up line once; 3. B restored as B. The levels as earshot
# writes them on quit after a start with the defaults.
export XDG_CONFIG_HOME="$tmux_dir/case2"
settings "$XDG_CONFIG_HOME"
sed -i -e 's/^slot = b/slot = a/' -e 's/^trim = .*/trim = 0.0/' -e 's/^wet = .*/wet = 0.0/' \
    -e 's/^limiter = .*/limiter = off\ndry = off\ngain = 0.0/' \
    "$XDG_CONFIG_HOME/earshot/workstation.conf"
ui_start 100 30 "$earshot" --device null
check "A plays vocal-booth" "wait_for 'room vocal-booth |' 15 && wait_for 'block 256  latency' 5"
check "the A/B panel shows the saved B before it plays" \
    "screen | grep -Eq '^ .* B stairwell +512'"
check "the levels as saved" "screen | grep -q 'trim 0 wet 0 dry off out +0 dB '"
keys m
wait_for 'Messages: the last' 5
log=$(screen)
keys Escape
check "no 'levels unchanged' at the start" "! grep -q 'levels unchanged' <<<\"\$log\""
check "no 'slot B was empty' for a saved B" "! grep -q 'was empty' <<<\"\$log\""
dups=$(grep -E '^\| *[0-9]{2}:[0-9]{2}:[0-9]{2} ' <<<"$log" | sed 's/^| *[0-9:]* //' | sort | uniq -d)
check "no start-up line said twice${dups:+: $dups}" "[ -z \"\$dups\" ]"
keys Tab
check "Tab plays B as saved: stairwell, cpu-nonuniform, block 512" \
    "wait_for 'slot B plays: room stairwell, engine cpu-nonuniform, block 512' 15"
check "  and did not call B empty" "! screen | grep -q 'was empty'"
keys q
quit_check "q" || fail=1

# 4. --no-restore neither reads nor writes.
export XDG_CONFIG_HOME="$tmux_dir/case4"
settings "$XDG_CONFIG_HOME"
cp "$XDG_CONFIG_HOME/earshot/workstation.conf" "$tmux_dir/saved.conf"
ui_start 80 24 "$earshot" --device null --no-restore
check "--no-restore: the defaults play (concert-hall, block 256)" \
    "wait_for 'room concert-hall |' 15 && wait_for 'block 256  latency' 5"
keys 3
wait_for 'engine cpu-nonuniform |' 10
keys q
quit_check "q" || fail=1
check "--no-restore left the file as it was" \
    "cmp -s '$tmux_dir/saved.conf' '$XDG_CONFIG_HOME/earshot/workstation.conf'"

# 5. LIM: a ceiling of -24 dBFS turns the test signal down (its peaks are
# near -19); off, the signal passes unlimited, and LIM goes out within its
# hold (2 s) and the limiter's release (under 1 s), and stays out.
# LIM is the mark at the end of an output's level row (the header's LIMIT
# says the limiter is on, acting or not).
lim_shown() { screen | grep -Eq 'out.* LIM *$'; }
export XDG_CONFIG_HOME="$tmux_dir/case5"
ui_start 80 24 "$earshot" --device null --limiter -24
check "the limiter at -24 dBFS acts: LIM on the output's row" \
    "wait_for 'LIMIT' 15 && for _ in \$(seq 50); do lim_shown && break; sleep 0.1; done; lim_shown"
keys L
wait_for 'limiter off' 5
off_at=$(date +%s.%N)
gone=
for _ in $(seq 80); do
    if ! lim_shown; then gone=$(date +%s.%N); break; fi
    sleep 0.1
done
took=$(awk -v a="$off_at" -v b="${gone:-0}" 'BEGIN { printf "%.1f", b - a }')
check "L (off): LIM goes out within 4 s (took ${gone:+$took s})" \
    "[ -n '$gone' ] && awk -v t=$took 'BEGIN { exit !(t < 4) }'"
sleep 3
check "  and stays out 3 s later" "! lim_shown"
keys c
sleep 1
check "  c changes nothing of it" "! lim_shown"
keys q
quit_check "q" || fail=1
exit $fail
