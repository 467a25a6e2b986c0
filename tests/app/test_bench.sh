#!/usr/bin/env bash
# earshot bench prints its table for both CPU engines, JSON on request, and
# --find-max finds some IR length; --plot draws what it measured;
# timings themselves are not judged here.
set -u
earshot=$1
fail=0
table=$("$earshot" bench --engine all --ir-seconds 0.05,0.1 --block 64,256 --seconds 0.2) ||
    { echo "FAIL: bench exited $?"; fail=1; }
echo "$table"
for e in cpu-direct cpu-partitioned; do
    [ "$(grep -c "^$e " <<<"$table")" -eq 4 ] || { echo "FAIL: $e should have 4 rows"; fail=1; }
done
grep -q "p99 us" <<<"$table" || { echo "FAIL: no header"; fail=1; }
json=$("$earshot" bench --engine cpu-partitioned --ir-seconds 0.1 --block 128 --seconds 0.2 --json)
echo "$json"
grep -q '"engine":"cpu-partitioned".*"p99_us":[0-9.]*.*"misses":[0-9]*' <<<"$json" ||
    { echo "FAIL: JSON row missing fields"; fail=1; }
max=$("$earshot" bench --engine cpu-direct --block 256 --seconds 0.1 --find-max --max-wall 5)
echo "$max"
grep -q "longest IR with zero misses" <<<"$max" || { echo "FAIL: --find-max printed no result"; fail=1; }
"$earshot" bench --engine nonesuch 2>/dev/null && { echo "FAIL: unknown engine accepted"; fail=1; }
# --matrix N: N x N paths, every one a filter; out-of-range and non-numeric
# values are refused in one line naming the option.
json=$("$earshot" bench --engine cpu-partitioned --matrix 3 --ir-seconds 0.05 --block 128 --seconds 0.1 --json)
grep -q '"paths":9' <<<"$json" || { echo "FAIL: --matrix 3 is not 9 paths: $json"; fail=1; }
json=$("$earshot" bench --engine cpu-partitioned --matrix 3x2 --ir-seconds 0.05 --block 128 --seconds 0.1 --json)
grep -q '"paths":6' <<<"$json" || { echo "FAIL: --matrix 3x2 is not 6 paths: $json"; fail=1; }
# --find-max-paths: the most outputs of --matrix's inputs at zero misses.
# Two searches: each ends bracketed (a size that held, one within 2 % that
# missed), then their spread; with --search-wall, a search ends when out
# of time and says so.
max=$("$earshot" bench --engine cpu-partitioned --matrix 2 --ir-seconds 0.01 --block 256 --seconds 0.05 --find-max-paths --search-runs 2 --json 2>/dev/null)
python3 - "$max" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
runs, spread = rows[:-1], rows[-1]
ok = len(runs) == 2 and [r["run"] for r in runs] == [1, 2]
for r in runs:
    g, b = r["max_outputs"], r["failed_outputs"]
    ok &= r["inputs"] == 2 and g >= 1 and r["max_paths"] == 2 * g and not r["out_of_time"]
    ok &= g < b <= g + max(1, g // 50) and r["trials"] >= 3 and r["p99_us"] > 0
answers = sorted(r["max_outputs"] for r in runs)
ok &= spread["runs"] == 2 and spread["max_outputs_min"] == answers[0] \
      and spread["max_outputs_max"] == answers[1]
if not ok:
    print("FAIL: --find-max-paths --search-runs 2:", sys.argv[1])
sys.exit(0 if ok else 1)
PY
max=$("$earshot" bench --engine cpu-partitioned --matrix 2 --ir-seconds 0.01 --block 256 --seconds 0.05 --find-max-paths --search-wall 0.001 --json 2>/dev/null)
grep -q '"out_of_time":true' <<<"$max" ||
    { echo "FAIL: --search-wall did not end the search: $max"; fail=1; }
# The search's own options refuse what is no count or time, in one line.
for bad in "--search-runs 0" "--search-runs 65" "--search-runs nan" "--search-wall -1" \
    "--search-wall nan" "--search-wall 1e99" $'--search-wall 3\x01'; do
    err=$("$earshot" bench --engine cpu-partitioned --matrix 2 --ir-seconds 0.01 --seconds 0.05 \
        --find-max-paths ${bad% *} "${bad#* }" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -q -- "${bad% *}" <<<"$err"; then
        echo "FAIL: ${bad% *} '${bad#* }' gave exit $rc: $err"; fail=1
    fi
done
"$earshot" bench --engine cpu-partitioned --find-max-paths --seconds 0.1 2>/dev/null &&
    { echo "FAIL: --find-max-paths without --matrix accepted"; fail=1; }
for bad in 0 257 0x2 2x0 3x nan 1e9 '' $'3\x01' "$(printf '9%.0s' $(seq 300))"; do
    err=$("$earshot" bench --engine cpu-partitioned --matrix "$bad" --seconds 0.1 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -q -- "--matrix\|matrix" <<<"$err"; then
        echo "FAIL: --matrix '${bad:0:20}' gave exit $rc: $err"; fail=1
    fi
done

# --plot: a row per point, and an SVG whose points carry the rows' numbers
# (each mean point's title), the real-time line in both panels, other
# programs' points with their labels made safe; bad input one line, exit 2,
# before any sweep.
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '# a comment\nir 0.02 3.5 fconvolver <b>&"x"\npaths 2 0.5 ffmpeg \033[31mred\n' >"$d/points"
rows=$("$earshot" bench --plot "$d/p.svg" --plot-points "$d/points" --engine cpu-direct,cpu-partitioned \
    --ir-seconds 0.01,0.02,0.05 --channels 1,2 --block 128 --seconds 0.05 2>"$d/err") ||
    { echo "FAIL: --plot exited $?: $(cat "$d/err")"; fail=1; }
echo "$rows"
[ "$(grep -c ' load .* p99 ' <<<"$rows")" -eq 10 ] || { echo "FAIL: --plot should print 10 rows"; fail=1; }
svg=$(cat "$d/p.svg" 2>/dev/null)
[ "$(grep -c '<circle.*<title>' <<<"$svg")" -eq 10 ] || { echo "FAIL: the SVG should have 10 points"; fail=1; }
[ "$(grep -o 'real time' <<<"$svg" | wc -l)" -eq 2 ] || { echo "FAIL: a real-time line per panel"; fail=1; }
grep -q '</svg>' <<<"$svg" || { echo "FAIL: the SVG is not whole"; fail=1; }
# Every point's title against its row: the same engine, axis, x and load.
while IFS= read -r title; do
    grep -qF "<title>$title</title>" <<<"$svg" || { echo "FAIL: no point for the row '$title'"; fail=1; }
done < <(awk '/ load .* p99 / { match($0, /misses [0-9]+/); m = substr($0, RSTART, RLENGTH)
                                 if ($2 == "ir") printf "%s ir s %g: load %s %%, %s\n", $1, $4, $6, m
                                 else printf "%s paths %g: load %s %%, %s\n", $1, $3, $5, m }' <<<"$rows")
grep -qF 'fconvolver &lt;b&gt;&amp;&quot;x&quot;' <<<"$svg" || { echo "FAIL: a label's XML is not escaped"; fail=1; }
grep -q $'\033' "$d/p.svg" && { echo "FAIL: a raw ESC in the SVG"; fail=1; }
grep -qF 'ffmpeg ?[31mred' <<<"$svg" || { echo "FAIL: the ESC of a label is not shown as ?"; fail=1; }
for bad in "ir 0 1 zero" "ir 1 1" "volume 1 1 x" "ir 1 -3 negative" "ir nan 1 x" "ir 1e999 1 huge" \
    "ir 1 1 $(printf 'x%.0s' $(seq 300))"; do
    printf '%s\n' "$bad" >"$d/bad"
    rm -f "$d/q.svg"
    out=$("$earshot" bench --plot "$d/q.svg" --plot-points "$d/bad" --engine cpu-direct --seconds 0.05 2>"$d/err")
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$d/err")" -ne 1 ] || ! grep -q "$d/bad:1" "$d/err" || [ -n "$out" ] ||
        [ -e "$d/q.svg" ]; then
        echo "FAIL: points line '$bad': exit $rc, $(cat "$d/err")"; fail=1
    fi
done
for args in "--plot $d/none/p.svg" "--plot $d" "--plot-points $d/points" "--plot $d/q.svg --json" \
    "--plot $d/q.svg --block 64,128" "--plot $d/q.svg --plot-points /dev/zero"; do
    out=$("$earshot" bench $args --engine cpu-direct --seconds 0.05 2>"$d/err")
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$d/err")" -ne 1 ] || [ -n "$out" ]; then
        echo "FAIL: bench $args: exit $rc, $(cat "$d/err")"; fail=1
    fi
done
# A FIFO is written into, not replaced.
mkfifo "$d/fifo"
# (The reader is bounded: one whose writer never came waits in open().)
timeout 30 cat "$d/fifo" >"$d/from-fifo" &
reader=$!
"$earshot" bench --plot "$d/fifo" --engine cpu-direct --ir-seconds 0.01,0.02 --channels 1,2 \
    --seconds 0.05 >/dev/null 2>&1 || { echo "FAIL: --plot into a FIFO"; fail=1; kill $reader; }
wait $reader
[ -p "$d/fifo" ] && grep -q '</svg>' "$d/from-fifo" || { echo "FAIL: the FIFO was replaced or got no SVG"; fail=1; }
# --sets: one engine over 4 filter sets, a switch every 2 blocks; an engine
# that cannot switch sets says so in one line.
"$earshot" bench --engine cpu-partitioned --fan-out 2 --ir-seconds 0.1 --block 64 --sets 4 \
    --switch-every 2 --seconds 0.5 --json >"$d/sets.json" 2>"$d/sets.err"
python3 - "$d/sets.json" <<'PY' || { echo "FAIL: bench --sets: $(cat "$d/sets.json" "$d/sets.err")"; fail=1; }
import json, sys
r = json.loads(open(sys.argv[1]).readline())
blocks = r["blocks"] + 16  # and the warm-up's
assert r["sets"] == 4 and blocks // 2 - 2 <= r["set_switches"] <= blocks // 2 + 1, r
PY
out=$("$earshot" bench --engine cpu-direct --fan-out 2 --ir-seconds 0.1 --sets 4 --seconds 0.2 2>&1)
grep -q "cpu-direct does not switch filter sets" <<<"$out" ||
    { echo "FAIL: bench --sets on cpu-direct: $out"; fail=1; }
# Split, every engine plays the sets: the heads on cpu-partitioned.
out=$("$earshot" bench --engine cpu-direct --fan-out 2 --ir-seconds 0.1 --sets 4 --split 20 \
    --seconds 0.2 --json 2>&1)
python3 - "$out" <<'PY' || { echo "FAIL: bench --sets --split on cpu-direct: $out"; fail=1; }
import json, sys
r = json.loads(sys.argv[1].splitlines()[-1])
assert r["engine"] == "cpu-direct" and r["sets"] == 4 and r["split_ms"] == 20, r
assert r["set_switches"] > 0, r
PY
exit $fail
