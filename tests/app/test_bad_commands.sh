#!/usr/bin/env bash
# Bad command lines into play --headless --commands: each gets one line on
# stderr naming the command and the field (or the line) and what is wrong,
# nothing of it reaches the stream (the recording stays finite and no swap
# happens), and the session plays on and takes the good line after them.
set -u
earshot=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
num() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }

# BAD LINE|EXPECTED TEXT
cases=(
    "mix nan 0 1|mix wet 'nan': not a number"
    "mix 1 inf 1|mix dry 'inf': not a number"
    "mix 1 0 -inf|mix gain '-inf': not a number"
    "mix 1 0 99|mix gain 99: out of range (0..16)"
    "mix 1 2|mix needs GAIN"
    "block 99999|block 99999: out of range (16..8192)"
    "block 12x|block '12x': not a whole number"
    "block 256 512|block: unexpected '512'"
    "partition -3|partition -3: out of range (16..65536)"
    "engine warp-drive|engine 'warp-drive': unknown engine (choose from cpu-direct"
    "source tape|source 'tape': expected one of signal,file,mic"
    "pipelined maybe|pipelined 'maybe': expected on or off"
    "frobnicate now|unknown command 'frobnicate' (room, engine, slot, block"
    "room|room needs ROOM"
)
{
    sleep 0.5
    for c in "${cases[@]}"; do echo "${c%%|*}"; done
    # 10,000 characters and a tail that would quit if it ran as a line.
    printf 'room %09995d' 0; echo "quit"
    printf 'engine cpu-direct\0quit\n'
    sleep 0.5
    echo "engine cpu-direct"
    sleep 1
    echo quit
} | "$earshot" play --device null --room vocal-booth --headless --seconds 20 --json --commands \
    --record "$dir/out.wav" >"$dir/out.json" 2>"$dir/err"
rc=$?
json=$(cat "$dir/out.json")
sed 's/^/    stderr: /' "$dir/err"
for c in "${cases[@]}"; do
    line=${c%%|*} want=${c#*|}
    check "'$line': one line naming it" "[ \$(grep -cF -- \"$want\" '$dir/err') -eq 1 ]"
done
check "a 10,000-character line: refused whole in one line, its tail not run" \
    "[ \$(grep -c 'a command line over 8191 characters; ignored' '$dir/err') -eq 1 ]"
check "a line with a NUL byte: refused in one line" \
    "[ \$(grep -c 'a command line with a NUL byte; ignored' '$dir/err') -eq 1 ]"
check "one line for each bad one, no more" \
    "[ \$(grep -vc 'engine cpu-direct\\|engines:\\|room vocal-booth\\|recorded' '$dir/err') -eq $((${#cases[@]} + 2)) ]"
check "played on to the end and quit on 'quit': exit 0" "[ $rc -eq 0 ]"
check "the good line after them took: one swap, to cpu-direct" \
    "[ '$(num swaps "$json")' = 1 ] && grep -q '\"engine\":\"cpu-direct\"' <<<'$json'"
# The float samples after the "data" chunk's header: none may be NaN or
# Inf (exponent bits all ones).
data=$(( $(grep -abo data "$dir/out.wav" | head -1 | cut -d: -f1) + 8 ))
nonfinite=$(od -An -tu4 -v -j "$data" "$dir/out.wav" |
            awk '{ for (i = 1; i <= NF; i++) if (int($i / 8388608) % 256 == 255) n++ } END { print n + 0 }')
samples=$(( ($(stat -c %s "$dir/out.wav") - data) / 4 ))
check "the recording is finite ($nonfinite of $samples samples not)" \
    "[ $samples -gt 48000 ] && [ $nonfinite -eq 0 ]"
exit $fail
