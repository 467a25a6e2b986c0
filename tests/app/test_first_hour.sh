#!/usr/bin/env bash
# A newcomer's first hour, scripted, each step asserting what they see. As
# an ordinary user (run as root, the test becomes `nobody` with setpriv;
# run as anyone else, it stays them) under Debian's locked-memory limit of
# 8 MB, from a copy of the source tree (the clean clone CI starts from):
#
#   1. the install: `scripts/run --version` from another folder builds
#      quietly (one line saying so, no build output) and installs into
#      PREFIX, a manual page beside; `man earshot` shows every option
#      `earshot COMMAND --help` shows;
#   2. the workstation from the installed program, in tmux at 80x24, in a
#      folder of the user's: it plays (the locked-memory note said, no room
#      left out); `o` opens the user's own hot IR ("my hall.wav": stereo
#      noise, 0.25 rms, T60 1.2 s), which plays levelled, not muted; `g`
#      plays it raw, and the loud room is turned down and said, not muted
#      as a feedback loop; `r` records into that folder, never into the
#      source tree;
#   3. on a JACK server (the dummy backend) with jconvolver holding a room
#      as the room to measure: `M`, Enter at the form's defaults clips and
#      brings the form back with the level to use; lowered to -30 dBFS,
#      Enter: the measured room plays in slot B.
#
#   test_first_hour.sh MAKE_WAV
set -u
make_wav=$(realpath "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
for tool in tmux man jackd jconvolver espeak-ng; do
    command -v "$tool" >/dev/null ||
        { echo "FAIL: $tool is not installed (scripts/setup --test installs it)"; exit 1; }
done
work=$(mktemp -d)
chmod 755 "$work"
home=$work/home
src=$home/earshot
prefix=$home/.local
mkdir -p "$home/my room" "$home/elsewhere"
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# The user: nobody when this runs as root, else whoever runs it; always
# under 8 MB of locked memory, with a home of its own.
user_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
          HOME="$home" SHELL=/bin/bash LANG=C TERM=xterm EARSHOT_WISDOM=off EARSHOT_CUDA=OFF
          JACK_DEFAULT_SERVER=first-hour-$$ PREFIX="$prefix")
if [ "$(id -u)" = 0 ]; then
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "${user_env[@]}" \
                    prlimit --memlock=8388608:8388608 "$@"; }
    who="nobody (uid 65534)"
else
    as_user() { "${user_env[@]}" prlimit --memlock=8388608:8388608 "$@"; }
    who="$(id -un)"
fi
# tmux_lib's screen, wait_for and keys, on a tmux server of the user's.
. "$top/tests/app/tmux_lib.sh"
sock=$home/tmux.sock
t() { as_user tmux -S "$sock" "$@"; }
cleanup() {
    as_user tmux -S "$sock" kill-server 2>/dev/null
    as_user pkill -f "jconvolver -N hall" 2>/dev/null
    as_user pkill -f "jackd -n first-hour-$$" 2>/dev/null
    rm -rf "$work" "$tmux_dir"
}
trap cleanup EXIT

# The source as a clean clone has it: the tracked and new files, no build.
mkdir -p "$src"
tar -C "$top" --exclude='./build*' --exclude=./.git --exclude=./.device -cf - . | tar -C "$src" -xf -
"$make_wav" "$home/my room/my hall.wav" decay 48000 2 57600 7 0.866 >/dev/null
espeak-ng -w "$home/my room/speech.wav" "Is this the room I measured yesterday?" 2>/dev/null
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$home"
echo "--- as $who, ulimit -l $(as_user bash -c 'ulimit -l') KB"

# 1. The install, from another folder.
started=$(date +%s)
(cd "$home/elsewhere" && as_user "$src/scripts/run" --version) >"$work/run.out" 2>"$work/run.err"
rc=$?
took=$(($(date +%s) - started))
if [ $rc = 0 ] && grep -qx 'earshot 0.1.0' "$work/run.out" && [ "$(wc -l <"$work/run.out")" = 1 ] &&
   [ "$(wc -l <"$work/run.err")" -le 1 ] && [ -x "$prefix/bin/earshot" ] &&
   [ -s "$prefix/share/man/man1/earshot.1" ] && [ -s "$prefix/share/earshot/shipped/rooms.txt" ]; then
    ok "scripts/run --version from another folder: built and installed into ~/.local in $took s," \
       "quietly ($(cat "$work/run.err"))"
else
    bad "scripts/run --version: exit $rc in $took s; stdout:"
    sed 's/^/    | /' "$work/run.out" | tail -5
    echo "    stderr:"
    sed 's/^/    | /' "$work/run.err" | tail -20
    echo "FAILED"
    exit 1
fi
earshot=$prefix/bin/earshot
# `man earshot` finds the page beside the program on PATH, and shows every
# option each command's --help shows.
man_text=$(as_user env PATH="$prefix/bin:/usr/bin:/bin" MANWIDTH=200 man earshot 2>&1 | col -b)
missing=()
for c in $(as_user "$earshot" --help | awk '/^  [a-z]+ / { print $1 }'); do
    for o in $(as_user "$earshot" "$c" --help | grep -oE '^ +--[a-z0-9-]+' | tr -d ' '); do
        grep -qF -- "$o" <<<"$man_text" || missing+=("$c $o")
    done
