#!/usr/bin/env bash
# Gain staging through `earshot play --headless --commands` on the null
# device, judged by the report's own counts:
#   - a pluck peaking at -2.7 dBFS through the cathedral, with the limiter
#     off (it is on by default, at -1 dBFS), clips, and after `trim -6` it
#     does not;
#   - `trim nan`, `wet 100` and `limiter 5` are refused in one line each,
#     and the levels stay as they were (the report's levels);
#   - each level change is said in dB;
#   - the output 12 dB too loud with the limiter at -1 dBFS: nothing
#     clipped, and the limiter counted what it turned down.
set -u
earshot=$1 make_wav=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# A number (or null) from the one-line JSON report.
num() { sed -n "s/.*\"$1\":\(null\|-\?[0-9.]*\).*/\1/p" <<<"$2"; }

"$make_wav" "$dir/pluck.wav" pluck 48000 1 192000 1 0.733 || { echo "FAIL es_make_wav"; exit 1; }
play() {
    "$earshot" play --device null --room cathedral --input "$dir/pluck.wav" --headless \
        --seconds 4 --json --commands --limiter off "$@"
}

json=$(play </dev/null 2>"$dir/err0")
clipped=$(num clipped "$json")
echo "     defaults: clipped $clipped"
check "a -2.7 dBFS pluck through the cathedral, the limiter off, clips" \
    "[ -n '$clipped' ] && [ '$clipped' -gt 0 ]"

json=$({ echo "trim -6"; sleep 0.5; echo "trim nan"; echo "wet 100"; echo "limiter 5"; } |
       play 2>"$dir/err1")
sed 's/^/    stderr: /' "$dir/err1"
clipped=$(num clipped "$json")
echo "     trim -6: clipped $clipped"
check "after 'trim -6' it does not clip" "[ '$clipped' = 0 ]"
check "the trim is said in dB" "grep -qx 'earshot: trim -6.0 dB' '$dir/err1'"
for bad in "trim 'nan': not a number" "wet '100': out of range" "limiter '5': out of range"; do
    check "'$bad': refused in one line" "[ \$(grep -cF \"$bad\" '$dir/err1') -eq 1 ]"
done
check "no other line but the trim, the refusals, the room and the engines" \
    "[ \$(grep -vc 'room cathedral\\|engines:' '$dir/err1') -eq 4 ]"
check "the levels stay as they were: trim -6, wet 0, dry off, out 0, no limiter" \
    "[ '$(num trim_db "$json")' = -6.00 ] && [ '$(num wet_db "$json")' = 0.00 ] &&
     [ '$(num dry_db "$json")' = null ] && [ '$(num gain_db "$json")' = 0.00 ] &&
     [ '$(num limiter_db "$json")' = null ]"

json=$({ echo "gain 12"; echo "wet -3"; echo "dry off"; } | play --limiter -1 2>"$dir/err2")
sed 's/^/    stderr: /' "$dir/err2"
echo "     +12 dB into the limiter at -1 dBFS: clipped $(num clipped "$json"), limited $(num limited "$json")"
check "the limiter at -1 dBFS: nothing clipped, its reductions counted" \
    "[ '$(num clipped "$json")' = 0 ] && [ '$(num limited "$json")' -gt 0 ]"
check "gain and wet said in dB (dry was off already: unchanged)" \
    "grep -qx 'earshot: gain +12.0 dB' '$dir/err2' && grep -qx 'earshot: wet -3.0 dB' '$dir/err2' &&
     grep -qx 'earshot: levels unchanged' '$dir/err2'"
exit $fail
