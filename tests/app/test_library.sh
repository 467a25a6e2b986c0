#!/usr/bin/env bash
# The room library end to end: the shipped rooms are listed with their
# parameters; rooms new/add/import-jconvolver put rooms in the user folder;
# a manifest with bad entries reports each one by name and the rest still
# loads; play and render take rooms by name.
set -u
earshot=$1
make_wav=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export XDG_DATA_HOME=$dir/xdg
user=$XDG_DATA_HOME/earshot/rooms
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# -- the shipped rooms
list=$("$earshot" rooms) || bad "rooms: exit $?"
echo "$list"
for room in vocal-booth living-room classroom stairwell concert-hall cathedral; do
    grep -q "^$room " <<<"$list" || bad "shipped room $room not listed"
done
json=$("$earshot" rooms --json)
[ "$(grep -c '"origin":"shipped"' <<<"$json")" -ge 6 ] && ok "six shipped rooms in --json" ||
    bad "--json: $json"
t30() { sed -n "s/.*\"name\":\"$1\"[^}]*\"t30\":\([0-9.]*\).*/\1/p" <<<"$json"; }
awk -v a="$(t30 vocal-booth)" -v b="$(t30 cathedral)" 'BEGIN { exit !(a < 0.3 && b > 4) }' &&
    ok "T30 from $(t30 vocal-booth) s (vocal-booth) to $(t30 cathedral) s (cathedral)" ||
    bad "T30 range: vocal-booth $(t30 vocal-booth), cathedral $(t30 cathedral)"
show=$("$earshot" rooms --show cathedral) || bad "--show cathedral: exit $?"
grep -q "Stone cathedral" <<<"$show" && grep -q "energy decay" <<<"$show" &&
    ok "--show cathedral: description, bands and plot" || bad "--show cathedral: $show"

# -- rooms new, and a second room by the same name is refused
"$earshot" rooms new my-studio --size 6x4x3 --absorption 0.3 --source 1.5,2,1.5 \
    --listener 4,2,1.2 >/dev/null || bad "rooms new: exit $?"
grep -q '^\[my-studio\]' "$user/rooms.txt" && [ -f "$user/my-studio.wav" ] &&
    ok "rooms new wrote my-studio to the user library" || bad "rooms new: nothing written"
"$earshot" rooms | grep -q "^my-studio " || bad "my-studio not listed"
"$earshot" rooms new my-studio --size 6x4x3 --absorption 0.3 --source 1,1,1 \
    --listener 3,2,1 2>"$dir/err" && bad "a duplicate name was accepted"
grep -q "already a room 'my-studio'" "$dir/err" && ok "duplicate: $(cat "$dir/err")" ||
    bad "duplicate: $(cat "$dir/err")"
"$earshot" rooms new huge --size 5000x3x3 --absorption 0.3 --source 1,1,1 \
    --listener 2,2,1 2>"$dir/err" && bad "an absurd room was accepted"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q "huge.*0.5 to 500 m" "$dir/err" &&
    ok "absurd size: $(cat "$dir/err")" || bad "absurd size: $(cat "$dir/err")"

# -- rooms add: a good file is copied; bad ones are refused with one line
"$make_wav" "$dir/plate.wav" decay 44100 2 44100
"$earshot" rooms add "$dir/plate.wav" --name plate --description "A plate" >/dev/null ||
    bad "rooms add: exit $?"
"$earshot" rooms | grep -q "^plate .* 44.1 " && ok "rooms add: plate listed at 44.1 kHz" ||
    bad "plate not listed"
