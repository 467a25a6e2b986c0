#!/usr/bin/env bash
# Hardened inputs: each case from the bad-input and fuzzing pass (issue
# table, one check each), driven as a user would. Each gets one clear line
# and a non-zero exit where it is refused, and nothing is lost or left
# behind: no crash, no injected manifest line, no orphan file.
set -u
. "$(dirname "$0")/cli_lib.sh"
"$make_wav" ir.wav decay 48000 2 4800
"$make_wav" in.wav noise 48000 2 9600
"$make_wav" long.wav noise 48000 2 960000
"$make_wav" ir32.wav decay 48000 32 2400

# -- the jconvolver importer
printf '/convolver/new 4 4 256 100000\n/impulse/read 4 4 1.0 0 0 0 1 ir.wav\n/convolver/new 1 1 256 100000\n' >two.conf
refused "jconvolver: a second /convolver/new (was a heap overflow)" "two.conf:3: a second /convolver/new" -- \
    "$earshot" rooms import-jconvolver two.conf --name two
printf '/convolver/new 1 1 256 100000\n/impulse/read 1 1 1.0 9223372036854775000 0 0 1 ir.wav\n' >delay.conf
refused "jconvolver: a delay past any IR (was a signed overflow)" "delay.conf:2: .*DELAY .*out of range" -- \
    "$earshot" rooms import-jconvolver delay.conf --name delay
printf '/convolver/new 1 1 256 100000\n/impulse/read 1 1 nan 0 0 0 1 ir.wav\n' >nan.conf
refused "jconvolver: gain nan (was imported as a NaN IR)" "nan.conf:2: .*GAIN 'nan': not a number" -- \
    "$earshot" rooms import-jconvolver nan.conf --name nan
{ echo '/convolver/new 1 1 256 1000'; printf '#%05000d\n' 0; echo '/impulse/read 1 1 1 0 0 0 1 ir.wav'; } >long.conf
refused "jconvolver: a 5000-character line" "long.conf:2: a line longer than" -- \
    "$earshot" rooms import-jconvolver long.conf --name longline
[ ! -e "$user/two.wav" ] && [ ! -e "$user/nan.wav" ] && ok "jconvolver: nothing written for a refused file" ||
    bad "jconvolver: files left: $(ls "$user")"

# -- rooms add: fields are manifest lines
refused "rooms add: a description with newlines (was written raw into rooms.txt)" \
    "--description .*control characters" -- \
    "$earshot" rooms add ir.wav --name inj --description "$(printf 'hi\nfile = /etc/hostname\n[ghost]\nfile = x.wav')"
refused "rooms add --name ''" "--name '': empty" -- "$earshot" rooms add ir.wav --name ""
"$earshot" rooms add ir.wav --name fine --description "a fine room" >/dev/null ||
    bad "rooms add fine: exit $?"
"$earshot" rooms 2>&1 | grep -q ghost && bad "a room 'ghost' appeared" || ok "no injected room"

# -- a manifest line of 1 MB: one message, not hundreds of pieces
cp "$user/rooms.txt" manifest.bak
{ cat manifest.bak; printf '\n[longdesc]\nfile = fine.wav\ndescription = '
  head -c 1000000 /dev/zero | tr '\0' d; printf '\n'; } >"$user/rooms.txt"
"$earshot" rooms >out.txt 2>err.txt
if [ "$(grep -c 'longer than' err.txt)" -eq 1 ] && ! grep -q 'expected \[name\]' err.txt; then
    ok "1 MB manifest line: $(grep -m1 'longer than' err.txt)"
else
    bad "1 MB manifest line: $(head -c 300 err.txt)"
fi
cp manifest.bak "$user/rooms.txt"

# -- a file size limit during rooms add: the library as it was
"$make_wav" big.wav decay 48000 2 480000
(ulimit -f 100; exec "$earshot" rooms add big.wav --name big1) >out.txt 2>err.txt
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e "$user/big1.wav" ] &&
    cmp -s "$user/rooms.txt" manifest.bak && [ -z "$(ls "$user" | grep partial)" ]; then
    ok "ulimit -f during rooms add: $(cat err.txt); library unchanged"
