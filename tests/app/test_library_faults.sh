#!/usr/bin/env bash
# The room library under faults, as fault injections: parallel writers,
# files that belong to someone else, names that hide, a manifest that is
# a link, a recipe list that goes bad half-way, IR files that measure as
# nonsense. Nothing the user did not ask to change is changed, and every
# refusal is one line.
set -u
. "$(dirname "$0")/cli_lib.sh"
"$make_wav" ir.wav decay 48000 2 4800
"$make_wav" other.wav decay 48000 1 2400 7

# -- 50 pairs of rooms add at once keep all 100 rooms
mkdir -p "$user"
for i in $(seq 1 50); do
    "$earshot" rooms add ir.wav --name "par-a$i" >/dev/null 2>>par.err &
    "$earshot" rooms add ir.wav --name "par-b$i" >/dev/null 2>>par.err &
    wait
done
listed=$(grep -c '^\[par-' "$user/rooms.txt")
wavs=$(ls "$user" | grep -c '^par-.*\.wav$')
[ "$listed" -eq 100 ] && [ "$wavs" -eq 100 ] && [ ! -s par.err ] &&
    ok "50 pairs of rooms add at once: 100 rooms listed, 100 WAVs, no orphans" ||
    bad "50 pairs of rooms add at once: $listed rooms listed, $wavs WAVs: $(head -3 par.err)"
# 20 more, all at once, into a fresh folder.
for i in $(seq 1 20); do
    "$earshot" rooms add ir.wav --name "all$i" --to "$dir/burst" >/dev/null 2>>burst.err &
done
wait
[ "$(grep -c '^\[all' "$dir/burst/rooms.txt")" -eq 20 ] && [ ! -s burst.err ] &&
    ok "20 rooms add at once into a new folder: all 20 listed" ||
    bad "20 rooms add at once: $(grep -c '^\[all' "$dir/burst/rooms.txt") listed: $(head -3 burst.err)"

# -- another room's file, or the user's own, is never overwritten
mkdir -p mine
cp other.wav mine/y.wav
printf '[keeper]\nfile = y.wav\n' >mine/rooms.txt
before=$(sha256sum mine/y.wav)
"$earshot" rooms add ir.wav --name y --to mine >out.txt 2>err.txt
[ "$(sha256sum mine/y.wav)" = "$before" ] && grep -q "^\[y\]" mine/rooms.txt &&
    grep -A1 '^\[y\]' mine/rooms.txt | grep -q "file = y-2.wav" &&
    grep -q "y.wav is another file's, so this one is y-2.wav" out.txt &&
    ok "rooms add --name y where y.wav is room keeper's: y.wav untouched, y gets y-2.wav: $(cat out.txt)" ||
    bad "rooms add over another room's file: $(cat out.txt err.txt); $(cat mine/rooms.txt)"
cp other.wav mine/z.wav
before=$(sha256sum mine/z.wav)
"$earshot" rooms add ir.wav --name z --to mine >out.txt 2>err.txt
[ "$(sha256sum mine/z.wav)" = "$before" ] && grep -A1 '^\[z\]' mine/rooms.txt | grep -q "z-2.wav" &&
    ok "rooms add --name z where z.wav is the user's own file: kept, z gets z-2.wav" ||
    bad "rooms add over the user's file: $(cat out.txt err.txt)"
"$earshot" rooms --rooms mine --show keeper --json 2>/dev/null | grep -q '"channels":1' &&
    ok "room keeper still plays its own (mono) IR" || bad "room keeper's IR changed"
refused "rooms add a name taken in the folder" "there is already a room 'keeper'" -- \
    "$earshot" rooms add ir.wav --name keeper --to mine

# -- names that hide
for name in . .. .hidden; do
    refused "rooms add --name '$name'" "not a room name" -- \
        "$earshot" rooms add ir.wav --name "$name" --to mine
done
printf '\n[.secret]\nfile = y.wav\n' >>mine/rooms.txt
"$earshot" rooms --rooms mine >out.txt 2>err.txt
grep -q "'\[.secret' is not a room name" err.txt && ! grep -q "^\.secret" out.txt &&
    ok "a manifest's [.secret]: left out, said" || bad "[.secret]: $(cat err.txt)"

# -- fields are valid UTF-8 with no control character
refused "rooms add --description with a C1 control" "--description: a control character \(\\\\u009b\)" -- \
    "$earshot" rooms add ir.wav --name c1 --to mine --description "$(printf 'a\xc2\x9b2J')"
refused "rooms add --source with invalid UTF-8" "--source: invalid UTF-8 \(\\\\xff\)" -- \
    "$earshot" rooms add ir.wav --name bad8 --to mine --source "$(printf 'x\xffy')"
refused "rooms add --licence with ESC" "--licence .*control character" -- \
    "$earshot" rooms add ir.wav --name esc --to mine --licence "$(printf '\e]0;owned\a')"
"$earshot" rooms add ir.wav --name utf8 --to mine --description "Salle Pleyel, Paris — 1927" \
    >/dev/null 2>err.txt && grep -q "Pleyel, Paris — 1927" mine/rooms.txt &&
    ok "a description in UTF-8 (an em dash) is taken" || bad "UTF-8 description: $(cat err.txt)"

# -- a manifest that is a link is written through it
mkdir -p linked real
printf '[first]\nfile = %s/ir.wav\n' "$dir" >real/rooms.txt
ln -s ../real/rooms.txt linked/rooms.txt
"$earshot" rooms add ir.wav --name second --to linked >/dev/null 2>err.txt
[ -L linked/rooms.txt ] && grep -q '^\[second\]' real/rooms.txt && grep -q '^\[first\]' real/rooms.txt &&
    ok "a manifest that is a link: the link kept, its target has both rooms" ||
    bad "a manifest that is a link: $(ls -l linked) $(cat err.txt)"

# -- build-shipped checks every recipe before it writes
recipe='%s | a small room | --size 4x3x2.5 --absorption 0.3 --source 1,1,1.2 --listener 3,2,1.2 --seconds 0.3\n'
printf "$recipe$recipe" one two >good.txt
"$earshot" rooms build-shipped good.txt built >/dev/null 2>err.txt || bad "build-shipped good.txt: $(cat err.txt)"
cp built/rooms.txt built.before
{ printf "$recipe" three; echo "four | broken | --size 4x3 --absorption 9"; } >bad.txt
"$earshot" rooms build-shipped bad.txt built >out.txt 2>err.txt
rc=$?
[ $rc -ne 0 ] && cmp -s built/rooms.txt built.before && [ ! -e built/three.wav ] &&
    ok "build-shipped with a bad second recipe: exit $rc, the last build's manifest as it was, nothing written: $(head -1 err.txt)" ||
    bad "build-shipped with a bad recipe: exit $rc; $(cat built/rooms.txt)"

# -- rooms --show checks its file as rooms add does
"$make_wav" nan.wav nan 48000 1 4800
refused "rooms --show a file with a NaN" "nan.wav: NaN sample" -- "$earshot" rooms --show nan.wav
"$make_wav" hz1.wav decay 1 1 100
refused "rooms --show a 1 Hz file" "a sample rate of 1 Hz" -- "$earshot" rooms --show hz1.wav
"$make_wav" mhz.wav decay 10000000 1 100000
refused "rooms --show a 10 MHz file" "a sample rate of 1e\+07 Hz|10000000 Hz" -- \
    "$earshot" rooms --show mhz.wav
exit $fail
