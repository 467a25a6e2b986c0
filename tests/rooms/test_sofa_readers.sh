#!/usr/bin/env bash
# SOFA files that libmysofa 1.3 misreads, read right: the arrays are
# netCDF's (rooms/sofa_netcdf.c). Each set is one of make_sofa.py's,
# stored again another way (resave_sofa.py), and must read as the
# original does: `rooms --show --json` the same, `render` the same bytes
# (by cpu-direct: an FFT plan measured afresh may round otherwise), and
# `rooms add` taking it as it is.
#   - Data.IR deflated without the shuffle filter (noise, and sparse
#     filters): libmysofa un-shuffles it all the same, and gave noise
#     refused as 'not a finite number', or sets shown 'silent';
#   - Data.IR, and every variable, stored as float: libmysofa read no
#     value ('holds 0 values');
#   - Data.SamplingRate one a measurement (M): all equal, read at that
#     rate; unequal, refused in one line naming the file and the variable
#     (it was the first one's, without a word), and `rooms add` adds
#     nothing;
#   - without netCDF (NO_NETCDF preloaded: dlopen of it fails), libmysofa
#     alone: the shuffle-less and float sets refused in one line that says
#     why, the original still read.
#   test_sofa_readers.sh EARSHOT MAKE_WAV NO_NETCDF
set -u
earshot=$1 make_wav=$2 no_netcdf=$3
here=$(dirname "$0")
/usr/bin/python3 -c 'import netCDF4' 2>/dev/null ||
    { echo "SKIP python3-netcdf4 is missing (scripts/setup --test installs it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export XDG_DATA_HOME=$dir/xdg XDG_CONFIG_HOME=$dir/config EARSHOT_WISDOM=off
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
make() { /usr/bin/python3 "$here/make_sofa.py" "$@"; }
resave() { /usr/bin/python3 "$here/resave_sofa.py" "$@"; }
{ make "$dir/noise.sofa" SingleRoomSRIR 4 2 1 256 48000 10 17 room &&
    make "$dir/steps.sofa" SingleRoomSRIR 4 2 1 64 48000 10 17 &&
    for set in noise steps; do
        for how in deflate deflate-shuffle float all-float rates-equal rates-differ; do
            resave "$dir/$set.sofa" "$dir/$set-$how.sofa" "$how" || exit 1
        done
    done; } || { echo "FAIL make_sofa.py or resave_sofa.py could not write the test's files"; exit 1; }
"$make_wav" "$dir/in.wav" noise 48000 1 9600

# show FILE: `rooms --show --json`, the file's name made the original's.
show() { "$earshot" rooms --show "$dir/$1.sofa" --json 2>&1 | sed "s|$dir/$1.sofa|SET|"; }
for set in noise steps; do
    show "$set" >"$dir/$set.json"
    "$earshot" render --engine cpu-direct --ir "$dir/$set.sofa" "$dir/in.wav" "$dir/$set.wav" >/dev/null 2>&1
    for how in deflate deflate-shuffle float all-float rates-equal; do
        f=$set-$how
        show "$f" >"$dir/$f.json"
        "$earshot" render --engine cpu-direct --ir "$dir/$f.sofa" "$dir/in.wav" "$dir/$f.wav" >/dev/null 2>&1
        if cmp -s "$dir/$set.json" "$dir/$f.json" && cmp -s "$dir/$set.wav" "$dir/$f.wav" &&
            grep -q '"measurements":4' "$dir/$f.json"; then
            ok "$f: read as $set.sofa is (rooms --show --json the same, render by cpu-direct the same bytes)"
        else
            bad "$f: $(head -c 300 "$dir/$f.json")"
        fi
    done
done
# No set is shown silent: the sparse filters' first paths each have an
# interaural difference, the noise's its figures.
grep -q '"first_path":null' "$dir/steps-deflate.json" "$dir/noise-deflate.json" &&
    bad "a shuffle-less set shows a silent measurement" ||
    ok "no measurement of a shuffle-less set is silent"

# -- rooms add: the shuffle-less set taken as it is
lib=$dir/library
"$earshot" rooms add "$dir/noise-deflate.sofa" --name deflated --to "$lib" >"$dir/add.txt" 2>&1 &&
    cmp -s "$dir/noise-deflate.sofa" "$lib/deflated.sofa" &&
    "$earshot" rooms --rooms "$lib" --show deflated --json 2>&1 |
    sed "s|$lib/deflated.sofa|SET|" | cmp -s - "$dir/noise.json" &&
    ok "rooms add a shuffle-less set: kept byte for byte, shown as the original: $(sed "s|$dir/||g" "$dir/add.txt")" ||
    bad "rooms add a shuffle-less set: $(cat "$dir/add.txt")"

# -- unequal rates a measurement: one line, naming the file and the variable
for set in noise steps; do
    "$earshot" rooms --show "$dir/$set-rates-differ.sofa" >/dev/null 2>"$dir/rates.err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$dir/rates.err")" = 1 ] &&
        grep -q "$set-rates-differ.sofa: Data.SamplingRate is 48000 Hz at measurement 1 but 44100 Hz at measurement 4" "$dir/rates.err" &&
        ok "$set-rates-differ refused: $(sed "s|$dir/||" "$dir/rates.err")" ||
        bad "$set-rates-differ: exit $rc: $(cat "$dir/rates.err")"
done
"$earshot" rooms add "$dir/noise-rates-differ.sofa" --name rates --to "$lib" >/dev/null 2>"$dir/add-rates.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$dir/add-rates.err")" = 1 ] &&
    grep -q "noise-rates-differ.sofa: Data.SamplingRate" "$dir/add-rates.err" &&
    [ ! -e "$lib/rates.sofa" ] && ! grep -q '^\[rates\]' "$lib/rooms.txt" &&
    [ -z "$(ls -A "$lib" | grep adding)" ] &&
    ok "rooms add of unequal rates: refused, naming the file it was given, nothing added or left: $(sed "s|$dir/||" "$dir/add-rates.err")" ||
    bad "rooms add of unequal rates: exit $rc: $(cat "$dir/add-rates.err"); $(ls -A "$lib")"

# -- libmysofa alone: what it misreads is refused, and says why
# (An ASan build's runtime need not come first: the preload only wraps dlopen.)
alone() {
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$no_netcdf \
        "$earshot" rooms --show "$dir/$1.sofa" "${@:2}"
}
alone noise --json 2>&1 | sed "s|$dir/noise.sofa|SET|" | cmp -s - "$dir/noise.json" &&
    ok "without netCDF the original reads as before" ||
    bad "without netCDF the original: $(alone noise 2>&1 | head -2)"
for f in noise-deflate:"deflated without the shuffle filter" steps-deflate:"deflated without the shuffle filter" \
    noise-float:"stored as double only" noise-all-float:"stored as double only"; do
    name=${f%%:*} why=${f#*:}
    alone "$name" >/dev/null 2>"$dir/alone.err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$dir/alone.err")" = 1 ] && grep -q "$name.sofa: .*$why" "$dir/alone.err" &&
        grep -q "netCDF, which reads such arrays, did not read them: libnetcdf" "$dir/alone.err" &&
        ok "without netCDF, $name refused: $(sed "s|$dir/||" "$dir/alone.err")" ||
        bad "without netCDF, $name: exit $rc: $(cat "$dir/alone.err")"
done
exit $fail
