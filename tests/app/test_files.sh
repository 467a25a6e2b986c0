#!/usr/bin/env bash
# Files that never betray the user, as fault injections:
#  - outputs that are not regular files (a copy of /dev/null made with
#    mknod, a FIFO, standard output) are written through as a WAV stream
#    and survive render, --record and --record-input; a link is followed
#    and its target replaced, the link and the target's mode kept;
#  - a recording killed with -9 five seconds in is a valid WAV of at
#    least 4 s (its header is synced twice a second);
#  - nothing blocks: a FIFO as the room, the input, a config or the
#    settings is one line at once; a change held up in the preparer does
#    not hold up quit or SIGTERM (the process ends within 2 s);
#  - /dev/zero and one-line files of 64 MB as a configuration, a manifest
#    or a recipe list: one line, and never more than 50 MB resident;
#  - memory is locked for the audio thread (the GPU libraries left out):
#    no thread takes a page fault in steady play (not in the sanitizer
#    build, which cannot lock its memory).
set -u
. "$(dirname "$0")/cli_lib.sh"
build=${3:-release}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# valid_wav FILE MIN_SECONDS: earshot reads it back as audio of at least
# that long (rooms --show reads any IR file).
seconds_of() { "$earshot" rooms --show "$1" 2>/dev/null | sed -n 's/^[^:]*: \([0-9.]*\) s, .*/\1/p'; }

"$make_wav" ir.wav decay 48000 2 4800
"$make_wav" in.wav noise 48000 2 48000 1 0.3
# cpu-direct: the same bytes on every run, so two renders compare whole.
render() { "$earshot" render --engine cpu-direct --block 256 "$@"; }
render --ir ir.wav in.wav ref.wav >/dev/null || bad "render of the reference"
# same_samples A B: the bytes after each WAV's "data" chunk header are the
# same (a file's header has a PEAK chunk with a time in it, a stream's not).
samples() { tail -c +$(($(grep -obUa -m1 data "$1" | head -1 | cut -d: -f1) + 9)) "$1"; }
same_samples() { cmp -s <(samples "$1") <(samples "$2"); }

# -- render into things that are not regular files
mknod nullcopy c 1 3 2>/dev/null || cp -a /dev/null nullcopy 2>/dev/null
if [ -c nullcopy ]; then
    render --ir ir.wav in.wav nullcopy >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 0 ] && [ -c nullcopy ] && ok "render into a device node (mknod c 1 3): exit 0, still a device" ||
        bad "render into a device node: exit $rc, $(ls -l nullcopy) $(cat err.txt)"
else
    echo "skip render into a device node: mknod is not allowed here"
fi
mkfifo out.fifo
# The reader opens the FIFO half a second after earshot starts, as a
# reader a shell started just before may (a loaded machine once ran
# earshot first, and it said there was no reader): earshot waits for one
# up to ES_FIFO_GRACE_MS. The reader is bounded, so a failure cannot hang
# the test (a reader whose writer never came waits in open() for good).
{ sleep 0.5; timeout 30 cat out.fifo >from_fifo.wav; } &
reader=$!
render --ir ir.wav in.wav out.fifo >/dev/null 2>err.txt
rc=$?
[ $rc -eq 0 ] || kill $reader 2>/dev/null
wait $reader
[ $rc -eq 0 ] && [ -p out.fifo ] && same_samples from_fifo.wav ref.wav &&
    [ "$(seconds_of from_fifo.wav)" = "$(seconds_of ref.wav)" ] &&
    ok "render into a FIFO whose reader opens it 0.5 s later: still a FIFO; the reader got a WAV with the file's samples, $(seconds_of from_fifo.wav) s" ||
    bad "render into a FIFO: exit $rc, $(cat err.txt), $(ls -l out.fifo from_fifo.wav)"
start=$(now)
timeout 10 "$earshot" render --ir ir.wav in.wav out.fifo >/dev/null 2>err.txt
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "no program has the FIFO open for reading" err.txt &&
    ok "render into a FIFO nobody reads: one line in $(since "$start") s: $(cat err.txt)" ||
    bad "render into a FIFO nobody reads: exit $rc: $(cat err.txt)"
render --ir ir.wav in.wav - 2>err.txt | cat >from_stdout.wav
cmp -s from_stdout.wav from_fifo.wav && grep -q -e "^-: .*frames" err.txt &&
    ok "render to -: the same stream on standard output, the summary on stderr" ||
    bad "render to -: $(cat err.txt)"
render --ir ir.wav --format pcm16 in.wav - 2>/dev/null | head -c 1000 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 1 ] && ok "render to a pipe closed early: exit 1 (a write error), not a signal" ||
    bad "render to a pipe closed early: exit $rc"