else
    bad "ulimit -f during rooms add: exit $rc, $(cat err.txt); $(ls "$user")"
fi
# The manifest cannot be replaced (here: it is a folder): the WAV goes again.
mkdir -p "$dir/odd" && mkdir "$dir/odd/rooms.txt"
refused "rooms add, the manifest cannot be written" "rooms.txt: " -- \
    "$earshot" rooms add ir.wav --name odd1 --to "$dir/odd"
[ ! -e "$dir/odd/odd1.wav" ] && ok "and its WAV is not left behind" || bad "odd1.wav left behind"

# -- render: nothing left behind, the same file by inode
(ulimit -f 100; exec "$earshot" render --ir ir.wav long.wav out.wav) >out.txt 2>err.txt
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ -z "$(ls | grep -E 'partial|^out.wav$')" ] &&
    ok "ulimit -f during render: $(cat err.txt); nothing left" ||
    bad "ulimit -f during render: exit $rc, $(cat err.txt); $(ls)"
# cpu-direct with a 20 s IR takes minutes: it is still writing when the
# signal comes. A background job starts with SIGINT ignored; env gives it
# back the default, as a terminal's Ctrl-C finds it.
for sig in INT TERM KILL; do
    env --default-signal=INT "$earshot" render --engine cpu-direct --ir long.wav long.wav sig.wav \
        2>/dev/null &
    pid=$!
    sleep 1
    if ! kill -$sig $pid 2>/dev/null; then
        bad "SIG$sig: the render had already ended"
        continue
    fi
    wait $pid 2>/dev/null
    [ -z "$(ls | grep -E 'partial|^sig.wav$')" ] && ok "SIG$sig during render: nothing left" ||
        bad "SIG$sig during render: $(ls)"
done
mkdir -p sub && cp in.wav same.wav
refused "render onto its input by another path" "the output would overwrite an input" -- \
    "$earshot" render --ir ir.wav same.wav sub/../same.wav
ln -s ir.wav link.wav
refused "render onto its IR through a link" "the output would overwrite an input" -- \
    "$earshot" render --ir link.wav in.wav ir.wav
cmp -s same.wav in.wav && ok "the input is untouched" || bad "same.wav was changed"

# -- play --commands: whole lines, numbers at the edge
printf 'mix nan 1 1\nmix 1e30 0 0\nmix -1 -1 -1\n%s\nab\0cd\nquit\n' "$(head -c 8191 /dev/zero | tr '\0' A)quit" |
    timeout 30 "$earshot" play --headless --commands --device null >out.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ] && grep -q "mix wet 'nan': not a number" err.txt &&
    grep -q "mix wet 1e+30: out of range" err.txt && grep -q "mix wet -1: out of range" err.txt &&
    grep -q "over 8191 characters; ignored" err.txt && grep -q "NUL byte; ignored" err.txt; then
    ok "play --commands: NaN, huge and negative mix, a long line and a NUL refused; quit still quits"
else
    bad "play --commands: exit $rc: $(head -c 600 err.txt)"
fi

# -- an IR whose header claims a rate of 100 Hz: 1000 frames would be
# 480,000 at the stream's rate (found reading irfile.c for the fuzzer)
"$make_wav" slow.wav decay 100 1 1000
refused "an IR at 100 Hz" "slow.wav: a sample rate of 100 Hz \(earshot takes 1000 to 768000\)" -- \
    "$earshot" render --ir slow.wav in.wav out.wav

# -- a layout that invents channels is said
"$earshot" render --ir ir32.wav in.wav out32.wav >out.txt 2>err.txt
grep -q "note: ir32.wav: 32-channel IR with 2 inputs: played as a 2 x 16 matrix" err.txt &&
    ok "32-channel IR with stereo input: $(grep note err.txt)" || bad "32-channel IR: $(cat err.txt)"

[ $fail -eq 0 ] && echo PASSED || echo FAILED
exit $fail
