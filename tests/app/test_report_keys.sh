#!/usr/bin/env bash
# The JSON report's keys stay what scripts read: play --json and the
# workstation's --report (with both A/B slots played) give exactly the key
# paths in report_keys.txt, each present, none new ('?' keys: only with a
# GPU split). A key added or renamed must be added here and listed in the
# README's "play --json" section.
set -u
earshot=$(realpath "$1")
json_keys=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
want="$here/report_keys.txt"
. "$here/tmux_lib.sh"
trap tmux_cleanup EXIT
export XDG_CONFIG_HOME="$tmux_dir/xdg" EARSHOT_WISDOM=off

# compare NAME FILE: FILE's keys against the list.
compare() {
    local got="$tmux_dir/got.txt"
    if ! "$json_keys" <"$2" | sort -u >"$got"; then
        echo "FAIL $1: not one JSON object"; head -c 300 "$2"; fail=1; return
    fi
    local new missing
    new=$(grep -v '^#' "$want" | sed 's/^?//' | sort -u | comm -13 - "$got")
    missing=$(grep -v '^[#?]' "$want" | sort -u | comm -23 - "$got")
    check "$1: no key that report_keys.txt lacks${new:+ (new: $(echo $new))}" "[ -z '$new' ]"
    check "$1: every key of report_keys.txt${missing:+ (missing: $(echo $missing))}" "[ -z '$missing' ]"
}

printf 'slot b\nroom cathedral\n' |
    "$earshot" play --headless --json --seconds 2 --device null --commands >"$tmux_dir/play.json" 2>/dev/null
compare "play --json" "$tmux_dir/play.json"

ui_start 100 30 "$earshot" --device null --report "$tmux_dir/ui.json"
wait_for 'block 256  latency' 15
keys Tab
wait_for 'slot B plays' 10
keys q
quit_check "q" || fail=1
compare "the workstation's --report" "$tmux_dir/ui.json"
exit $fail
