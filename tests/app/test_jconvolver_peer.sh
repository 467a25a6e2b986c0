#!/usr/bin/env bash
# earshot against fconvolver on jconvolver's own material: every
# configuration Debian's jconvolver-config-files ships, the stress tests
# included. The package ships few of the IR files its configurations name:
# each missing one is made (decaying noise, as many channels as the lines
# that read it ask for, at the configuration's rate, at most 0.5 s and
# longer than a MAXSIZE under 20,000 frames, so that both cut it), and
# each `/cd` pointed at
# a folder of the test's own. Then, per configuration: `earshot rooms
# import-jconvolver`, `earshot render --ir` of the imported room and
# --layout INxOUT (the matrix as the configuration has it), `earshot render
# --room` of it from the library (prepared as it plays: its tail cut and
# levelled, the level fitted out before the null) and `fconvolver`
# of the same noise (its input padded with MAXSIZE zeros:
# fconvolver 1.1 goes on convolving stale input after the input ends) must
# give the same number of channels and null within earshot's output at
# -120 dB of the peak or better; and so must `earshot render --ir
# FILE.conf`, the configuration read directly, a matrix of any size.
#
# A matrix past 1,024 paths (the three 64 x 64 stress tests: 4,096 paths,
# more than a WAV holds) or mostly without filters comes into the library
# as a matrix room: its filters alone, as NAME.conf and a WAV per input.
# That room is rendered as its file, and the 64 x 64 one with 64 filters
# also played headless from the library (all 64 outputs against the render
# of the recorded input), its peak memory well under what one dense 4,096-
# path matrix of its length would take on its own, and `rooms --show`
# calls it a 64 x 64 matrix of 64 filters.
#
# The sanitizer build (BUILD sanitized), five times slower, judges the
# configurations through render --ir FILE.conf alone; the release build
# does both ways.
#
#   test_jconvolver_peer.sh EARSHOT MAKE_WAV WAV_MATCH PAD_WAV [release|sanitized]
set -u
earshot=$1 make_wav=$2 wav_match=$3 pad_wav=$4 build=${5:-release}
shipped=/usr/share/jconvolver/config-files
command -v fconvolver >/dev/null ||
    { echo "FAIL: fconvolver is not installed (scripts/setup --test installs jconvolver)"; exit 1; }
