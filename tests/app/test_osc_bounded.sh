#!/usr/bin/env bash
# The head tracker's OSC listener is bounded and local by default: a
# headless session on the null device with --osc, its JSON report read at
# the end (osc_sender.py makes the packets by hand).
#   1. a flood: bundles timed an hour ahead, each holding /earshot/head with
#      a blob (4 KB, then 60 KB), 2,000 a second for 10 s. The session's
#      resident memory (VmRSS) grows by less than 20 MB: nothing is queued
#      for later. Every message that arrived is counted, refused for its
#      form (a blob is not an angle) and counted early (its bundle timed for
#      later); what the system dropped is said. Then a bundle timed an hour
#      ahead holding /earshot/head 90 is taken at once: the head turns.
#   1b. the workstation at 80 x 24 with --osc: the meters' line names
#      where it listens ("OSC lo:PORT", the loopback) and counts taken,
#      refused and lost ("3/5/0") after three turns and five blobs.
#   2. in a network namespace of the test's own (unshare; lo and a dummy
#      interface, or a veth pair where dummies are not to be had, with
#      10.231.7.1/24), a sender to 10.231.7.1 is not heard by the default
#      listener while one to 127.0.0.1 is; with --osc-bind 0.0.0.0 and
#      --osc-bind 10.231.7.1 it is heard; the same for a command sent from
#      there (/earshot/get: no reply, then a reply). Without unshare or ip, or where
#      the namespace cannot be made, it reports itself skipped (77).
#   test_osc_bounded.sh EARSHOT          1 and 1b (app/osc-bounded)
#   test_osc_bounded.sh EARSHOT local    2 (app/osc-local)
set -u
earshot=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
sender="$here/osc_sender.py"
examples="$here/../../docs/examples"
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; tmux_cleanup; rm -rf "$dir"' EXIT
export XDG_DATA_HOME=$dir/xdg XDG_CONFIG_HOME=$dir/config EARSHOT_WISDOM=off
. "$here/tmux_lib.sh"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
field() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$dir/report.json"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# start [FLAGS...]: a headless session on the null device, its commands
# from the pipe $dir/cmd (fd 3 here: `quit` ends it), its JSON in
# $dir/report.json; $session is its pid. It is listening once it names its
# room: the listener opens before the room.
start() {
    rm -f "$dir/cmd" "$dir/report.json" "$dir/play.err"
    mkfifo "$dir/cmd"
    # AddressSanitizer keeps freed memory in a quarantine (256 MB): what is
    # judged is what earshot holds, so the sanitizer build runs without it.
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
    "$earshot" play --device null --headless --commands --json --seconds 60 "$@" \
        <"$dir/cmd" >"$dir/report.json" 2>"$dir/play.err" &
    session=$!
    pids+=("$session")
    exec 3>"$dir/cmd"
    for _ in $(seq 100); do
        grep -q "room " "$dir/play.err" && return 0
        kill -0 "$session" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}
# finish: quit, and the session's exit status.
finish() {
    echo quit >&3
    exec 3>&-
    wait "$session"
}
free_port() {
    /usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- 2, inside the namespace (the script runs itself there) ----
if [ "${2:-}" = namespace ]; then
    ip link set lo up || exit 77
    if ip link add d0 type dummy 2>/dev/null; then
        dev=d0
    elif ip link add v0 type veth peer name v1 2>/dev/null && ip link set v1 up; then
        dev=v0
    else
        echo "SKIP no dummy or veth interface can be made here"
        exit 77
    fi
    { ip addr add 10.231.7.1/24 dev $dev && ip link set $dev up; } || exit 77
    port=9000
    # heard BIND: the messages the session took of 10 sent to 10.231.7.1
    # (and of 5 to 127.0.0.1 under the default bind): "MESSAGES TAKEN
    # ADDRESS" in $dir/heard.
    heard() {
        echo "- - -" >"$dir/heard"
        if ! start --osc $port ${1:+--osc-bind "$1"}; then
            bad "the session with --osc-bind '$1' did not start: $(cat "$dir/play.err")"
            return
        fi
        /usr/bin/python3 "$sender" yaw 10.231.7.1 $port 30 10
        [ -z "$1" ] && /usr/bin/python3 "$sender" yaw 127.0.0.1 $port 45 5
        # A command from there: answered only where it is heard.
        /usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1])
from earshot_osc import Earshot
import socket
e = Earshot(int(sys.argv[2]), host="10.231.7.1", timeout=1.0)
try:
    print(e.ask("/earshot/get", "block")[0])