printf 'old' >target.wav
chmod 600 target.wav
ln -s target.wav link.wav
render --ir ir.wav in.wav link.wav >/dev/null 2>err.txt
[ -L link.wav ] && [ "$(readlink link.wav)" = target.wav ] && [ "$(stat -c %a target.wav)" = 600 ] &&
    same_samples target.wav ref.wav &&
    ok "render through a link: the link kept, its target replaced whole, mode 600 kept" ||
    bad "render through a link: $(ls -l link.wav target.wav) $(cat err.txt)"
ln -s in.wav in-link.wav
cp in.wav in.copy
render --ir ir.wav in.wav in-link.wav >/dev/null 2>err.txt
[ $? -ne 0 ] && grep -q "would overwrite an input" err.txt && cmp -s in.wav in.copy &&
    ok "render onto the input through a link: refused, $(cat err.txt)" ||
    bad "render onto the input through a link: $(cat err.txt)"

# -- recordings into things that are not regular files
if [ -c nullcopy ]; then
    "$earshot" play --device null --ir ir.wav --headless --seconds 1 --record nullcopy \
        >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 0 ] && [ -c nullcopy ] && ok "--record into a device node: exit 0, still a device" ||
        bad "--record into a device node: exit $rc $(cat err.txt)"
fi
mkfifo rec.fifo dry.fifo
timeout 30 cat rec.fifo >rec_from_fifo.wav &
r1=$!
timeout 30 cat dry.fifo >dry_from_fifo.wav &
r2=$!
"$earshot" play --device null --ir ir.wav --input in.wav --headless --seconds 1.5 \
    --record rec.fifo --record-input dry.fifo >/dev/null 2>err.txt
rc=$?
[ $rc -eq 0 ] || kill $r1 $r2 2>/dev/null
wait $r1 $r2
rec_s=$(seconds_of rec_from_fifo.wav)
dry_s=$(seconds_of dry_from_fifo.wav)
[ $rc -eq 0 ] && [ -p rec.fifo ] && [ -p dry.fifo ] &&
    awk -v a="$rec_s" -v b="$dry_s" 'BEGIN { exit !(a >= 1.2 && b >= 1.2) }' &&
    ok "--record and --record-input into FIFOs: still FIFOs; the readers got WAV streams of $rec_s and $dry_s s" ||
    bad "--record into FIFOs: exit $rc, '$rec_s' '$dry_s' s: $(cat err.txt)"

# -- kill -9 five seconds into a recording
"$earshot" play --device null --ir ir.wav --headless --seconds 60 --record killed.wav \
    >/dev/null 2>err.txt &
player=$!
pids+=("$player")
for _ in $(seq 200); do [ -s killed.wav ] && break; sleep 0.05; done
sleep 5
kill -9 "$player"
wait "$player" 2>/dev/null
killed_s=$(seconds_of killed.wav)
awk -v s="${killed_s:-0}" 'BEGIN { exit !(s >= 4) }' &&
    ok "kill -9 five seconds into a recording: a valid WAV of $killed_s s" ||
    bad "kill -9 five seconds into a recording: '$killed_s' s ($(ls -l killed.wav 2>&1))"

# -- nothing blocks
mkfifo room.fifo
start=$(now)
{ echo "room $dir/room.fifo"; sleep 0.3; echo quit; } |
    timeout 20 "$earshot" play --device null --ir ir.wav --headless --seconds 30 --commands \
        >/dev/null 2>err.txt
rc=$?
took=$(since "$start")
[ $rc -eq 0 ] && grep -q "room.fifo: a FIFO, not a regular file" err.txt &&
    awk -v t="$took" 'BEGIN { exit !(t < 2.3) }' &&
    ok "a FIFO as the room, then quit: said, and the process ended $took s after it started" ||
    bad "a FIFO as the room, then quit: exit $rc in $took s: $(cat err.txt)"
for what in "--ir room.fifo" "--ir ir.wav --input room.fifo"; do
    start=$(now)
    # shellcheck disable=SC2086
    timeout 20 "$earshot" play --device null $what --headless --seconds 5 >/dev/null 2>err.txt
    rc=$?
    [ $rc -ge 1 ] && [ $rc -le 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] &&
        grep -q "a FIFO, not a regular file" err.txt &&
        ok "play $what: one line in $(since "$start") s: $(cat err.txt)" ||
        bad "play $what: exit $rc: $(cat err.txt)"
done
mkdir -p "$XDG_CONFIG_HOME/earshot"
mkfifo "$XDG_CONFIG_HOME/earshot/workstation.conf"
timeout 20 "$earshot" play --device null --ir ir.wav --headless --seconds 0.5 --restore \
    >/dev/null 2>err.txt
