#!/usr/bin/env bash
# earshot wisdom, as a user runs it once on a machine:
#   - sizes 64-256 planned at patient rigor into $EARSHOT_WISDOM: a line
#     per size, none held before (-), the file written;
#   - run again: every size held (the pair timed with the kept plan);
#   - an engine then plans from it: a render whose transforms are all in
#     it (partition 64: 128 points) leaves the file as it was, byte for
#     byte, while one whose are not (partition 1024) adds its own;
#   - --json is one JSON object with a record per size;
#   - bad arguments, wisdom off and a file that cannot be written: one
#     line each, exit 2 (1 for the write), the file left as it was.
#   test_wisdom_cmd.sh EARSHOT MAKE_WAV
set -u
. "$(dirname "$0")/cli_lib.sh"
export EARSHOT_WISDOM=$dir/wisdom
"$make_wav" ir.wav decay 48000 1 4800 >/dev/null
"$make_wav" in.wav noise 48000 1 9600 >/dev/null

"$earshot" wisdom --sizes 64-256 >first.txt 2>first.err
rc=$?
rows=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 ":" $3 }' first.txt | paste -sd ' ')
if [ $rc = 0 ] && [ "$rows" = "64:- 128:- 256:-" ] && [ -s wisdom ] && [ ! -s first.err ]; then
    ok "sizes 64-256 at patient rigor: $rows (none held before); $(tail -1 first.txt)"
else
    bad "the first run: exit $rc, rows '$rows': $(cat first.txt first.err)"
fi
cp wisdom kept
"$earshot" wisdom --sizes 64-256 >again.txt 2>&1
rc=$?
held=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 != "-" { n++ } END { print n + 0 }' again.txt)
[ $rc = 0 ] && [ "$held" = 3 ] &&
    ok "again: all 3 sizes held, $(awk '$1 == 128 { print "128 points: " $3 " us a pair with the kept plan, " $4 " now" }' again.txt)" ||
    bad "again: exit $rc, $held held: $(cat again.txt)"

cp wisdom before-render
"$earshot" render --engine cpu-partitioned --block 64 --partition 64 --ir ir.wav in.wav o1.wav \
    >/dev/null 2>r1.err || bad "render at partition 64: $(cat r1.err)"
cmp -s wisdom before-render &&
    ok "a render at partition 64 (128-point transforms) planned from the wisdom: the file unchanged" ||
    bad "a render at partition 64 changed the wisdom: its plans were not taken from it"
"$earshot" render --engine cpu-partitioned --block 1024 --partition 1024 --ir ir.wav in.wav \
    o2.wav >/dev/null 2>r2.err || bad "render at partition 1024: $(cat r2.err)"
cmp -s wisdom before-render &&
    bad "a render at partition 1024 (not planned ahead) left the wisdom as it was: the check above cannot fail" ||
    ok "a render at partition 1024 (2048 points, not planned ahead) added its own plans: the check above can fail"

"$earshot" wisdom --sizes 32-64 --level measure --json >w.json 2>w.err
python3 - w.json <<'PY' && ok "--json: $(head -c 160 w.json)" || bad "--json: $(cat w.json w.err)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["level"] == "measure" and d["written"] is True
assert [s["points"] for s in d["sizes"]] == [32, 64]
assert all(s["now_us"] > 0 for s in d["sizes"])
PY

cp wisdom kept
refused "--level fast" "wisdom: --level 'fast'" -- "$earshot" wisdom --level fast
refused "--sizes 100-200" "powers of two" -- "$earshot" wisdom --sizes 100-200
refused "--sizes 256-64" "the smaller first" -- "$earshot" wisdom --sizes 256-64
refused "--sizes 64-524288" "powers of two from 32 to 131072" -- "$earshot" wisdom --sizes 64-524288
EARSHOT_WISDOM=off refused "EARSHOT_WISDOM=off" "would not be kept" -- "$earshot" wisdom --sizes 64-64
mkdir -p a-folder
EARSHOT_WISDOM=$dir/a-folder refused "a folder as the wisdom file" "a-folder: not a regular file" -- \
    "$earshot" wisdom --sizes 64-64
[ -d a-folder ] && cmp -s wisdom kept && ok "the folder and the wisdom left as they were" ||
    bad "a refused run changed a file"
exit $fail