except socket.timeout:
    print("none")' "$examples" $port >"$dir/answered"
        sleep 0.3
        finish || bad "the session with --osc-bind '$1' failed: $(cat "$dir/play.err")"
        field '"%d %d %s" % (d["head"]["osc"]["messages"], d["head"]["osc"]["taken"], d["head"]["osc"]["address"])' >"$dir/heard"
        echo " $(cat "$dir/answered")" >>"$dir/heard"
    }
    heard ""
    read -r m t a r <<<"$(tr '\n' ' ' <"$dir/heard")"
    if [ "$m" = 5 ] && [ "$t" = 5 ] && [ "$a" = 127.0.0.1 ] && [ "$r" = none ]; then
        ok "the default bind ($a): 10 sent to 10.231.7.1 ($dev) not heard, nor a command from there (no reply), the 5 to 127.0.0.1 taken"
    else
        bad "the default bind ($a): $m messages, $t taken, a command from 10.231.7.1 answered: $r (want the 5 to 127.0.0.1 alone, no reply)"
    fi
    for bind in 0.0.0.0 10.231.7.1; do
        heard $bind
        read -r m t a r <<<"$(tr '\n' ' ' <"$dir/heard")"
        [ "$m" = 11 ] && [ "$t" = 11 ] && [ "$a" = "$bind" ] && [ "$r" = /earshot/value ] &&
            ok "--osc-bind $bind: the 10 sent to 10.231.7.1 taken, and a command from there answered ($r)" ||
            bad "--osc-bind $bind: $m messages, $t taken, on $a, the command's reply $r (want 11 taken, /earshot/value)"
    done
    exit $fail
fi

# ---- 1. The flood (app/osc-bounded; app/osc-local runs part 2 alone) ----
if [ "${2:-}" != local ]; then
port=$(free_port)
start --osc "$port" || { echo "FAIL the session did not start: $(cat "$dir/play.err")"; exit 1; }
sleep 0.5
before=$(rss_kb "$session")
read -r sent small small_bytes large large_bytes took < <(/usr/bin/python3 "$sender" flood 127.0.0.1 "$port" 10 2000)
sleep 0.5
after=$(rss_kb "$session")
/usr/bin/python3 "$sender" yaw 127.0.0.1 "$port" 90 1 3600
sleep 0.3
finish || bad "the session failed: $(cat "$dir/play.err")"
read -r messages taken form early badp dropped yaw < <(field '" ".join(str(d["head"]["osc"][k]) for k in ("messages", "taken", "bad_form", "early", "bad_packets", "dropped")) + " %g" % d["head"]["yaw"]')
grown=$(( (after - before) / 1024 ))
what="$sent bundles timed an hour ahead in $took s ($small of $small_bytes bytes, $large of $large_bytes)"
if [ $((after - before)) -lt $((20 * 1024)) ] && [ "$sent" -ge 19000 ]; then
    ok "$what: VmRSS $before -> $after kB ($((after - before)) kB grown; less than 20 MB allowed)"
else
    bad "$what: VmRSS $before -> $after kB ($grown MB grown; less than 20 allowed)"
fi
# Each message that arrived was refused for its form and was early; the
# one good bundle after them was taken. UDP on loopback loses what the
# receive buffer cannot hold while the thread is busy: where the system
# keeps a count, what arrived and what it dropped are every packet sent;
# at least half must have arrived.
if [ "$messages" -ge $((sent / 2)) ] && [ "$form" = $((messages - 1)) ] && [ "$taken" = 1 ] &&
    [ "$early" = "$messages" ] && [ "$badp" = 0 ] && [ "$yaw" = 90 ] &&
    { [ "$dropped" = 0 ] || [ $((messages + dropped)) = $((sent + 1)) ]; }; then
    ok "counted: $messages messages of $((sent + 1)) sent, $form refused for their form (a blob), $early early (taken on arrival), $dropped dropped by the system; the bundle timed an hour ahead holding /earshot/head 90 taken at once: yaw $yaw"
else
    bad "counted: messages $messages of $((sent + 1)), taken $taken, bad form $form, early $early, bad packets $badp, dropped $dropped, yaw $yaw (want every message refused for its form but the last, taken: yaw 90)"
fi

# ---- 1b. The screen says where it listens, and what came ----
port=$(free_port)
ui_start 80 24 "$earshot" --device null --osc "$port"
wait_for "OSC lo:$port" 15
/usr/bin/python3 "$sender" yaw 127.0.0.1 "$port" 30 3 >/dev/null
/usr/bin/python3 "$sender" flood 127.0.0.1 "$port" 0.05 100 >/dev/null
check "80 x 24: the meters' line names the address and counts taken/refused/lost" \
    "wait_for 'OSC lo:$port 3/' 5"
keys q
quit_check "q" >/dev/null || check "q quits cleanly" "false"

exit $fail
fi

# ---- 2. Local by default, in a namespace of the test's own ----
if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
    echo "SKIP unshare or ip is missing (util-linux, iproute2)"
    exit 77
fi
[ "$(id -u)" = 0 ] && as=(-n) || as=(-r -n)
unshare "${as[@]}" true 2>/dev/null || {
    echo "SKIP no network namespace can be made here (unshare ${as[*]})"
    exit 77
}
unshare "${as[@]}" "$0" "$earshot" namespace
exit $?