"$make_wav" "$dir/nan.wav" nan 48000 1
"$make_wav" "$dir/empty.wav" empty 48000 1
"$make_wav" "$dir/text.wav" text
for f in nan empty text; do
    "$earshot" rooms add "$dir/$f.wav" 2>"$dir/err" && bad "rooms add $f.wav accepted"
    [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q "room '$f'" "$dir/err" &&
        ok "add $f: $(cat "$dir/err")" || bad "add $f: $(cat "$dir/err")"
done

# -- import-jconvolver: a 2x2 configuration from two stereo files
"$make_wav" "$dir/left.wav" decay 48000 2 9600 1
"$make_wav" "$dir/right.wav" decay 48000 2 9600 2
cat >"$dir/hall.conf" <<CONF
# a jconvolver setup
/cd $dir
/convolver/new 2 2 256 204800
/input/name  In-L
/impulse/read 1 1 0.5 0 0 0 1 left.wav
/impulse/read 1 2 0.5 10 0 0 2 left.wav
/impulse/read 2 1 0.5 0 100 4800 1 right.wav
/impulse/read 2 2 0.5 0 0 0 2 right.wav
CONF
"$earshot" rooms import-jconvolver "$dir/hall.conf" --name jc-hall >/dev/null ||
    bad "import-jconvolver: exit $?"
grep -A6 '^\[jc-hall\]' "$user/rooms.txt" | grep -q "layout = true-stereo" &&
    ok "import-jconvolver: jc-hall, 2x2 as true stereo" || bad "jc-hall: $(cat "$user/rooms.txt")"
printf '/convolver/new 1 1 256 1000\n/impulse/read 1 3 1 0 0 0 1 left.wav\n' >"$dir/bad.conf"
"$earshot" rooms import-jconvolver "$dir/bad.conf" 2>"$dir/err" && bad "bad.conf accepted"
grep -q "bad.conf:2: .*outside the 1x1" "$dir/err" && ok "bad conf: $(cat "$dir/err")" ||
    bad "bad conf: $(cat "$dir/err")"

# -- a library folder with bad entries: each named, the rest loads
extra=$dir/extra
mkdir -p "$extra"
"$make_wav" "$extra/good.wav" decay 48000 1 24000
"$make_wav" "$extra/nan.wav" nan 48000 1
"$make_wav" "$extra/empty.wav" empty 48000 1
"$make_wav" "$extra/text.wav" text
"$make_wav" "$extra/rate.wav" decay 44100 1 22050
cat >"$extra/rooms.txt" <<MAN
[good]
file = good.wav
description = the one good room
[missing]
file = nowhere.wav
[good]
file = good.wav
[damaged]
file = text.wav
[silent]
file = empty.wav
[nans]
file = nan.wav
[rate]
file = rate.wav
rate = 48000
[loud]
file = good.wav
gain = 400
MAN
out=$("$earshot" rooms --rooms "$extra" 2>"$dir/err")
rc=$?
cat "$dir/err"
[ $rc -ne 0 ] || bad "bad entries gave exit 0"
grep -q "^good " <<<"$out" && ok "the good room still loads" || bad "good room missing"
for want in "room 'missing' left out: file .*nowhere.wav not found" \
    "room 'good' left out: the name is taken" "room 'damaged'" "room 'silent'.*empty" \
    "room 'nans'.*NaN" "room 'rate'.*44100 Hz but the manifest says 48000" \
    "room 'loud': gain '400'"; do
    grep -q "$want" "$dir/err" && ok "reported: $want" || bad "not reported: $want"
done

# -- play and render by room name
# One line at a time, each sent once the one before has played or failed:
# lines that come together supersede each other, and a long room takes a
# while to prepare on a loaded machine.
rm -f "$dir/err"; touch "$dir/err"
said() { # said TEXT: wait up to 20 s for earshot to say TEXT
    for _ in $(seq 200); do grep -q "$1" "$dir/err" && return 0; sleep 0.1; done
    return 1
}
{
    said "room vocal-booth"
    echo "room cathedral"; said "^earshot: room cathedral\b"
    echo "room nowhere"; said "named 'nowhere'"
    echo "room living-room"; said "^earshot: room living-room\b"
    echo quit
} | "$earshot" play --headless --device null --room vocal-booth --seconds 60 --commands \
        >"$dir/play.txt" 2>>"$dir/err"
grep -q "room cathedral" "$dir/err" && grep -q "no room or file named 'nowhere'" "$dir/err" &&
    grep -q "room living-room" "$dir/err" && ok "play: rooms swapped by name" ||
    bad "play: $(cat "$dir/err")"
"$make_wav" "$dir/in.wav" noise 48000 1 4800
"$earshot" render --room concert-hall "$dir/in.wav" "$dir/out.wav" 2>"$dir/err" &&
    grep -q "room concert-hall" "$dir/err" && ok "render --room concert-hall" ||
    bad "render --room: $(cat "$dir/err")"
exit $fail
