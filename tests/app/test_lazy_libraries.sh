#!/usr/bin/env bash
# The sound servers' libraries (PortAudio, libjack, and ALSA through
# PortAudio) are loaded only by the commands that play, ncurses (with
# its libtinfo) only by the workstation, and netCDF (with HDF5) only by
# `rooms new --binaural` and the child process that reads a SOFA set
# (rooms/sofa_guard.c): render, the room library's commands, engines and
# bench never map them (the dynamic loader's own
# account, LD_DEBUG=files, says what each process loads). `earshot
# devices` does map the servers', and tput (ncurses-bin) libtinfo, which
# shows the check sees a loaded one. The workstation's own tests show it
# loads ncurses when it starts.
#   test_lazy_libraries.sh EARSHOT MAKE_WAV servers|none
#     servers: the build has PortAudio or JACK
set -u
servers=${3:-none}
. "$(dirname "$0")/cli_lib.sh"
"$make_wav" ir.wav decay 48000 2 4800
"$make_wav" in.wav noise 48000 2 9600

# loaded COMMAND...: the sound-server libraries the command's process loaded.
loaded() {
    LD_DEBUG=files "$@" >/dev/null 2>ld.txt
    grep -oE 'file=(libjack|libportaudio|libasound|libncurses|libtinfo|libnetcdf|libhdf5)[^ ]*' ld.txt |
        sort -u | tr '\n' ' '
}

for cmd in "render --ir ir.wav in.wav out.wav" "rooms" "rooms --show ir.wav" "engines" \
    "bench --engine cpu-partitioned --seconds 0.05 --ir-seconds 0.1" "--version"; do
    # shellcheck disable=SC2086 # the words are the command line
    libs=$(loaded "$earshot" $cmd)
    [ -z "$libs" ] && ok "earshot $cmd: no sound-server, ncurses or netCDF library loaded" ||
        bad "earshot $cmd loaded $libs"
done
libs=$(loaded "$earshot" devices)
if [ "$servers" = servers ]; then
    [ -n "$libs" ] && ok "earshot devices: $libs" || bad "earshot devices loaded nothing: the check sees nothing"
fi
libs=$(loaded tput cols)
[ -n "$libs" ] && ok "tput: $libs" || bad "tput loaded no libtinfo: the check sees nothing"
exit $fail
