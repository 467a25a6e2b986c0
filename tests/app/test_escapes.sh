#!/usr/bin/env bash
# Hostile text never reaches the terminal raw. A hand-written manifest
# puts ESC [2J (clear the screen), OSC 52 (write the clipboard), OSC 0
# (the window title), a C1 CSI (U+009B) and bytes that are not UTF-8 into
# every field, a room name and a file name; a jconvolver configuration
# puts them into a command and a file name; a --commands line into an
# unknown command. Every output of every command that shows them (the
# list, --show, their JSON, play's report and JSON, render's lines, the
# errors) must hold no control byte but newline and tab, no C1 control
# and no invalid UTF-8; and the workstation draws them escaped (\x1b).
set -u
. "$(dirname "$0")/cli_lib.sh"
trap 'rm -rf "$dir"; [ -n "${tmux_cleanup_needed:-}" ] && tmux_cleanup' EXIT

ESC=$'\e' BEL=$'\a' C1=$'\xc2\x9b' BAD=$'\xff\xfe'
evil="${ESC}[2J${ESC}]52;c;ZXZpbA==${BEL}${ESC}]0;owned${BEL}${C1}2J${BAD}"
mkdir lib
"$make_wav" ir.wav decay 48000 2 4800
"$make_wav" in.wav noise 48000 2 9600
cp ir.wav "lib/ir${evil}.wav"
cp ir.wav "x${evil}.wav"
{
    printf '[evil]\nfile = ir%s.wav\n' "$evil"
    printf 'description = d%s\nsource = s%s\nlicence = l%s\n\n' "$evil" "$evil" "$evil"
    printf '[bad-layout]\nfile = ir%s.wav\nlayout = 2x%s\n\n' "$evil" "$evil"
    printf '[n%s]\nfile = ir%s.wav\n\n' "$evil" "$evil"
    printf '[bad-gain]\nfile = ir%s.wav\ngain = %s\n\n' "$evil" "$evil"
    printf '[evil]\nfile = ir%s.wav\ndescription = the same name again\n\n' "$evil"
    printf '[gone]\nfile = missing%s.wav\n\n' "$evil"
    printf 'k%s = v\n' "$evil"
} >lib/rooms.txt
{
    printf '/convolver/new 1 1 256 100000\n'
    printf '/cd %s\n' "$dir"
    printf '/impulse/read 1 1 1 0 0 0 1 missing%s.wav\n' "$evil"
} >missing.conf
printf '/convolver/new 1 1 256 100000\n/x%s 1\n' "$evil" >command.conf
printf '/convolver/new 1 1 256 100000\n/impulse/read 1 1 %s 0 0 0 1 ir.wav\n' "$evil" >gain.conf

# clean NAME FILE...: no raw control byte but newline and tab, no C1 control, no
# invalid UTF-8 in any of the files.
clean() {
    local name=$1 raw=0 c1=0 utf=0
    shift
    for f in "$@"; do
        raw=$((raw + $(LC_ALL=C grep -c -a -P '[\x00-\x08\x0b-\x1f\x7f]' "$f")))
        c1=$((c1 + $(LC_ALL=C grep -c -a -P '\xc2[\x80-\x9f]' "$f")))
        utf=$((utf + $(LC_ALL=C.UTF-8 grep -c -a -v -x '.*' "$f")))
    done
    local said
    said=$(cat "$@" | wc -c)
    if [ $raw -eq 0 ] && [ $c1 -eq 0 ] && [ $utf -eq 0 ] && [ "$said" -gt 0 ]; then
        ok "$name: $said bytes, no raw control, C1 or invalid UTF-8"
    else
        bad "$name: lines with a raw control $raw, a C1 control $c1, invalid UTF-8 $utf"
        cat -v "$@" | head -5 | sed 's/^/    /'
    fi
}
# shows NAME PATTERN FILE...: the escaped form is there (the text was shown,
# not dropped).
shows() { grep -q -- "$2" "${@:3}" && ok "$1 shows the text escaped" || bad "$1: no '$2' in it"; }

"$earshot" rooms --rooms lib >list.out 2>list.err
clean "earshot rooms" list.out list.err
shows "earshot rooms" 'd\\x1b\[2J\\x1b\]52;c;ZXZpbA==\\x07' list.out
shows "  its messages" "'\[n\\\\x1b\[2J" list.err
"$earshot" rooms --rooms lib --json >json.out 2>json.err
clean "earshot rooms --json" json.out json.err
shows "earshot rooms --json" 'd\\u001b\[2J\\u001b\]52;c;ZXZpbA==\\u0007\\u001b\]0;owned\\u0007\\u009b2J\\ufffd\\ufffd' json.out
"$earshot" rooms --rooms lib --show evil >show.out 2>show.err
clean "earshot rooms --show" show.out show.err
shows "earshot rooms --show" 's\\x1b\[2J' show.out
"$earshot" rooms --rooms lib --show evil --json >showj.out 2>showj.err
clean "earshot rooms --show --json" showj.out showj.err
"$earshot" rooms --show "x${evil}.wav" >showf.out 2>showf.err
clean "earshot rooms --show FILE" showf.out showf.err
"$earshot" rooms --show "nothing${evil}" >nothing.out 2>nothing.err
clean "earshot rooms --show a missing name" nothing.out nothing.err
for conf in missing command gain; do
    "$earshot" rooms import-jconvolver "$conf.conf" --name "imp$conf" >imp.out 2>imp.err
    clean "rooms import-jconvolver $conf.conf (refused)" imp.out imp.err
done
"$earshot" render --ir "x${evil}.wav" in.wav "out${evil}.wav" >render.out 2>render.err
clean "render with an IR and an output named with escapes" render.out render.err
"$earshot" play --device null --headless --seconds 0.5 --ir "x${evil}.wav" \
    --record "rec${evil}.wav" >play.out 2>play.err
clean "play with escapes in --ir and --record (refused)" play.out play.err
"$earshot" play --device null --headless --seconds 0.5 --json --rooms lib --room evil \
    >playj.out 2>playj.err
clean "play --json, the library's messages on stderr" playj.out playj.err
shows "play's stderr" 'is not a room name' playj.err
printf 'x%s\nroom nowhere%s\nrecord rec2%s.wav\nrecord\nquit\n' "$evil" "$evil" "$evil" |
    "$earshot" play --device null --headless --seconds 5 --commands --rooms lib \
        >cmd.out 2>cmd.err
clean "play --commands: an unknown command, a missing room, a recording" cmd.out cmd.err

# The workstation: the names are drawn escaped.
if command -v tmux >/dev/null; then
    . "$here/tmux_lib.sh"
    tmux_cleanup_needed=1
    ui_start 120 40 "$earshot" --device null --rooms "$dir/lib" --room evil
    if wait_for 'missing\x1b[2J\x1b]' 10; then
        ok "the workstation's message log shows a file name escaped: $(screen | grep -m1 -o 'missing\\x1b\[2J[^ ]*' | head -c 60)"
    else
        bad "the workstation: the file name not shown escaped"; screen | sed 's/^/    | /'
    fi
    screen | grep -q "room evil |" && ok "the workstation plays the room evil (its file named with escapes)" ||
        bad "the workstation: room evil does not play"
    keys q
    quit_check "q" >/dev/null || bad "q"
    [ ! -s "$tmux_dir/stderr" ] || clean "the workstation's stderr" "$tmux_dir/stderr"
fi
exit $fail
