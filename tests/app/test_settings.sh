#!/usr/bin/env bash
# Remembered settings, in a real terminal (tmux) on the null device, with
# XDG_CONFIG_HOME in a temp folder (never the real home): changes made with
# keys (room, engine, slot B's room, block, trim, limiter) are in the file
# after q, written whole (no temp file left), and the next start plays
# them; a damaged file costs one line and its values, never the start; a
# folder that cannot be written costs one line at quit, and exit 0.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
export XDG_CONFIG_HOME="$tmux_dir/xdg"
conf="$XDG_CONFIG_HOME/earshot/workstation.conf"

ui_start 80 24 "$earshot" --device null
check "starts clean with no file" "wait_for 'block 256  latency' 10"
keys k k k k Enter
check "room: vocal-booth" "wait_for 'room vocal-booth |' 5"
keys 3
check "engine: cpu-nonuniform in A" "wait_for 'engine cpu-nonuniform |' 5"
keys Tab
check "Tab: slot B plays" "wait_for 'slot B plays' 8"
keys j Enter
# One down from vocal-booth in the list: living-room.
b_room=living-room
check "B's room: $b_room" "wait_for 'room $b_room |' 5"
keys ']'
check "B's block: 512" "wait_for 'block 512  latency' 8"
keys '>' '>' L
check "trim +2, limiter off (it is on by default)" "wait_for 'trim +2' 5 && wait_for 'NO LIMIT' 5"
sleep 0.5
keys q
quit_check "q" || fail=1
echo "    --- $conf:"; sed 's/^/    | /' "$conf" 2>/dev/null
check "the file is there, with its header line" "head -1 '$conf' | grep -q '^# earshot'"
check "no temp file left beside it" "[ \$(ls '$XDG_CONFIG_HOME/earshot' | wc -l) -eq 1 ]"
check "it holds what was played" \
    "grep -qx 'a.room = vocal-booth' '$conf' && grep -qx 'a.engine = cpu-nonuniform' '$conf' &&
     grep -qx 'b.room = $b_room' '$conf' && grep -qx 'b.block = 512' '$conf' &&
     grep -qx 'a.block = 256' '$conf' && grep -qx 'slot = b' '$conf' &&
     grep -qx 'trim = 2.0' '$conf' && grep -qx 'limiter = off' '$conf'"

ui_start 80 24 "$earshot" --device null
check "restarted: B plays its room at block 512, A holds vocal-booth on cpu-nonuniform" \
    "wait_for 'block 512  latency' 15 &&
     screen | grep -q '>B $(cut -c1-9 <<<"$b_room")' && screen | grep -q ' A vocal-boo'"
check "the levels are back: trim +2, the limiter off" "screen | grep -Eq 'trim \\+?2 .*NO LIMIT'"
check "and said: a restored level that is not the default is never silent" \
    "wait_for 'levels restored from the last session: trim 2.0 dB, limiter off' 5"
keys q
quit_check "q after a restore" || fail=1

ui_start 80 24 "$earshot" --device null --no-restore
check "--no-restore starts clean" "wait_for 'block 256  latency' 10 && ! screen | grep -q 'vocal-booth *playing'"
keys q
quit_check "q after --no-restore" || fail=1

printf '# damaged\ngarbage here\na.block = 7\na.engine = nope\ntrim = nan\nb.room = nowhere\n' >"$conf"
ui_start 80 24 "$earshot" --device null
check "a damaged file: one line naming it and the first problem, the defaults play" \
    "wait_for 'block 256  latency' 10 && wait_for \"settings: line 2: not 'key = value' (and 4 more)\" 5 &&
     [ \$(screen | grep -c 'settings:') -eq 1 ] && ! screen | grep -q ' B concert'"
keys q
quit_check "q after a damaged file" || fail=1

if [ "$(id -u)" != 0 ]; then
    chmod a-w "$XDG_CONFIG_HOME/earshot"
    ui_start 80 24 "$earshot" --device null
    wait_for 'block 256  latency' 10
    keys q
    quit_check "a read-only folder: exit 0 still" || fail=1
    check "one line says the file could not be written" \
        "[ \$(grep -c 'cannot write it' '$tmux_dir/stderr') -eq 1 ]"
    chmod u+w "$XDG_CONFIG_HOME/earshot"
fi
# As root a read-only folder is written anyway: a file where the folder
# should be cannot be, by anyone.
touch "$tmux_dir/notafolder"
XDG_CONFIG_HOME="$tmux_dir/notafolder" ui_start 80 24 "$earshot" --device null
wait_for 'block 256  latency' 10
keys q
quit_check "a config folder that cannot be made: exit 0 still" || fail=1
check "one line says the file could not be written" \
    "[ \$(grep -c 'cannot write it' '$tmux_dir/stderr') -eq 1 ]"
exit $fail
