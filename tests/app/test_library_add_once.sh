#!/usr/bin/env bash
# `rooms add` opens its file once: what it checks is what it adds. As the
# fault was found: another process holds the library's lock (flock on the
# folder, as earshot takes it), the add starts and waits for it, and
# meanwhile the file it was given is swapped for a link to, or renamed
# over by, a different file only its owner may read (mode 600); then the
# lock goes. The room added must be the original file, with the mode the
# library's rooms have, never the swapped-in file's contents, for a SOFA
# set (kept byte for byte) and a WAV (its channels) alike. A refused add
# leaves no copy behind, nor a folder it made.
#   test_library_add_once.sh EARSHOT MAKE_WAV MAKE_SOFA
set -u
. "$(dirname "$0")/cli_lib.sh"
make_sofa=$3
/usr/bin/python3 -c 'import netCDF4' 2>/dev/null ||
    { echo "SKIP python3-netcdf4 is missing (scripts/setup --test installs it)"; exit 77; }
/usr/bin/python3 "$make_sofa" orig.sofa SingleRoomSRIR 4 2 1 64 48000 10 17 &&
    /usr/bin/python3 "$make_sofa" secret.sofa SingleRoomSRIR 2 2 1 32 48000 0 0 ||
    { echo "FAIL make_sofa.py could not write the test's files"; exit 1; }
"$make_wav" orig.wav decay 48000 2 4800
"$make_wav" secret.wav noise 48000 1 2400 3
chmod 600 secret.sofa secret.wav
lib=$dir/lib
"$earshot" rooms add orig.wav --name reference --to "$lib" >/dev/null 2>&1
mode=$(stat -c %a "$lib/reference.wav")

# hold_lock: another process holds the library's lock until release_lock.
hold_lock() {
    touch hold
    rm -f locked
    flock "$lib" -c "touch '$dir/locked'; while [ -e '$dir/hold' ]; do sleep 0.05; done" &
    holder=$!
    pids+=("$holder")
    for _ in $(seq 200); do [ -e locked ] && break; sleep 0.05; done
}
release_lock() {
    rm -f hold
    wait "$holder"
}
# swapped_add FILE NAME HOW: `rooms add FILE --name NAME` while the lock is
# held; once it has taken its copy (at most 5 s), FILE is swapped for the
# secret file of its kind: HOW link or rename. Its output in add.txt.
swapped_add() {
    local file=$1 name=$2 how=$3 ext=${1##*.}
    hold_lock
    "$earshot" rooms add "$file" --name "$name" --to "$lib" >add.txt 2>&1 &
    local add=$!
    pids+=("$add")
    for _ in $(seq 100); do ls -A "$lib" | grep -q "^\.$name\.adding" && break; sleep 0.05; done
    sleep 0.2
    if [ "$how" = link ]; then
        rm "$file" && ln -s "secret.$ext" "$file"
    else
        cp -p "secret.$ext" "swap.$ext" && mv "swap.$ext" "$file"
    fi
    release_lock
    wait "$add"
}

for how in link rename; do
    cp orig.sofa x.sofa
    swapped_add x.sofa "set-$how" "$how"
    rc=$? got=$(stat -c %a "$lib/set-$how.sofa" 2>/dev/null)
    [ $rc = 0 ] && cmp -s orig.sofa "$lib/set-$how.sofa" && [ "$got" = "$mode" ] &&
        grep -q "4 head orientations" add.txt &&
        ok "rooms add x.sofa, swapped by a $how to a mode-600 set while it waited: the original added, byte for byte, mode $got as the library's" ||
        bad "rooms add x.sofa swapped by a $how: exit $rc, mode $got (library $mode): $(cat add.txt); $(cmp orig.sofa "$lib/set-$how.sofa" 2>&1)"
    rm -f x.sofa
done

for how in link rename; do
    cp orig.wav x.wav
    swapped_add x.wav "wav-$how" "$how"
    rc=$? got=$(stat -c %a "$lib/wav-$how.wav" 2>/dev/null)
    "$earshot" rooms --rooms "$lib" --show "wav-$how" --json >show.json 2>&1
    [ $rc = 0 ] && [ "$got" = "$mode" ] && grep -q '"channels":2' show.json &&
        grep -q "(0.10 s, 2 channels, 48000 Hz)" add.txt &&
        ok "rooms add x.wav, swapped by a $how to a mode-600 WAV while it waited: the original's 2 channels added, mode $got" ||
        bad "rooms add x.wav swapped by a $how: exit $rc, mode $got (library $mode): $(cat add.txt); $(head -c 200 show.json)"
    rm -f x.wav
done

left=$(ls -A "$lib" | grep adding)
[ -z "$left" ] && ok "no copy left in the library" || bad "copies left in the library: $left"

# A refused add: nothing left, and no folder made for it.
echo "not a SOFA file" >bad.sofa
refused "rooms add a damaged set" "bad.sofa: " -- "$earshot" rooms add bad.sofa --to "$dir/new"
[ ! -e "$dir/new" ] && ok "the refused add left no folder" || bad "the refused add left $(ls -A "$dir/new")"
"$make_wav" nan.wav nan 48000 1 480
refused "rooms add a WAV with a NaN, named as given" " nan.wav: NaN sample" -- \
    "$earshot" rooms add nan.wav --to "$lib"
[ -z "$(ls -A "$lib" | grep adding)" ] && ok "the refused WAV left no copy" ||
    bad "the refused WAV left $(ls -A "$lib" | grep adding)"

# An add killed before it finished leaves its copy: the next add removes
# it once its process is gone, and leaves a running one's alone.
sleep 0 &
dead=$!
wait $dead
sleep 30 &
alive=$!
pids+=("$alive")
: >"$lib/.gone.adding-$dead-0.wav"
: >"$lib/.busy.adding-$alive-0.wav"
"$make_wav" next.wav decay 48000 2 4800
"$earshot" rooms add next.wav --to "$lib" >/dev/null 2>&1 || bad "rooms add next.wav: exit $?"
[ ! -e "$lib/.gone.adding-$dead-0.wav" ] && [ -e "$lib/.busy.adding-$alive-0.wav" ] &&
    ok "a killed add's copy removed by the next add, a running one's kept" ||
    bad "copies after the next add: $(ls -A "$lib" | grep adding)"
kill "$alive" 2>/dev/null
exit $fail
