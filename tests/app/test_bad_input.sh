#!/usr/bin/env bash
# Bad input to earshot render: one clear line on stderr naming the file or
# argument, a non-zero exit, no crash, and no output (or partial output) left.
set -u
earshot=$1
make_wav=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$make_wav" in.wav noise 48000 2 9600
"$make_wav" room.wav decay 48000 2 2400
"$make_wav" text.wav text
"$make_wav" trunc.wav truncated 48000 2 9600
"$make_wav" empty.wav empty 48000 1
"$make_wav" nan.wav nan 48000 2 2400
"$make_wav" inf.wav inf 48000 2 2400
"$make_wav" three.wav decay 48000 3 2400
mkdir adir
fail=0
cases=0

# expect NAME EXPECTED_TEXT -- earshot arguments...
expect() {
    local name=$1 want=$2
    shift 3
    cases=$((cases + 1))
    rm -f out.wav
    "$earshot" "$@" >stdout.txt 2>stderr.txt
    local rc=$?
    local lines
    lines=$(wc -l <stderr.txt)
    local leftovers
    leftovers=$(ls | grep -E '^out\.wav|partial' || true)
    if [ $rc -eq 0 ] || [ $rc -gt 128 ] || [ "$lines" -ne 1 ] ||
       ! grep -qF -- "$want" stderr.txt || [ -n "$leftovers" ]; then
        echo "FAIL $name: exit $rc, $lines stderr lines, left: '${leftovers}'"
        sed 's/^/    /' stderr.txt
        fail=1
    else
        echo "ok   $name: $(cat stderr.txt)"
    fi
}

expect "missing input"        "missing.wav"   -- render --ir room.wav missing.wav out.wav
expect "missing IR"           "missing-ir.wav" -- render --ir missing-ir.wav in.wav out.wav
expect "input not audio"      "text.wav: not a readable audio file" -- render --ir room.wav text.wav out.wav
expect "IR not audio"         "text.wav: not a readable audio file" -- render --ir text.wav in.wav out.wav
expect "truncated input"      "trunc.wav: truncated" -- render --ir room.wav trunc.wav out.wav
expect "truncated IR"         "trunc.wav: truncated" -- render --ir trunc.wav in.wav out.wav
expect "empty IR"             "empty.wav: the impulse response is empty" -- render --ir empty.wav in.wav out.wav
expect "empty input"          "empty.wav: no audio" -- render --ir room.wav empty.wav out.wav
expect "NaN in IR"            "nan.wav: NaN sample" -- render --ir nan.wav in.wav out.wav
expect "Inf in IR"            "inf.wav: infinite sample" -- render --ir inf.wav in.wav out.wav
expect "IR layout"            "three.wav: a 3-channel impulse response does not fit 2" -- render --ir three.wav in.wav out.wav
expect "unknown engine"       "--engine 'warp-drive': unknown engine" -- render --engine warp-drive --ir room.wav in.wav out.wav
expect "block 0"              "--block 0: out of range" -- render --block 0 --ir room.wav in.wav out.wav
expect "absurd block"         "--block 10000000: out of range" -- render --block 10000000 --ir room.wav in.wav out.wav
expect "block not a number"   "--block 'lots': not a whole number" -- render --block lots --ir room.wav in.wav out.wav
expect "wet out of range"     "--wet 2: out of range" -- render --wet 2 --ir room.wav in.wav out.wav
expect "bad format"           "--format 'mp3'" -- render --format mp3 --ir room.wav in.wav out.wav
expect "no --ir"              "give --ir FILE or --room NAME" -- render in.wav out.wav
expect "unknown room"         "no room or file named 'nowhere'" -- render --room nowhere in.wav out.wav
expect "no output named"      "needs IN and OUT" -- render --ir room.wav in.wav
expect "unknown option"       "unknown option '--reverb'" -- render --reverb --ir room.wav in.wav out.wav
expect "unwritable output"    "no-such-dir/out.wav: cannot write" -- render --ir room.wav in.wav no-such-dir/out.wav
expect "output is a directory" "adir: cannot write" -- render --ir room.wav in.wav adir
expect "output overwrites input" "in.wav: the output would overwrite an input" -- render --ir room.wav in.wav in.wav
expect "unknown command"      "unknown command 'rendr'" -- rendr --ir room.wav in.wav out.wav
# --gpu lists: the entry that is wrong is named; a CPU engine is refused.
expect "--gpu empty entry"    "--gpu '0,,1': entry 2 is empty" -- render --engine cuda-nonuniform --gpu 0,,1 --ir room.wav in.wav out.wav
expect "--gpu negative"       "--gpu '-1': entry 1, '-1', is negative" -- render --engine cuda-nonuniform --gpu -1 --ir room.wav in.wav out.wav
expect "--gpu not a number"   "--gpu '0,x': entry 2, 'x', is not a GPU ordinal" -- render --engine cuda-nonuniform --gpu 0,x --ir room.wav in.wav out.wav
expect "--gpu, CPU engine"    "--gpu 0,1: cpu-partitioned runs on the CPU" -- render --gpu 0,1 --ir room.wav in.wav out.wav
expect "bench --gpu, CPU engine" "--gpu 0: cpu-direct runs on the CPU" -- bench --engine cpu-direct --gpu 0 --seconds 0.1
# Past the last GPU: with none here, the engine's probe says why first.
if [ "$("$earshot" engines --json | grep -c '"gpu":')" = 0 ]; then
    expect "--gpu past the last" "cuda-nonuniform is not available here" -- render --engine cuda-nonuniform --gpu 7 --ir room.wav in.wav out.wav
else
    expect "--gpu past the last" "entry 2, GPU 64, is past the last GPU" -- render --engine cuda-nonuniform --gpu 0,64 --ir room.wav in.wav out.wav
fi

# And a good run from the same files works, so the failures above are the
# inputs' fault and not the setup's.
if "$earshot" render --ir room.wav in.wav out.wav >/dev/null 2>&1 && [ -s out.wav ]; then
    echo "ok   good input renders"
else
    echo "FAIL the good render failed"
    fail=1
fi
# Edge files that are not bad: a 1-sample IR taken to an 8 kHz input is
# one band-limited impulse (it once came out empty: "nothing left after
# resampling"), a sixth of the input's level.
"$make_wav" one.wav dirac 48000 1 1 0 1.0
"$make_wav" in8.wav noise 8000 1 8000
if "$earshot" render --ir one.wav in8.wav out8.wav >/dev/null 2>err8.txt && [ -s out8.wav ]; then
    echo "ok   a 1-sample IR at 48 kHz renders an 8 kHz input"
else
    echo "FAIL a 1-sample IR at 48 kHz, an 8 kHz input: $(cat err8.txt)"
    fail=1
fi
echo "bad input: $cases cases"
exit $fail
