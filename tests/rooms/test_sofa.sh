#!/usr/bin/env bash
# Makes the SOFA files test_sofa reads (make_sofa.py, netCDF4), and the
# damaged ones, then runs it on them and on Debian's MIT KEMAR set; with
# EARSHOT, `earshot rooms --show` on them as a person reads a set:
#   - KEMAR: its convention and 710 source directions in the first line, a
#     row per direction, the one at azimuth 90 (left) with ILD over +10 dB
#     and ITD +0.6 to +0.8 ms, and the same as one JSON object;
#   - the room set: 4 head orientations;
#   - a FIFO named x.sofa: one line, exit 1, within 5 s (no blocking open);
#   - libmysofa-loops.sofa, a damaged file on which libmysofa 1.3 loops for
#     ever (found by the fuzz target): one line, exit 1, within the reader's
#     10 s and a margin, and no reader process left behind;
#   - the library: `rooms add` keeps the room set as it is (byte for byte),
#     `rooms` lists it with its convention and orientations, `rooms --show
#     NAME` gives its rows, a damaged set is refused with nothing added,
#     and `play --room NAME` plays it by head orientation (head 90: the
#     second of four yaws);
#   - KEMAR playing follows three axes: `head 90 0 90` (yaw, then roll)
#     puts the source ahead overhead.
#   test_sofa.sh TEST_SOFA [EARSHOT]
set -u
kemar=/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa
make=$(dirname "$0")/make_sofa.py
[ -r "$kemar" ] || { echo "SKIP $kemar is missing (package libmysofa1)"; exit 77; }
/usr/bin/python3 -c 'import netCDF4' 2>/dev/null ||
    { echo "SKIP python3-netcdf4 is missing (scripts/setup --test installs it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$make" "$dir/srir.sofa" SingleRoomSRIR 4 2 1 64 48000 10 17 &&
    /usr/bin/python3 "$make" "$dir/brir.sofa" MultiSpeakerBRIR 3 2 5 32 48000 10 17 &&
    /usr/bin/python3 "$make" "$dir/unknown.sofa" FreeFieldDirectivityTF 2 2 1 32 48000 0 0 &&
    /usr/bin/python3 "$make" "$dir/negative.sofa" SingleRoomSRIR 2 2 1 32 48000 -3 0 &&
    /usr/bin/python3 "$make" "$dir/nan.sofa" SingleRoomSRIR 2 2 1 32 48000 0 0 nan ||
    { echo "FAIL make_sofa.py could not write the test's files"; exit 1; }
head -c 3000 "$kemar" >"$dir/cut.sofa"
echo "not a SOFA file" >"$dir/text.sofa"
mkdir "$dir/folder.sofa"
mkfifo "$dir/fifo.sofa"
"$1" "$kemar" "$dir"
fail=$?
[ $# -ge 2 ] || exit $fail
earshot=$2
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
"$earshot" rooms --show "$kemar" >"$dir/show.txt" 2>"$dir/show.err"
rc=$?
row=$(awk '$2 == "90.0" && $3 == "0.0"' "$dir/show.txt" | head -1)
ild=$(awk '{ print $(NF - 1) }' <<<"$row") itd=$(awk '{ print $NF }' <<<"$row")
if [ $rc = 0 ] && head -1 "$dir/show.txt" | grep -q "SOFA SimpleFreeFieldHRIR, 710 source directions" &&
    [ "$(grep -cE '^ +[0-9]+ +-?[0-9.]+ +-?[0-9.]+ ' "$dir/show.txt")" = 710 ] &&
    awk -v l="$ild" -v t="$itd" 'BEGIN { exit !(l > 10 && t > 0.6 && t < 0.8) }'; then
    ok "rooms --show KEMAR: $(head -1 "$dir/show.txt" | sed "s|$kemar|KEMAR|"); azimuth 90: ILD $ild dB, ITD $itd ms"
else
    bad "rooms --show KEMAR: exit $rc, row '$row': $(head -3 "$dir/show.txt") $(cat "$dir/show.err")"
fi
"$earshot" rooms --show "$kemar" --json >"$dir/show.json" 2>&1
/usr/bin/python3 - "$dir/show.json" <<'PY' && ok "rooms --show KEMAR --json: 710 poses, ILD and ITD each" ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["convention"] == "SimpleFreeFieldHRIR" and d["varies"] == "source"
assert len(d["poses"]) == 710 and all("ild_db" in p and "itd_ms" in p for p in d["poses"])
PY
    bad "rooms --show KEMAR --json: $(head -c 300 "$dir/show.json")"
"$earshot" rooms --show "$dir/srir.sofa" >"$dir/srir.txt" 2>&1 &&
    grep -q "SOFA SingleRoomSRIR, 4 head orientations" "$dir/srir.txt" &&
    ok "rooms --show a room set: $(head -1 "$dir/srir.txt" | sed "s|$dir/||")" ||
    bad "rooms --show a room set: $(cat "$dir/srir.txt")"
mkfifo "$dir/x.sofa"
timeout 5 "$earshot" rooms --show "$dir/x.sofa" >/dev/null 2>"$dir/fifo.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$dir/fifo.err")" = 1 ] && grep -q "not a regular file" "$dir/fifo.err" &&
    ok "rooms --show a FIFO named x.sofa: $(cat "$dir/fifo.err")" ||
    bad "rooms --show a FIFO: exit $rc: $(cat "$dir/fifo.err")"
loops=$(dirname "$0")/libmysofa-loops.sofa
t0=$(date +%s%N)
timeout 30 "$earshot" rooms --show "$loops" >/dev/null 2>"$dir/loops.err"
rc=$? took=$((($(date +%s%N) - t0) / 1000000))
sleep 0.2
left=$(pgrep -f "rooms --show $loops" | wc -l)
[ $rc = 1 ] && [ "$(wc -l <"$dir/loops.err")" = 1 ] && grep -q "not read within 10 s" "$dir/loops.err" &&
    [ $took -lt 20000 ] && [ "$left" = 0 ] &&
    ok "rooms --show a file libmysofa loops on: $took ms: $(sed "s|$loops|FILE|" "$dir/loops.err")" ||
    bad "rooms --show a file libmysofa loops on: exit $rc after $took ms, $left left running: $(cat "$dir/loops.err")"
lib=$dir/library
mkdir "$lib"
"$earshot" rooms add "$dir/srir.sofa" --name turning --description "four yaws" --to "$lib" \
    >"$dir/add.txt" 2>&1 && cmp -s "$dir/srir.sofa" "$lib/turning.sofa" &&
    grep -q "SOFA SingleRoomSRIR, 4 head orientations" "$dir/add.txt" &&
    ok "rooms add a SOFA set: $(sed "s|$dir/||g" "$dir/add.txt"), the file kept byte for byte" ||
    bad "rooms add a SOFA set: $(cat "$dir/add.txt")"
cp "$lib/rooms.txt" "$dir/manifest-before"
"$earshot" rooms add "$dir/nan.sofa" --name broken --to "$lib" >/dev/null 2>"$dir/add-bad.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$dir/add-bad.err")" = 1 ] && cmp -s "$dir/manifest-before" "$lib/rooms.txt" &&
    [ ! -e "$lib/broken.sofa" ] &&
    ok "rooms add a damaged set: refused in one line, nothing added: $(sed "s|$dir/||g" "$dir/add-bad.err")" ||
    bad "rooms add a damaged set: exit $rc: $(cat "$dir/add-bad.err")"
