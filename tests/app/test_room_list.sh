#!/usr/bin/env bash
# The workstation's room list in tmux at 80x24 on the null device, with a
# --rooms folder of 9 rooms (15 with the shipped ones): a "more" mark shows
# the rooms below; End, Home and / search move to rooms off the screen and
# show them; a room added from another terminal while it runs is listed
# within 2 s, with the cursor still on its room; a playing room taken out
# of the library plays on, marked gone, until another is picked; an IR file given with
# --room joins the list marked [file] with its own T30 (the one
# `earshot rooms --show FILE` measures), can be picked again after
# switching away, and o opens another by path. Then the same rescan under
# play --headless --commands: `rescan`, then `room NEW` plays.
set -u
earshot=$(realpath "$1")
make_wav=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
export XDG_DATA_HOME="$tmux_dir/xdg" # no user rooms but these
lib="$tmux_dir/lib"
# T60 = frames / rate: each room decays at its own rate.
for i in 1 2 3 4 5 6 7 8; do
    "$make_wav" "$tmux_dir/r$i.wav" decay 48000 2 $((4800 * i + 4800)) "$i"
    "$earshot" rooms add "$tmux_dir/r$i.wav" --name "room-0$i" --description "test room $i" \
        --to "$lib" >/dev/null || { echo "FAIL rooms add room-0$i"; exit 1; }
done
"$make_wav" "$tmux_dir/z.wav" decay 48000 2 20000 9
"$earshot" rooms add "$tmux_dir/z.wav" --name zinc-plate --description "a metal plate" \
    --to "$lib" >/dev/null
first=$("$earshot" rooms --rooms "$lib" | sed -n 2p | cut -d' ' -f1)

ui_start 80 24 "$earshot" --device null --rooms "$lib" --room concert-hall
wait_for 'T30 ' 10
# The list's rows: from under the panel's title to the room's parameters.
rows() { screen | cut -c1-40 | awk 'NR >= 4 && /^(T30 |measuring|D50 )/ { exit } NR >= 4'; }
check "more rooms below than fit: a 'v N more' mark" "rows | grep -Eq '^  v [0-9]+ more'"
keys End
check "End: the last room, on the screen, with a '^ N more' mark above" \
    "wait_for '> zinc-plate' 2 && rows | grep -q '> zinc-plate' && rows | grep -Eq '^  \\^ [0-9]+ more'"
keys Home
check "Home: the first room ($first), no mark above" \
    "wait_for '> $first' 2 && ! rows | grep -q '\\^ '"
keys / n c - p l
check "/: the prompt at the bottom" "wait_for '/nc-pl_' 2"
keys Enter
check "/ search by part of a name: zinc-plate" "wait_for '> zinc-plate' 2 && ! screen | grep -q '/nc-pl_'"
keys / r o o m - 0 Enter
check "/ search: the first match in the list" "wait_for '> room-01' 2"
keys n n
check "n: the next matches" "wait_for '> room-03' 2"
keys N
check "N: the previous" "wait_for '> room-02' 2"
keys / m e t a l Enter
check "/ search by description" "wait_for '> zinc-plate' 2"
keys / x y z
wait_for '/xyz_' 2
keys Escape
check "Esc closes the prompt at once" "wait_for ' ?:help' 1 && ! screen | grep -q '/xyz_'"
keys / r o o m - 0 5 Enter
wait_for '> room-05' 2

# Another terminal adds a 10th room to the folder: listed within 2 s
# (the manifest is watched), the cursor still on room-05.
"$make_wav" "$tmux_dir/late.wav" decay 48000 2 30000 11
"$earshot" rooms add "$tmux_dir/late.wav" --name late-room --to "$lib" >/dev/null
check "a room added while it runs is said within 2 s" "wait_for 'rooms: 16 (1 new: late-room)' 2"
check "the cursor stays on its room across the rescan" "rows | grep -q '> room-05'"
keys End
check "End: the new room is listed, on the screen" "wait_for '> late-room' 2 && rows | grep -q '> late-room'"
# The room playing leaves the library: it plays on, listed as gone, until
# another is picked.
keys Enter
wait_for 'room late-room |' 5
sed -i '/^\[late-room\]/,$d' "$lib/rooms.txt"
check "a playing room taken out of the library stays listed, marked gone" \
    "wait_for 'rooms: 15 (1 gone: late-room)' 3 && rows | grep -q '> late-room  *gone playing'"
keys Home Enter
check "once another plays, the gone room leaves the list" \
    "wait_for 'room vocal-booth |' 5 && sleep 0.2 && ! rows | grep -q late-room"
keys q
quit_check "q" || fail=1

# An IR file as the room: in the list, marked, with its own parameters.
"$make_wav" "$tmux_dir/plate.wav" decay 48000 2 60000 7
want=$("$earshot" rooms --show "$tmux_dir/plate.wav" --json |
       sed -n 's/.*"broadband":{[^}]*"t30":\([0-9.]*\).*/\1/p')
want=$(printf '%.2f' "$want")
ui_start 80 24 "$earshot" --device null --rooms "$lib" --room "$tmux_dir/plate.wav"
check "--room FILE: listed as a file, playing, under the cursor" \
    "wait_for '> plate.wav        [file] playing' 10"
check "its own T30 ($want s, as rooms --show measures the file)" "wait_for 'T30 $want s' 10"
keys k Enter
check "another room plays" "wait_for 'room zinc-plate |' 5"
keys j Enter
check "the file picked again from the list" \
    "wait_for 'room plate.wav |' 5 && screen | grep -q 'plate.wav        \\[file\\] playing'"
keys o
for c in $(grep -o . <<<"$tmux_dir/r8.wav"); do keys -l "$c"; done
check "o: a prompt for a path" "wait_for 'open IR file: ' 2"
keys Enter
check "o, a path, Enter: the file plays and joins the list" \
    "wait_for 'r8.wav           [file] playing' 5"
keys o / n o / s u c h Enter
check "o with a bad path: the same line as the room command" \
    "wait_for \"no room or file named '/no/such'\" 5"
keys q
quit_check "q (file rooms)" || fail=1

# play --headless --commands: rescan, then the new room plays.
"$make_wav" "$tmux_dir/new.wav" decay 48000 2 12000 12
out=$( { sleep 1; echo rescan; sleep 1
         "$earshot" rooms add "$tmux_dir/new.wav" --name new-room --to "$lib" >/dev/null
         echo rescan; echo room new-room; sleep 2; } |
       "$earshot" play --headless --commands --device null --rooms "$lib" --seconds 5 2>&1)
grep '^earshot:' <<<"$out" | sed 's/^/    /'
check "headless: rescan with nothing new says so" "grep -q 'rooms: 15 (no change)' <<<\"\$out\""
check "headless: rescan finds new-room, and room new-room plays" \
    "grep -q 'rooms: 16 (1 new: new-room)' <<<\"\$out\" && grep -q '^earshot: room new-room\\b' <<<\"\$out\""
exit $fail
