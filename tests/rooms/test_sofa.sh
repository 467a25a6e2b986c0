#!/usr/bin/env bash
# Makes the SOFA files test_sofa reads (make_sofa.py, netCDF4), and the
# damaged ones, then runs it on them and on Debian's MIT KEMAR set.
#   test_sofa.sh TEST_SOFA
set -u
kemar=/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa
make=$(dirname "$0")/make_sofa.py
[ -r "$kemar" ] || { echo "SKIP $kemar is missing (package libmysofa1)"; exit 77; }
/usr/bin/python3 -c 'import netCDF4' 2>/dev/null ||
    { echo "SKIP python3-netcdf4 is missing (scripts/setup --test installs it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$make" "$dir/srir.sofa" SingleRoomSRIR 4 2 1 64 48000 10 17 &&
    /usr/bin/python3 "$make" "$dir/brir.sofa" MultiSpeakerBRIR 3 2 5 32 48000 10 17 &&
    /usr/bin/python3 "$make" "$dir/unknown.sofa" FreeFieldDirectivityTF 2 2 1 32 48000 0 0 &&
    /usr/bin/python3 "$make" "$dir/negative.sofa" SingleRoomSRIR 2 2 1 32 48000 -3 0 &&
    /usr/bin/python3 "$make" "$dir/nan.sofa" SingleRoomSRIR 2 2 1 32 48000 0 0 nan ||
    { echo "FAIL make_sofa.py could not write the test's files"; exit 1; }
head -c 3000 "$kemar" >"$dir/cut.sofa"
echo "not a SOFA file" >"$dir/text.sofa"
mkdir "$dir/folder.sofa"
mkfifo "$dir/fifo.sofa"
exec "$1" "$kemar" "$dir"
