#!/usr/bin/env bash
# A device that cannot be opened says why, in one line, exit 1: a name no
# device has (the line names it), and JACK with no server running (the
# line says no JACK server answered, not "no such device"), and PipeWire
# where no daemon answers.
set -u
earshot=$(realpath "$1")
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1: $(grep -v 'earshot: room' "$dir/err")"; else echo "FAIL $1"; cat "$dir/err"; fail=1; fi; }
one_line() { [ "$(grep -vc 'earshot: room' "$dir/err")" = 1 ]; }
"$earshot" play --headless --device nonesuch --seconds 1 >/dev/null 2>"$dir/err"; rc=$?
check "--device nonesuch: exit 1, one line naming it" \
    "[ $rc = 1 ] && one_line && grep -q \"device 'nonesuch'\" '$dir/err'"
JACK_NO_START_SERVER=1 JACK_DEFAULT_SERVER="earshot-none-$$" \
    "$earshot" play --headless --device jack --seconds 1 >/dev/null 2>"$dir/err"; rc=$?
check "--device jack with no server: exit 1, one line saying no JACK server answered" \
    "[ $rc = 1 ] && one_line && grep -q 'no JACK server answered' '$dir/err'"
# PipeWire asked for by name where no daemon answers: said, with where it
# looked.
mkdir -p "$dir/run"
XDG_RUNTIME_DIR="$dir/run" PIPEWIRE_RUNTIME_DIR= PIPEWIRE_REMOTE= \
    "$earshot" play --headless --device pipewire --seconds 1 >/dev/null 2>"$dir/err"; rc=$?
check "--device pipewire with no daemon: exit 1, one line saying where it looked" \
    "[ $rc = 1 ] && one_line && grep -q \"device 'pipewire': no PipeWire daemon answered at $dir/run/pipewire-0\" '$dir/err'"
exit $fail