"$earshot" rooms --rooms "$lib" >"$dir/list.txt" 2>&1
"$earshot" rooms --rooms "$lib" --show turning >"$dir/show-name.txt" 2>&1
grep -E "^turning +.* four yaws" "$dir/list.txt" >/dev/null &&
    grep -q "SOFA SingleRoomSRIR, 4 head orientations" "$dir/show-name.txt" &&
    [ "$(grep -cE '^ +[0-9]+ +-?[0-9.]+ +-?[0-9.]+ ' "$dir/show-name.txt")" = 4 ] &&
    ok "rooms lists it ($(grep -E '^turning ' "$dir/list.txt" | tr -s ' ')), --show NAME gives its 4 rows" ||
    bad "rooms with a SOFA room: $(grep turning "$dir/list.txt"; head -3 "$dir/show-name.txt")"
{ sleep 1.5; echo "head 90"; sleep 1; } | timeout 30 "$earshot" play --rooms "$lib" --room turning \
    --device null --headless --commands --seconds 3 >"$dir/play.txt" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "head: yaw 90.0, pitch 0.0, roll 0.0: set 2 of 4" "$dir/play.txt" &&
    grep -qE "head +yaw 90.0 .*1 switches" "$dir/play.txt" &&
    ok "play --room turning follows the head: $(grep -o 'set 2 of 4[^;]*' "$dir/play.txt" | head -1)" ||
    bad "play --room turning: exit $rc: $(grep -E 'head|earshot:|ERROR' "$dir/play.txt")"
# Three axes while playing: KEMAR's source ahead, the head turned by yaw 90
# and then rolled 90 (right ear down), is overhead (es_sofa_head_direction).
{ sleep 1.5; echo "head 90 0 90"; sleep 1; } | timeout 30 "$earshot" play --room "$kemar" \
    --device null --headless --commands --seconds 3 >"$dir/roll.txt" 2>&1
rc=$?
said=$(grep -o 'head: yaw 90.0, pitch 0.0, roll 90.0: set [0-9]* of 710 ([^)]*)' "$dir/roll.txt" | head -1)
[ $rc = 0 ] && grep -q 'elevation 90.0)$' <<<"$said" &&
    ok "KEMAR playing, yaw 90 then roll 90: the source overhead ($said)" ||
    bad "KEMAR, head 90 0 90: exit $rc: $(grep -E 'head|earshot:|ERROR' "$dir/roll.txt")"
exit $fail
