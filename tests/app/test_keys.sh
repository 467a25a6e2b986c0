#!/usr/bin/env bash
# The workstation's keys in a real terminal (tmux), on the null device:
# Esc closes the help at once; the help pages; m shows the message history
# with the first start-up line; ( and ) step the room panel's channel;
# Space toggles BYPASS in the header; a mouse
# click on a room row moves the cursor there, a second click plays it, a
# click on an engine row picks it; Esc on the main screen says how to quit;
# F10 quits with status 0 and a sane terminal.
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

ui_start 80 24 "$earshot" --device null --room concert-hall
# Keys reach the pane at once: tmux waits for no escape sequence.
t set-option -s escape-time 0
wait_for 'Meters' 15 || { echo "FAIL: the workstation did not start"; screen; exit 1; }

# Esc closes the help: timed from the key to the screen without it.
keys '?'
check "?: the help is up" "wait_for 'earshot workstation: keys' 5"
check "the help fits 80x24 in pages; page 1 lists Space" \
    "screen | grep -Eq ' 1/[2-9]' && screen | grep -q 'b Space'"
keys Space
check "Space in the help: the next page, F10 on it" \
    "wait_for ' 2/' 5 && screen | grep -q 'q F10'"
# The meters' definitions come after the keys: on the pages after the
# second, to the last.
last=$(screen | sed -n 's/.* 2\/\([0-9]*\).*/\1/p')
meters=""
for _ in $(seq 3 "${last:-3}"); do
    keys Space
    sleep 0.3
    meters+=$(screen)
done
check "  and the meters defined on the pages after (to page ${last:-?})" \
    "grep -q ' mouse  ' <<<\"\$meters\" && grep -q 'x RT' <<<\"\$meters\" &&
     grep -q 'Msmp/s' <<<\"\$meters\" &&
     grep -q 'a person at the mic hears' <<<\"\$meters\" && grep -q 'runaway' <<<\"\$meters\""
for _ in $(seq 2 "${last:-6}"); do keys PageUp; done
check "PgUp: back to the first page" "wait_for 'b Space' 5"
start=$(now_ms)
keys Escape
gone=""
for _ in $(seq 100); do
    if ! screen | grep -qF 'earshot workstation: keys'; then gone=$(now_ms); break; fi
done
check "Esc closes the help within 0.2 s (took $(( ${gone:-99999} - start )) ms)" \
    "[ -n '$gone' ] && [ $(( ${gone:-99999} - start )) -lt 200 ]"

keys Escape
check "Esc on the main screen says how to quit, and does not" "wait_for 'q or F10 quits' 5"

# The history: every message, from the first start-up line (the room's
# figures, said before the screen came up), each with its time.
keys m
check "m: the message history is up" "wait_for 'Messages: the last' 5"
check "its first line is the first start-up notice, whole" \
    "screen | sed -n 3p | grep -Eq '^ *[0-9:]{8} room concert-hall: [0-9.]+ s, gain'"
check "  and the newest is the last" "screen | grep -q '[0-9] q or F10 quits'"
keys Escape
check "Esc closes the history" "sleep 0.3; ! screen | grep -qF 'Messages: the last'"

# ( and ): the room panel steps through the room's channels, each
# measured as earshot rooms --show measures it (its per-channel T30, which
# differs between the two, and C80).
json=$("$earshot" rooms --show concert-hall --json)
figure() { sed -n "s/.*{\"$1\":{[^}]*\"$2\":\(-*[0-9.]*\).*/\1/p" <<<"$json" |
    awk -v f="$3" '{ printf f, $1 }'; }
shows() { echo "T30 $(figure "$1" t30 %.2f) s .* C80 $(figure "$1" c80 %+.1f) dB"; }
check "the room panel shows channel 1 of 2: $(shows 1)" \
    "wait_for 'ch 1/2' 10 && screen | grep -q '$(shows 1)'"
keys ')'
check "): channel 2 of 2: $(shows 2)" "wait_for 'ch 2/2' 5 && screen | grep -q '$(shows 2)'"
check "  the two channels read differently" "[ '$(shows 1)' != '$(shows 2)' ]"
keys ')'
check "): round to channel 1" "wait_for 'ch 1/2' 5"
keys '('
check "(: back to channel 2" "wait_for 'ch 2/2' 5"

keys Space
check "Space: BYPASS in the header" "wait_for ' BYPASS' 5"
keys Space
check "Space again: BYPASS gone" \
    "for _ in \$(seq 50); do screen | sed -n 2p | grep -q BYPASS || break; sleep 0.1; done;
     ! screen | sed -n 2p | grep -q BYPASS"

# A click (X10 mouse encoding, as ncurses asks tmux for): press and release
# of button 1 at column x, row y, both counted from 0.
click() {
    local x=$1 y=$2
    t send-keys -t ui -H 1b 5b 4d 20 $(printf '%x %x' $((33 + x)) $((33 + y))) \
        1b 5b 4d 23 $(printf '%x %x' $((33 + x)) $((33 + y)))
}
row_of() { screen | grep -n -- "$1" | head -1 | cut -d: -f1; }
y=$(row_of ' vocal-booth')
if [ -z "$y" ]; then
    echo "FAIL: no vocal-booth row in the room list"; fail=1
else
    click 4 $((y - 1))
    check "a click on a room row moves the cursor there" "wait_for '> vocal-booth' 5"
    check "  and plays nothing yet" "! screen | grep -q 'vocal-booth *playing'"
    sleep 0.3 # past the double-click interval: this is a second click
    click 4 $((y - 1))
    check "a second click on the cursor's row plays it" "wait_for 'room vocal-booth |' 8"
fi
y=$(row_of '1 .. cpu-direct\|1    cpu-direct')
if [ -n "$y" ]; then
    click 45 $((y - 1))
    check "a click on an engine row picks it" "wait_for 'engine cpu-direct' 8"
else
    echo "FAIL: no cpu-direct row"; fail=1
fi
y=$(row_of '^.\{41\}[ >~]B ')
if [ -n "$y" ]; then
    click 45 $((y - 1))
    check "a click on the B slot's row plays B" "wait_for '>B ' 8"
else
    echo "FAIL: no B slot row"; fail=1
fi

keys F10
quit_check "F10" || fail=1
exit $fail