rc=$?
grep -q "a FIFO, not a regular file) in .*workstation.conf" err.txt && [ $rc -ne 124 ] &&
    ok "a FIFO as the settings file: said, no hang: $(grep FIFO err.txt)" ||
    bad "a FIFO as the settings file: exit $rc: $(cat err.txt)"
rm -f "$XDG_CONFIG_HOME/earshot/workstation.conf"
mkdir "$XDG_CONFIG_HOME/earshot/workstation.conf"
timeout 20 "$earshot" play --device null --ir ir.wav --headless --seconds 0.5 --restore \
    >/dev/null 2>err.txt
grep -q "a folder, not a regular file) in .*workstation.conf" err.txt &&
    ok "a folder as the settings file: said: $(grep folder err.txt)" ||
    bad "a folder as the settings file: not said: $(cat err.txt)"
rmdir "$XDG_CONFIG_HOME/earshot/workstation.conf"

# A change held up in the preparer (as by a share that stopped answering)
# holds up neither quit nor SIGTERM.
start=$(now)
{ sleep 0.3; echo "room cathedral"; sleep 0.3; echo quit; } |
    EARSHOT_TEST_PREPARE_STALL=30 timeout 30 "$earshot" play --device null --headless \
        --seconds 30 --commands >/dev/null 2>err.txt
rc=$?
took=$(since "$start")
quit_at=0.6
[ $rc -eq 0 ] && grep -q "stopped without waiting for the preparation under way (room cathedral)" err.txt &&
    awk -v t="$took" -v q="$quit_at" 'BEGIN { exit !(t - q < 2) }' &&
    ok "a change stuck in the preparer, then quit: ended $(awk -v t="$took" -v q="$quit_at" 'BEGIN { printf "%.2f", t - q }') s after quit" ||
    bad "a change stuck in the preparer, then quit: exit $rc, $took s: $(cat err.txt)"
mkfifo cmds.fifo
EARSHOT_TEST_PREPARE_STALL=30 "$earshot" play --device null --headless --seconds 30 --commands \
    <cmds.fifo >/dev/null 2>err.txt &
player=$!
pids+=("$player")
exec 3>cmds.fifo
sleep 0.5
echo "room cathedral" >&3
sleep 0.3
start=$(now)
kill -TERM "$player"
wait "$player"
rc=$?
took=$(since "$start")
exec 3>&-
[ $rc -eq 0 ] && awk -v t="$took" 'BEGIN { exit !(t < 2) }' &&
    ok "a change stuck in the preparer, then SIGTERM: exit 0, $took s after it" ||
    bad "a change stuck in the preparer, then SIGTERM: exit $rc, $took s: $(cat err.txt)"

