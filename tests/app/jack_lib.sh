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
