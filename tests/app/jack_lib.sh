# Waiting for a JACK server the test started, sourced by the tests that
# start one. A server answers once jack_lsp (JACK's own client, not
# earshot) lists its system ports: then clients can connect and wire. Not
# `earshot devices | grep JACK`, which "JACK: no server answers" matches
# too, so the test went on before the server was up.
#
#   jack_wait PID LOG [SECONDS]   0 once the server $JACK_DEFAULT_SERVER
#                                 (PID, logging to LOG) answers; 1, saying
#                                 so with its log, when it exited or did
#                                 not answer within SECONDS (default 20)
jack_wait() {
    local pid=$1 log=$2 seconds=${3:-20} i
    for i in $(seq $((seconds * 10))); do
        JACK_NO_START_SERVER=1 jack_lsp 2>/dev/null | grep -qx 'system:playback_1' && return 0
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "FAIL the JACK server ${JACK_DEFAULT_SERVER:-default} exited:"
            sed 's/^/    /' "$log"
            return 1
        fi
        sleep 0.1
    done
    echo "FAIL the JACK server ${JACK_DEFAULT_SERVER:-default} did not answer within $seconds s:"
    sed 's/^/    /' "$log"
    return 1
}

# jack_dummy NAME [OPTION...]: a JACK server of its own for the test that
# sources this, JACK's dummy backend at 48 kHz with a period of 256 (and
# OPTIONs for the backend: -C 4 -P 4 for more ports), named NAME-PID, so
# that nothing else on the machine is touched or in the way. Exports
# JACK_DEFAULT_SERVER (and what keeps libjack from starting or reserving
# another), logs to $dir/jackd.log, sets $jack to its PID (the caller's
# trap ends it) and waits until it answers: 1 when it does not.
jack_dummy() {
    local name=$1
    shift
    export JACK_DEFAULT_SERVER="$name-$$" JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
    jackd --no-realtime -d dummy -r 48000 -p 256 "$@" >"$dir/jackd.log" 2>&1 &
    jack=$!
    jack_wait $jack "$dir/jackd.log"
}

# jack_test_begin NAME [OPTION...]: what a test of earshot under a JACK
# server of its own starts with: jackd there (else FAIL and exit 1), a
# folder $dir (its settings home too: no remembered settings), FFTW wisdom
# off, a trap that ends earshot ($pid, when set), the server and the
# folder, and the server itself (jack_dummy NAME OPTION...; exit 1 when it
# does not answer).
jack_test_begin() {
    command -v jackd >/dev/null ||
        { echo "FAIL: jackd is not installed (scripts/setup --test installs jackd2)"; exit 1; }
    dir=$(mktemp -d)
    export XDG_CONFIG_HOME="$dir" EARSHOT_WISDOM=off
    pid= jack=
    trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; kill $jack 2>/dev/null; wait $jack 2>/dev/null; rm -rf "$dir"' EXIT
    jack_dummy "$@" || exit 1
}

# jack_earshot FIFO OUT ERR PORT ARG...: `earshot play --device jack
# --headless --commands ARG...` ($earshot) in the background ($pid), its
# commands read from FIFO (made here; the caller writes them to fd 3), its
# stdout to OUT and stderr to ERR; returns once PORT (client:port) is in
# the graph, or after 10 s.
jack_earshot() {
    local fifo=$1 out=$2 err=$3 port=$4
    shift 4
    rm -f "$fifo"
    mkfifo "$fifo"
    "$earshot" play --device jack --headless --commands "$@" <"$fifo" >"$out" 2>"$err" &
    pid=$!
    exec 3>"$fifo"
    for _ in $(seq 100); do jack_lsp 2>/dev/null | grep -qx "$port" && break; sleep 0.1; done
}

# no_more_than_control LOST CONTROL: 0 when a server lost no more cycles
# than the control beside it lost in the same minute, within the noise of
# two such counts: on a virtual machine that stops both servers now and
# then, each loses a random number of cycles, and two servers doing the
# same thing differ by about the square root of the count. Three of those
# (a quiet minute, the control losing none, allows none) keep a coin toss
# from failing a minute (a run lost 76, 89 and 106 cycles in three tries
# against a control's 73, 80 and 101), while a server that loses cycles
# of its own loses one every few seconds or more, and far more than that.
no_more_than_control() {
    awk -v lost="$1" -v control="$2" 'BEGIN { exit !(lost <= control + 3 * sqrt(control)) }'
}