# -- unbounded input: /dev/zero and one-line files of 64 MB
head -c $((64 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >oneline.txt
mkdir -p lib
ln -s ../oneline.txt lib/rooms.txt
# peak MB COMMAND...: the command's peak resident memory, in MB (GNU time).
peak() { /usr/bin/time -f %M -o peak.txt "$@" >out.txt 2>err.txt; echo $(($(tail -1 peak.txt) / 1024)); }
for case in "import-jconvolver /dev/zero|a character device" \
            "import-jconvolver oneline.txt|a line longer than" \
            "build-shipped /dev/zero $dir/built|a character device" \
            "build-shipped oneline.txt $dir/built|a line longer than"; do
    args=${case%%|*} want=${case##*|}
    # shellcheck disable=SC2086
    mb=$(peak timeout 60 "$earshot" rooms $args)
    lines=$(wc -l <err.txt)
    [ "$lines" -eq 1 ] && grep -q "$want" err.txt && [ "$mb" -lt 50 ] &&
        ok "rooms $args: one line, $mb MB at most: $(cat err.txt)" ||
        bad "rooms $args: $lines lines, $mb MB: $(head -c 300 err.txt)"
done
[ ! -e built/rooms.txt ] && ok "build-shipped of a bad list wrote no manifest" ||
    bad "build-shipped of a bad list wrote $(ls built)"
mb=$(peak timeout 60 "$earshot" rooms --rooms lib)
grep -q "rooms.txt:1: a line longer than" err.txt && [ "$mb" -lt 50 ] &&
    ok "a manifest of one 64 MB line: said, $mb MB at most: $(grep -m1 'rooms.txt' err.txt)" ||
    bad "a manifest of one 64 MB line: $mb MB: $(head -c 300 err.txt)"
rm lib/rooms.txt
ln -s /dev/zero lib/rooms.txt
mb=$(peak timeout 60 "$earshot" rooms --rooms lib)
grep -q "rooms.txt: a character device" err.txt && [ "$mb" -lt 50 ] &&
    ok "/dev/zero as a manifest: said, $mb MB at most: $(grep -m1 'rooms.txt' err.txt)" ||
    bad "/dev/zero as a manifest: $mb MB: $(head -c 300 err.txt)"

# The workstation: q, and SIGTERM, while a change is stuck in the preparer:
# the process ends within 2 s and the terminal is given back.
. "$here/tmux_lib.sh"
trap 'tmux_cleanup; for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
for how in q TERM; do
    rm -f "$XDG_CONFIG_HOME/earshot/workstation.conf"
    ui_start 100 30 env EARSHOT_TEST_PREPARE_STALL=30 "$earshot" --device null --no-restore
    wait_for "r:record" 15 || bad "workstation ($how): did not start"
    keys Up Enter # the room above the one playing: stuck in the preparer
    sleep 0.5
    start=$(now)
    if [ $how = q ]; then
        keys q
    else
        pkill -TERM -x -P "$(t list-panes -t ui -F '#{pane_pid}')" earshot
    fi
    if wait_for "MODES-SHOWN" 5; then
        took=$(since "$start")
        s=$(screen)
        grep -q "EXIT=0" <<<"$s" && grep -qx "icanon" <<<"$s" && grep -qx "echo" <<<"$s" &&
            grep -q "stopped without waiting for the preparation under way" "$tmux_dir/stderr" &&
            awk -v t="$took" 'BEGIN { exit !(t < 2) }' &&
            ok "workstation, a change stuck, then $how: ended within $took s, terminal sane" ||
            bad "workstation, a change stuck, then $how: $took s: $(grep -E 'EXIT|icanon|echo' <<<"$s" | tr '\n' ' ')"
    else
        bad "workstation, a change stuck, then $how: still running after 5 s"
    fi
done
# SIGQUIT (Ctrl-\) dumps core as it always did, with the terminal given
# back first.
ui_start 100 30 sh -c "ulimit -c 0; exec '$earshot' --device null --no-restore"
if wait_for "r:record" 15; then
    pkill -QUIT -x -P "$(t list-panes -t ui -F '#{pane_pid}')" earshot
    wait_for "MODES-SHOWN" 5
    s=$(screen)
    grep -q "EXIT=131" <<<"$s" && grep -qx "icanon" <<<"$s" && grep -qx "echo" <<<"$s" &&
        ok "workstation, SIGQUIT: the terminal sane (icanon, echo), then the signal's exit (131)" ||
        bad "workstation, SIGQUIT: $(grep -E 'EXIT|icanon|echo' <<<"$s" | tr '\n' ' ')"
else
    bad "workstation for SIGQUIT: did not start"
fi

# The workstation's --report into a device node and a FIFO nobody reads:
# both stay what they are; the FIFO is said, not waited on.
mkfifo report.fifo
for target in nullcopy report.fifo; do
    [ -e "$target" ] || continue
    ui_start 100 30 "$earshot" --device null --no-restore --seconds 1 --report "$dir/$target"
    if wait_for "MODES-SHOWN" 15 && screen | grep -q "EXIT=0"; then
        { [ -c "$dir/$target" ] || [ -p "$dir/$target" ]; } &&
            { [ "$target" = nullcopy ] || grep -q "no program has the FIFO open" "$tmux_dir/stderr"; } &&
            ok "workstation --report $target: exit 0, still $(stat -c %F "$dir/$target")$([ "$target" = nullcopy ] || echo ", said: $(cat "$tmux_dir/stderr")")" ||
            bad "workstation --report $target: $(ls -l "$dir/$target") $(cat "$tmux_dir/stderr")"
    else
        bad "workstation --report $target: did not end: $(screen | tail -3)"
    fi
done

# -- locked memory: steady play takes no page fault on any thread
if [ "$build" != sanitized ]; then
    "$earshot" play --device null --ir ir.wav --headless --seconds 6 >/dev/null 2>err.txt &
    player=$!
    pids+=("$player")
    sleep 2
    faults() { awk '{ print $10 + $12 }' "/proc/$player/stat"; }
    before=$(faults)
    sleep 3
    after=$(faults)
    threads=$(ls "/proc/$player/task" | wc -l)
    # Every thread earshot started but the preparer, which builds streams
    # (the first one too) and takes page faults doing it, off the audio path.
    late=$(for t in /proc/"$player"/task/*; do
               [ "${t##*/}" = "$player" ] || [ "$(cat "$t/comm")" = es-preparer ] ||
                   awk '{ print $10 + $12 }' "$t/stat"; done |
           awk '{ s += $1 } END { print s + 0 }')
    wait "$player"
    [ "$before" = "$after" ] && [ "$late" -eq 0 ] && ! grep -q "not locked\|not all locked" err.txt &&
        ok "memory locked: no page fault in 3 s of steady play; none on the $((threads - 2)) threads earshot started on the audio path, ever" ||
        bad "page faults in steady play: $before -> $after, $late on the threads earshot started: $(cat err.txt)"
fi
exit $fail