done
options=$(as_user "$earshot" play --help | grep -cE '^ +--[a-z]')
if [ ${#missing[@]} = 0 ] && grep -q 'earshot play' <<<"$man_text" && [ "$options" -gt 30 ]; then
    ok "man earshot: the page installed beside the program shows every option of every" \
       "command's --help ($options of play's among them)"
else
    bad "man earshot: missing ${missing[*]:-nothing}; $(head -3 <<<"$man_text")"
fi

# 2. The workstation, in the user's folder, on the null device.
messages() { keys m; sleep 0.5; screen; keys Escape; }
start_ui() {
    t kill-server 2>/dev/null
    t -f /dev/null new-session -d -s ui -x 80 -y 24 \
        "cd '$home/my room' && $* 2>'$home/stderr'; echo EXIT=\$?; sleep 600"
}
start_ui "'$earshot' --device null --input speech.wav --no-restore"
if wait_for Meters 15 && messages | grep -q 'locked-memory limit (8.0 MB)' &&
   ! messages | grep -q 'left out\|out of memory'; then
    ok "the workstation plays under the 8 MB limit: $(messages | grep -o 'the locked-memory limit[^;]*' | head -1)"
else
    bad "the workstation under the 8 MB limit:"
    screen | sed 's/^/    | /'
fi
keys o
sleep 0.3
keys -l 'my hall.wav'
keys Enter
if wait_for 'my hall.wav      [file] playing' 15 && sleep 4 &&
   messages | grep -q 'room my hall.wav: 1.20 s, gain -24.1 dB (levelled'; then
    if ! screen | grep -q 'MUTED\|runaway'; then
        ok "o \"my hall.wav\": plays levelled (gain -24.1 dB), not muted, 4 s on"
    else
        bad "o \"my hall.wav\": muted:"; screen | sed 's/^/    | /'
    fi
else
    bad "o \"my hall.wav\": no levelled room said"; screen | sed 's/^/    | /'
fi
keys g
for _ in $(seq 20); do messages | grep -q 'turned the output down' && break; sleep 1; done
if messages | grep -q 'turned the output down'; then
    sleep 2
    if ! screen | grep -q 'MUTED'; then
        ok "g (raw): the loud room turned down and said, not muted: $(messages | grep -o 'room my hall.wav is loud[^(]*' | head -1)"
    else
        bad "g (raw): muted after the turn down:"; screen | sed 's/^/    | /'
    fi
else
    bad "g (raw): no loud room said within 20 s"; messages | sed 's/^/    | /'
fi
keys r
sleep 2
keys r
sleep 1
takes=$(ls "$home/my room" | grep -c '^earshot-.*\.wav$')
strays=$(find "$src" -name 'earshot-*.wav' | wc -l)
if [ "$takes" -ge 2 ] && [ "$strays" = 0 ]; then
    ok "r: the take and its dry twin in the folder earshot started in ($(ls "$home/my room" | grep '^earshot-' | head -1), ...), none in the source tree"
else
    bad "r: $takes takes in '$home/my room', $strays in the source tree"
fi
keys q
if wait_for 'EXIT=0' 10; then ok "q: exit 0"; else bad "q: $(screen | tail -3)"; fi

# 3. A room measured from the screen, on JACK: jconvolver holds the room.
as_user jackd -n "first-hour-$$" -d dummy -r 48000 -p 256 >"$work/jackd.log" 2>&1 &
for _ in $(seq 50); do as_user jack_lsp >/dev/null 2>&1 && break; sleep 0.1; done
as_user jconvolver -N hall /usr/share/jconvolver/config-files/demo-reverbs/street.conf \
    >"$work/jconvolver.log" 2>&1 &
for _ in $(seq 50); do as_user jack_lsp 2>/dev/null | grep -q 'hall:in-1' && break; sleep 0.1; done
start_ui "'$earshot' --device jack --input mic --connect-out hall:in-1 --connect-in hall:out-1 --no-restore"
if ! wait_for Meters 15; then
    bad "the workstation on JACK did not come up: $(cat "$home/stderr")"
    sed 's/^/    jackd: /' "$work/jackd.log" | tail -5
else
    # At the form's defaults (-12 dBFS) jconvolver's street room, 25 dB
    # hotter than the sweep, clips: the form comes back with the line and
    # the level it says, one key from measuring again; the user lowers it
    # further, and Enter puts the room in slot B.
    keys M
    wait_for 'Measure the room' 5 || bad "M: no form"
    keys Enter
    if wait_for 'Enter: measure again' 30 && screen | grep -q 'level      -22 ' &&
       screen | grep -q 'clipped'; then
        ok "M, Enter at the defaults: clipped, and the form is back with the line and -22 dBFS filled in"
    else
        bad "M at the defaults: the form did not come back with the level to use"
        screen | sed 's/^/    | /'
    fi
    keys C-u
    t send-keys -t ui -l -- -30
    keys Enter
    # A machine that stalls loses frames in a sweep, and earshot plays it
    # again twice, then gives up and says so: a user presses M and Enter
    # once more, and so does this, twice at most (a busy spell of a fresh
    # root lost frames in five sweeps in a row at period 256).
    for again in 1 2 3; do
        wait_for '>B measured-' 60 && break
        messages | grep -q 'lost frames during sweep .* times in a row' && [ $again -lt 3 ] ||
            break
        echo "     the machine lost frames in three sweeps in a row: M, -30 dBFS, Enter again"
        keys M
        wait_for 'Measure the room' 5
        keys C-u
        t send-keys -t ui -l -- -30
        keys Enter
    done
    if screen | grep -q '>B measured-'; then
        ok "the level lowered to -30 dBFS, Enter: $(messages | grep -o 'measured room [^;]*' | head -1); slot B plays it"
    else
        bad "M on the JACK loop: the room did not play in slot B"
        messages | sed 's/^/    | /'
    fi
    keys q
    wait_for 'EXIT=' 10
fi
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
