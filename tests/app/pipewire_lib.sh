# A headless PipeWire for the tests, sourced by them: a session dbus,
# pipewire with a null sink and a null source (no sound card), and
# wireplumber, all under a private XDG_RUNTIME_DIR so that nothing of the
# machine's own session is touched or in the way. pw_start starts them and
# waits until the graph answers; pw_stop stops exactly those processes, by
# the ids pw_start kept. The machine needs no systemd: WirePlumber's
# Bluetooth monitor, the one part that asks logind (and exits, "failed to
# start systemd logind monitor", where /run/systemd/seats does not exist,
# as in a container), is turned off; there is no Bluetooth to play here.
#
#   pw_start DIR [QUANTUM]   DIR: a scratch folder the caller owns
#   pw_stop
pw_pids=()

pw_start() {
    local dir=$1 quantum=${2:-256}
    export XDG_RUNTIME_DIR="$dir/run" XDG_CONFIG_HOME="$dir/config" \
           XDG_STATE_HOME="$dir/state" PIPEWIRE_RUNTIME_DIR="$dir/run"
    mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/pipewire/pipewire.conf.d" "$XDG_STATE_HOME" \
             "$XDG_CONFIG_HOME/wireplumber/bluetooth.lua.d"
    chmod 700 "$XDG_RUNTIME_DIR"
    # The null sink and source: what a sound card's nodes would be. The
    # graph's default quantum is the one asked; clients may ask for others
    # between min and max, as on a desktop.
    cat >"$XDG_CONFIG_HOME/pipewire/pipewire.conf.d/earshot-test.conf" <<CONF
context.properties = {
    default.clock.rate = 48000
    default.clock.quantum = $quantum
    default.clock.min-quantum = 32
    default.clock.max-quantum = 2048
}
context.objects = [
    { factory = adapter
      args = { factory.name = support.null-audio-sink node.name = earshot-test-sink
               node.description = "earshot test sink" media.class = Audio/Sink
               audio.position = [ FL FR ] monitor.channel-volumes = true } }
    { factory = adapter
      args = { factory.name = support.null-audio-sink node.name = earshot-test-source
               node.description = "earshot test source" media.class = Audio/Source/Virtual
               audio.position = [ FL FR ] } }
]
CONF
    # WirePlumber 0.4 (Debian 12) runs this after its own 50-bluez-config.lua
    # and before 90-enable-all.lua, which then leaves the monitor (and its
    # logind module) out.
    echo 'bluez_monitor.enabled = false' \
        >"$XDG_CONFIG_HOME/wireplumber/bluetooth.lua.d/60-earshot-test.lua"
    dbus-daemon --session --nofork --nopidfile --address="unix:path=$XDG_RUNTIME_DIR/bus" \
        >"$dir/dbus.log" 2>&1 &
    pw_pids+=($!)
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
    for _ in $(seq 50); do [ -S "$XDG_RUNTIME_DIR/bus" ] && break; sleep 0.1; done
    pipewire >"$dir/pipewire.log" 2>&1 &
    pw_pids+=($!)
    for _ in $(seq 50); do [ -S "$XDG_RUNTIME_DIR/pipewire-0" ] && break; sleep 0.1; done
    wireplumber >"$dir/wireplumber.log" 2>&1 &
    pw_pids+=($!)
    # Ready when the session manager has picked the default sink; a daemon
    # that exited is said at once, with the end of its log.
    local names=(dbus pipewire wireplumber) p
    for _ in $(seq 200); do
        pw-metadata 0 default.audio.sink 2>/dev/null | grep -q earshot-test-sink && return 0
        for p in 0 1 2; do
            kill -0 "${pw_pids[p]}" 2>/dev/null && continue
            wait "${pw_pids[p]}"
            echo "PipeWire did not come up: ${names[p]} exited (status $?):" \
                 "$(tail -n 5 "$dir/${names[p]}.log")"
            return 1
        done
        sleep 0.1
    done
    echo "PipeWire did not come up in 20 s (no default sink); pipewire: $(tail -n 3 "$dir/pipewire.log")"
    echo "    wireplumber: $(tail -n 3 "$dir/wireplumber.log")"
    return 1
}

pw_stop() {
    local p
    for p in "${pw_pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pw_pids[@]}"; do wait "$p" 2>/dev/null; done
    pw_pids=()
}