[ -d "$shipped" ] ||
    { echo "FAIL: $shipped is missing (scripts/setup --test installs jconvolver-config-files)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config" EARSHOT_WISDOM=off
cp -r "$shipped" "$work/c"
fail=0 judged=0 matrix=0 played=0 cut=0 library_street=0

# prepare CONF: its /cd folders the test's own, its missing IR files made
# (jconvolver_lib.sh), at most 0.5 s long.
. "$(dirname "$0")/jconvolver_lib.sh"
prepare() { jconv_prepare "$1" "$work" "$make_wav" short; }

# null WAV WHAT [fit]: judges an earshot render against fconvolver's
# f.wav; with fit, a library room's (levelled: fconvolver's output scaled
# by the least-squares gain first, so that what is judged is the shape:
# the tail cut and the resampling).
null() {
    local result channels worst
    result=$("$wav_match" "$work/f.wav" "$1" 0 ${3:+-1 "$3"} 2>&1)
    channels=$(sed -n 's/.* -> \([0-9]*\) out,.*/\1/p' "$work/render.txt")
    worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$result")
    if [ "${channels:-0}" = "$outs" ] && awk -v w="${worst:-0}" 'BEGIN { exit !(w <= -120) }'; then
        echo "ok   $name: $ins x $outs, $2: $channels outputs, null $worst dB against fconvolver"
    else
        echo "FAIL $name: $ins x $outs, $2: $channels outputs (want $outs): $result"
        fail=1
    fi
}

# play_matrix ROOM: the 64 x 64 room played headless from the library on
# the null device, 64 inputs of noise recorded beside its 64 outputs; the
# output must be the render of the recorded input through the same room
# (prepared as for playing), and the peak memory under what the dense
# matrix alone would take: 4,096 paths of its length as floats.
play_matrix() {
    local seconds peak_kb dense_kb result worst
    "$earshot" play --headless --rooms "$work/lib" --room "$1" --input "$work/in.wav" \
        --seconds 1 --engine cpu-nonuniform --record "$work/p.wav" \
        --record-input "$work/pin.wav" >"$work/play.txt" 2>&1 &&
        "$earshot" render --rooms "$work/lib" --room "$1" "$work/pin.wav" "$work/pr.wav" \
            >/dev/null 2>&1 ||
        { echo "FAIL $name: played from the library: $(tail -3 "$work/play.txt")"; fail=1; return; }
    result=$("$wav_match" "$work/pr.wav" "$work/p.wav" 0 2>&1)
    worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$result")
    seconds=$(sed -n "s/^room .*, \([0-9.]*\) s, .*/\1/p" "$work/import.txt")
    dense_kb=$(awk -v s="$seconds" 'BEGIN { printf "%d", 4096 * s * 48000 * 4 / 1024 }')
    peak_kb=$(/usr/bin/time -f '%M' "$earshot" play --headless --rooms "$work/lib" \
        --room "$1" --input "$work/in.wav" --seconds 0.5 --engine cpu-nonuniform 2>&1 \
        >/dev/null | tail -1)
    shown=$("$earshot" rooms --rooms "$work/lib" --show "$1" 2>&1 | head -1)
    if awk -v w="${worst:-0}" -v p="${peak_kb:-0}" -v d="$dense_kb" \
        'BEGIN { exit !(w <= -120 && p > 0 && p < d) }' &&
        grep -q 'a 64 x 64 matrix of 64 filters' <<<"$shown"; then
        echo "ok   $name: the 64 x 64 matrix room played from the library: its 64 outputs" \
            "null at $worst dB against the render of the recorded input; peak memory" \
            "$peak_kb KB (the dense matrix alone: $dense_kb KB); rooms --show: $shown"
        played=1
    else
        echo "FAIL $name: the 64 x 64 matrix room played: $result; peak $peak_kb KB" \
            "against the dense matrix's $dense_kb KB; rooms --show: $shown"
        fail=1
    fi
}

while read -r conf; do
    name=${conf#"$work/c/"}
    prepare "$conf"
    ins=$(awk '/^\/convolver\/new/ { print $2 }' "$conf")
    outs=$(awk '/^\/convolver\/new/ { print $3 }' "$conf")
    max=$(awk '/^\/convolver\/new/ { print $5 }' "$conf")
    # The input at the files' rate (the octave bands come at 44.1 kHz too).
    rate=48000
    case $name in *-44.conf) rate=44100 ;; esac
    room=r$judged
    "$make_wav" "$work/in.wav" noise "$rate" "$ins" $((rate / 2)) 5 0.5 >/dev/null
    "$pad_wav" "$work/in.wav" "$work/inpad.wav" "$max"
    (cd "$(dirname "$conf")" && fconvolver "$conf" "$work/inpad.wav" "$work/f.wav" >/dev/null 2>&1)
    # The configuration itself, as render --ir reads it: any size. B-format
    # rooms (four outputs W X Y Z) with --decoder none: their SH channels
    # as jconvolver plays them, not decoded to two ears.
    "$earshot" render --decoder none --ir "$conf" "$work/in.wav" "$work/e.wav" >"$work/render.txt" 2>&1
    null "$work/e.wav" "render --ir FILE.conf"
    judged=$((judged + 1))
    [ "$build" = sanitized ] && continue
    # Imported into the library, rendered as its file: a WAV with the
    # configuration's layout, or a matrix room's configuration.
    if ! "$earshot" rooms import-jconvolver "$conf" --to "$work/lib" --name "$room" \
        >"$work/import.txt" 2>&1; then
        echo "FAIL $name: import: $(cat "$work/import.txt")"
        fail=1
        continue
    fi
    grep -q 'cut at MAXSIZE' "$work/import.txt" && cut=$((cut + 1))
    file=$(sed -n "s/^room '$room' added: \(.*\) (.*/\1/p" "$work/import.txt")
    case $file in
        *.conf) matrix=$((matrix + 1)) layout=() how="imported as a matrix room" ;;
        *) layout=(--layout "${ins}x$outs") how="imported" ;;
    esac
    "$earshot" render --ir "$file" "${layout[@]}" "$work/in.wav" "$work/e.wav" \
        >"$work/render.txt" 2>&1
    null "$work/e.wav" "$how"
    # From the library, prepared as it plays (its tail cut, levelled):
    # nothing the preparation changes is over -120 dB, on the package's
    # recorded IRs (street2-L/R, EYCv2) as on made ones.
    "$earshot" render --decoder none --rooms "$work/lib" --room "$room" "$work/in.wav" "$work/e.wav" \
        >"$work/render.txt" 2>&1
    null "$work/e.wav" "$how, rendered from the library" fit
    [ "$name" = demo-reverbs/street.conf ] && library_street=1
    [ "$name" = stresstest/stress3.conf ] && play_matrix "$room"
done < <(find "$work/c" -name '*.conf' | sort)
echo "$judged configurations judged; $matrix imported as matrix rooms; $cut cut at MAXSIZE (said at import)"
[ "$matrix" -ge 3 ] || [ "$build" = sanitized ] ||
    { echo "FAIL: fewer than the three 64 x 64 stress tests imported as matrix rooms"; fail=1; }
[ "$played" = 1 ] || [ "$build" = sanitized ] ||
    { echo "FAIL: the 64 x 64 matrix room was not played"; fail=1; }
[ "$cut" -ge 1 ] || [ "$build" = sanitized ] ||
    { echo "FAIL: no configuration's data was cut at MAXSIZE and said"; fail=1; }
[ "$judged" -ge 37 ] || { echo "FAIL: fewer than the 37 shipped configurations judged"; fail=1; }
[ "$library_street" = 1 ] || [ "$build" = sanitized ] ||
    { echo "FAIL: the street room (the package's recorded IRs) was not judged from the library"; fail=1; }
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
