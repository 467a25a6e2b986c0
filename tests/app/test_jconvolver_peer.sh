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
# --layout INxOUT (the matrix as the configuration has it) and `fconvolver`
# of the same noise (its input padded with MAXSIZE zeros:
# fconvolver 1.1 goes on convolving stale input after the input ends) must
# give the same number of channels and null within earshot's output at
# -120 dB of the peak or better; and so must `earshot render --ir
# FILE.conf`, the configuration read directly, a matrix of any size.
#
# The three 64 x 64 stress tests (4,096 paths) are judged through render
# --ir FILE.conf only: the library stores a room as one WAV, and
# libsndfile writes none past 1,024 channels (listed).
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
fail=0 judged=0 listed=0 cut=0

# The folder a `/cd X` of the shipped configurations now means: one of the
# test's own for each X.
cd_for() {
    local d="$work/cd/$(tr '/' '_' <<<"$1")"
    mkdir -p "$d"
    echo "$d"
}

# Rewrites CONF's /cd lines in place and makes the IR files it reads that
# are not there.
prepare() {
    local conf=$1 dir here file chan max line
    here=$(dirname "$conf")
    dir=$here
    : >"$work/reads"
    while read -r line; do
        set -- $line
        case $1 in
            /cd) dir=$(cd_for "$2") ;;
            /impulse/read) echo "$dir/$9 $8" >>"$work/reads" ;;
        esac
    done < <(grep -E '^/(cd|impulse/read)' "$conf")
    local from to
    while read -r from; do
        to=$(cd_for "$from")
        sed -i "s|^/cd[[:space:]]\+$from[[:space:]]*$|/cd $to|" "$conf"
    done < <(awk '/^\/cd/ { print $2 }' "$conf" | sort -u)
    # Longer than a short MAXSIZE, so that both cut it; at most 0.5 s.
    max=$(awk '/^\/convolver\/new/ { print $5 }' "$conf")
    if [ "$max" -le 20000 ]; then max=$((max + 2000)); else max=24000; fi
    local rate=48000
    case $conf in *-44.conf) rate=44100 ;; esac
    sort -u "$work/reads" | awk '{ if ($2 > c[$1]) c[$1] = $2 } END { for (f in c) print f, c[f] }' |
        while read -r file chan; do
            [ -e "$file" ] || "$make_wav" "$file" decay "$rate" "$chan" "$max" 11 0.5 >/dev/null
        done
}

# null WAV WHAT: judges an earshot render against fconvolver's f.wav.
null() {
    local result channels worst
    result=$("$wav_match" "$work/f.wav" "$1" 0 2>&1)
    channels=$(sed -n 's/.* -> \([0-9]*\) out,.*/\1/p' "$work/render.txt")
    worst=$(sed -n 's/.*worst \(-*[0-9.]*\) dB.*/\1/p' <<<"$result")
    if [ "${channels:-0}" = "$outs" ] && awk -v w="${worst:-0}" 'BEGIN { exit !(w <= -120) }'; then
        echo "ok   $name: $ins x $outs, $2: $channels outputs, null $worst dB against fconvolver"
    else
        echo "FAIL $name: $ins x $outs, $2: $channels outputs (want $outs): $result"
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
    # The configuration itself, as render --ir reads it: any size.
    "$earshot" render --ir "$conf" "$work/in.wav" "$work/e.wav" >"$work/render.txt" 2>&1
    null "$work/e.wav" "render --ir FILE.conf"
    judged=$((judged + 1))
    [ "$build" = sanitized ] && continue
    if [ $((ins * outs)) -gt 1024 ]; then
        echo "list $name: $ins x $outs, not imported into the library yet (a WAV holds at most 1,024 channels)"
        listed=$((listed + 1))
        continue
    fi
    # Imported into the library, rendered with its layout.
    if ! "$earshot" rooms import-jconvolver "$conf" --to "$work/lib" --name "$room" \
        >"$work/import.txt" 2>&1; then
        echo "FAIL $name: import: $(cat "$work/import.txt")"
        fail=1
        continue
    fi
    grep -q 'cut at MAXSIZE' "$work/import.txt" && cut=$((cut + 1))
    "$earshot" render --ir "$work/lib/$room.wav" --layout "${ins}x$outs" "$work/in.wav" \
        "$work/e.wav" >"$work/render.txt" 2>&1
    null "$work/e.wav" "imported"
done < <(find "$work/c" -name '*.conf' | sort)
echo "$judged configurations judged, $listed listed; $cut cut at MAXSIZE (said at import)"
[ "$cut" -ge 1 ] || [ "$build" = sanitized ] ||
    { echo "FAIL: no configuration's data was cut at MAXSIZE and said"; fail=1; }
[ "$judged" -ge 37 ] || { echo "FAIL: fewer than the 37 shipped configurations judged"; fail=1; }
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
