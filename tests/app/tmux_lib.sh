# Driving the workstation in tmux, for the UI tests: a private tmux server
# (its own socket), a pane of a given size running earshot, and helpers that
# read the screen (capture-pane), wait for text, and check how earshot left
# the terminal. Source it; it sets $tmux_dir and cleans up on exit.
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (scripts/setup --test installs it)"; exit 1; }
tmux_dir=$(mktemp -d)
tmux_socket="$tmux_dir/socket"
t() { tmux -S "$tmux_socket" "$@"; }
tmux_cleanup() { t kill-server 2>/dev/null; rm -rf "$tmux_dir"; }

# tmux_fresh: the last server killed, and a new socket for the next: a
# server still going down after kill-server once took the new session with
# it ("server exited unexpectedly").
tmux_fresh() {
    t kill-server 2>/dev/null || true
    tmux_starts=$((${tmux_starts:-0} + 1))
    tmux_socket="$tmux_dir/socket.$tmux_starts"
}

# ui_start COLS LINES ARGS...: earshot ARGS in a new pane; when it exits the
# pane prints its status and the terminal's modes, then stays open. Its
# stderr goes to a file, or with ui_stderr_to_pane=1 to the pane, as a
# terminal's would: then any text a library prints there and earshot does
# not capture shows up on the screen.
ui_start() {
    local cols=$1 lines=$2
    shift 2
    local stderr="2>'$tmux_dir/stderr'"
    [ "${ui_stderr_to_pane:-0}" = 1 ] && stderr=""
    tmux_fresh
    printf '%q ' "$@" >"$tmux_dir/cmd"
    # TERM inside tmux is tmux's; LANG keeps the screen ASCII and stable.
    # The workstation remembers its settings: never in the real home, and
    # each start clean unless the test keeps a folder in XDG_CONFIG_HOME.
    local config=${XDG_CONFIG_HOME:-$(mktemp -d "$tmux_dir/config.XXXXXX")}
    t -f /dev/null new-session -d -s ui -x "$cols" -y "$lines" \
        "cd '$tmux_dir' && LANG=C XDG_CONFIG_HOME='$config' $(cat "$tmux_dir/cmd") $stderr; echo EXIT=\$?; stty -a | tr ' ;' '\n\n' | grep -E -x -- '-?(icanon|echo)'; echo MODES-SHOWN; sleep 600"
}

screen() { t capture-pane -p -t ui 2>/dev/null; }

# ui_pid: the process id of the earshot ui_start started (the pane's
# shell's child), not whichever earshot started last on the machine.
ui_pid() { pgrep -P "$(t display-message -p -t ui '#{pane_pid}')" -x earshot; }

# check WHAT CONDITION: says ok or FAIL (with the screen) and sets fail=1.
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; screen | sed 's/^/    | /'; fail=1; fi; }

# wait_for TEXT [SECONDS]: 0 once the screen shows TEXT (a fixed string).
wait_for() {
    local i
    for i in $(seq $((${2:-10} * 10))); do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    return 1
}

keys() { t send-keys -t ui "$@"; }

# quit_check HOW: after q or Ctrl-C, the pane must show exit 0 and a
# terminal back in canonical mode with echo.
quit_check() {
    if ! wait_for "MODES-SHOWN" 15; then
        echo "FAIL $1: earshot did not exit"; screen; return 1
    fi
    local s; s=$(screen)
    if grep -q "EXIT=0" <<<"$s" && grep -qx "icanon" <<<"$s" && grep -qx "echo" <<<"$s"; then
        echo "ok   $1: exit 0, terminal sane (icanon, echo)"
        return 0
    fi
    echo "FAIL $1:"; echo "$s"; cat "$tmux_dir/stderr"; return 1
}
