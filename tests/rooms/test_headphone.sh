#!/usr/bin/env bash
# Makes test_headphone's files (a SimpleHeadphoneIR set by make_sofa.py, a
# room set of another convention, a WAV of 3 channels) and runs it.
#   test_headphone.sh TEST_HEADPHONE MAKE_WAV
set -u
make=$(dirname "$0")/make_sofa.py
/usr/bin/python3 -c 'import netCDF4' 2>/dev/null ||
    { echo "SKIP python3-netcdf4 is missing (scripts/setup --test installs it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 "$make" "$dir/phones.sofa" SimpleHeadphoneIR 3 2 1 256 48000 0 0 phones &&
    /usr/bin/python3 "$make" "$dir/room.sofa" SingleRoomSRIR 4 2 1 64 48000 0 0 &&
    "$2" "$dir/three.wav" noise 48000 3 100 >/dev/null ||
    { echo "FAIL the test's files could not be made"; exit 1; }
"$1" "$dir/phones.sofa" "$dir/room.sofa" "$dir/three.wav"
