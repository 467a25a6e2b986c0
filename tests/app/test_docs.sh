#!/usr/bin/env bash
# The docs run: every command in README.md and docs/*.md that a user can
# copy is run here, as Python runs its doctests, and its output checked
# where the doc shows one. What a fenced block's info string says:
#
#   ```sh            commands: run in one bash, each must succeed
#   ```sh jack       the same on a JACK server (the dummy backend) the test
#                    starts; what a block starts in the background is
#                    stopped when it ends
#   ```sh screen     the workstation: started in tmux at 80x24, it must
#                    come up (its meters drawn), then q
#   ```console       "$ command" lines, each followed by what it prints:
#                    run, and the lines compared (in any order, stdout and
#                    stderr together), each number within 2 % (or 0.05); a
#                    line "..." stands for lines the doc leaves out
#   ```console approx  the same with every number aside (loads, times)
#   ```console any   run, its output this machine's: not compared
#   ```text          not a command (a synopsis, a file, a screen)
#   ```sh TAG        not run here, TAG says why: ci (the README's two
#                    commands: CI runs one, app/first-hour the other),
#                    root (changes the system), gpu (needs an NVIDIA GPU:
#                    scripts/gpu-check runs those), long (a measurement of
#                    minutes), hosts (several machines)
#
# The commands run in a folder of their own holding the files the docs use:
# in.wav (a sound file: speech from espeak-ng, 22.05 kHz mono) and
# my-hall.wav (a user's own IR: stereo noise, 0.25 rms, T60 1.2 s) and
# docs/examples' OSC clients (earshot_osc.py, subject.py), with
# `earshot` on PATH (the build's), its rooms, settings and wisdom in the
# folder too. Prints a line per block and the count of commands run and
# not run, by why.
#
#   test_docs.sh EARSHOT MAKE_WAV [DOC...]
set -u
earshot=$(realpath "$1")
make_wav=$(realpath "$2")
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/app"
docs=()
for d in "$@"; do docs+=("$(realpath "$d")"); done
[ ${#docs[@]} -gt 0 ] || docs=("$top/README.md" "$top"/docs/*.md)
work=$(mktemp -d)
jack_name=earshot-docs-$$
cleanup() {
    pkill -f "jackd -n $jack_name" 2>/dev/null
    for socket in "$work"/tmux*; do tmux -S "$socket" kill-server 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin" "$work/run"
ln -s "$earshot" "$work/bin/earshot"
export PATH="$work/bin:$PATH" XDG_DATA_HOME="$work/xdg" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache" EARSHOT_WISDOM=off HOME="$work/home" LANG=C
mkdir -p "$HOME"
cd "$work/run" || exit 1
espeak-ng -w in.wav "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background." ||
    { echo "FAIL: espeak-ng made no in.wav (scripts/setup --test installs it)"; exit 1; }
"$make_wav" my-hall.wav decay 48000 2 57600 7 0.866 >/dev/null
# The example OSC clients, as docs/EXPERIMENTS.md has a reader copy them.
cp "$top"/docs/examples/*.py .

fail=0 run=0 blocks=0
declare -A skipped=()

jack_up=0
start_jack() {
    [ $jack_up = 1 ] && return 0
    jackd -n "$jack_name" -d dummy -r 48000 -p 256 >"$work/jackd.log" 2>&1 &
    for _ in $(seq 50); do
        JACK_DEFAULT_SERVER=$jack_name jack_lsp >/dev/null 2>&1 && { jack_up=1; return 0; }
        sleep 0.1
    done
    echo "FAIL: jackd -d dummy did not start: $(tail -3 "$work/jackd.log")"
    return 1
}

# run_sh WHERE TAG FILE: the block's commands in one bash (its own process
# group: what it starts in the background goes with it), 120 s at most.
run_sh() {
    local where=$1 tag=$2 script=$3 env=() rc
    [ "$tag" = jack ] && { start_jack || { fail=1; return; }; env=(JACK_DEFAULT_SERVER=$jack_name); }
    rm -f "$work/session"
    env "${env[@]}" timeout -k 5 120 setsid bash -c 'echo $$ >"$1"; exec bash -e "$2"' \
        block "$work/session" "$script" >"$work/out" 2>&1
    rc=$?
    # What it left running (a jconvolver it started in the background).
    [ -s "$work/session" ] && pkill -s "$(cat "$work/session")" 2>/dev/null
    if [ $rc = 0 ]; then
        echo "ok   $where: $(grep -c . "$script") line(s) ran"
    else
        echo "FAIL $where: exit $rc"
        sed 's/^/    | /' "$script"
        tail -15 "$work/out" | sed 's/^/    > /'
        fail=1
    fi
}

# run_screen WHERE FILE: each command in the workstation, up within 40 s
# (a large binaural room is built first, and other tests may share the
# cores: how fast the first screen comes is app/big-library's verdict).
run_screen() {
    local where=$1 script=$2 cmd socket
    while IFS= read -r cmd; do
        cmd=${cmd%%#*}
        [ -n "${cmd// /}" ] || continue
        # A server of its own for each: a new session on the socket of one
        # just killed can meet it still going away ("server exited
        # unexpectedly", twice in fresh roots), and the command never ran.
        [ -n "${socket:-}" ] && tmux -S "$socket" kill-server 2>/dev/null
        screens=$((${screens:-0} + 1))
        socket="$work/tmux$screens"
        tmux -S "$socket" -f /dev/null new-session -d -s doc -x 80 -y 24 \
            "cd '$work/run' && $cmd --device null 2>'$work/screen-err'; echo EXIT=\$?; sleep 60"
        local up=0
        for _ in $(seq 400); do
            tmux -S "$socket" capture-pane -p -t doc 2>/dev/null | grep -q 'Meters' && { up=1; break; }
            sleep 0.1
        done
        tmux -S "$socket" send-keys -t doc q
        # Gone before the next starts: its ports (an --osc port) are free.
        for _ in $(seq 100); do
            tmux -S "$socket" capture-pane -p -t doc 2>/dev/null | grep -q 'EXIT=' && break
            sleep 0.1
        done
        if [ $up = 1 ]; then
            echo "ok   $where: $cmd: the workstation came up"
        else
            echo "FAIL $where: $cmd: no workstation within 40 s"
            tmux -S "$socket" capture-pane -p -t doc | sed 's/^/    | /'
            fail=1
        fi
    done <"$script"
    [ -n "${socket:-}" ] && tmux -S "$socket" kill-server 2>/dev/null
}

# same EXPECTED ACTUAL MODE: the lines alike in any order; numbers within
# 2 % or 0.05 (exact), or aside (approx).
same() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys
want, got, mode = open(sys.argv[1]).read().split('\n'), open(sys.argv[2]).read().split('\n'), sys.argv[3]
num = re.compile(r'[-+]?\d+(?:\.\d+)?')
def shape(l): return num.sub('#', l.rstrip())
def close(a, b):
    if mode == 'approx': return True
    fa, fb = num.findall(a), num.findall(b)
    return len(fa) == len(fb) and all(abs(float(x) - float(y)) <= max(0.05, 0.02 * abs(float(x)))
                                      for x, y in zip(fa, fb))
# A line "..." in the doc: lines left out there (this machine's own).
some = any(l.strip() == '...' for l in want)
want = [l for l in want if l.strip() and l.strip() != '...']
got = [l for l in got if l.strip()]
left = list(got)
bad = []
for w in want:
    hit = next((g for g in left if shape(g) == shape(w) and close(w, g)), None)
    if hit is None:
        bad.append(w)
    else:
        left.remove(hit)
for w in bad: print('    missing: ' + w)
if not some:
    for g in left: print('    extra:   ' + g)
sys.exit(1 if bad or (left and not some) else 0)
PY
}

# run_console WHERE MODE FILE: "$ cmd" then its lines, each command run.
run_console() {
    local where=$1 mode=$2 file=$3 k=0
    awk -v dir="$work" '/^\$ / { k++; sub(/^\$ /, ""); print > (dir "/cmd." k); next }
                          { print > (dir "/want." k) }' "$file"
    for cmd in "$work"/cmd.*; do
        k=${cmd##*.}
        : >>"$work/want.$k"
        bash "$cmd" >"$work/got" 2>&1
        local rc=$?
        if [ $rc != 0 ]; then
            echo "FAIL $where: exit $rc: $(cat "$cmd")"
            sed 's/^/    > /' "$work/got" | tail -10
            fail=1
        elif [ "$mode" = any ] || same "$work/want.$k" "$work/got" "$mode" >"$work/diff"; then
            echo "ok   $where: $(cat "$cmd")"
        else
            echo "FAIL $where: $(cat "$cmd") prints other lines than the doc shows:"
            cat "$work/diff"
            fail=1
        fi
    done
    rm -f "$work"/cmd.* "$work"/want.*
}

for doc in "${docs[@]}"; do
    name=${doc#"$top/"}
    # Each document from a user's first start: its own rooms and settings.
    export XDG_DATA_HOME="$work/xdg/$name" XDG_CONFIG_HOME="$work/config/$name"
    # Each fenced block: its first line's info string, its text, its line.
    awk -v dir="$work" -v doc="$name" '
        /^```/ && !open { open = 1; n++; info = substr($0, 4); start = FNR
                          printf "%s\t%d\t%s\n", doc, start, info > (dir "/block." n ".info"); next }
        /^```$/ && open { open = 0; next }
        open { print > (dir "/block." n) }' "$doc"
    for info in "$work"/block.*.info; do
        [ -e "$info" ] || continue
        body=${info%.info}
        IFS=$'\t' read -r _ line spec <"$info"
        read -r lang tag _ <<<"$spec"
        where="$name:$line"
        : >>"$body"
        case "$lang" in
        sh)
            blocks=$((blocks + 1))
            case "${tag:-}" in
            "" | jack) run=$((run + $(grep -cv '^\s*\(#.*\)\?$' "$body"))); run_sh "$where" "${tag:-}" "$body" ;;
            screen) run=$((run + $(grep -cv '^\s*\(#.*\)\?$' "$body"))); run_screen "$where" "$body" ;;
            ci | root | gpu | long | hosts)
                skipped[$tag]=$((${skipped[$tag]:-0} + $(grep -cv '^\s*\(#.*\)\?$' "$body"))) ;;
            *) echo "FAIL $where: \`\`\`sh $tag: not a tag this test knows"; fail=1 ;;
            esac ;;
        console)
            blocks=$((blocks + 1))
            run=$((run + $(grep -c '^\$ ' "$body")))
            run_console "$where" "${tag:-exact}" "$body" ;;
        esac
        rm -f "$body" "$info"
    done
done
not=""
for tag in "${!skipped[@]}"; do not+=" $tag ${skipped[$tag]},"; done
echo "$run commands run from $blocks blocks in ${#docs[@]} documents; not run:${not%,}"
[ "$run" -ge 20 ] || { echo "FAIL: fewer than 20 commands run: are the docs' blocks tagged?"; fail=1; }
[ $fail = 0 ] && echo PASSED || echo FAILED
exit $fail
