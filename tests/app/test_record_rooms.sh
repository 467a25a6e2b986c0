#!/usr/bin/env bash
# A recording never replaces a room (rooms/library_owns.c). A take
# replaces its file when it starts, and an adversarial pass recorded over
# the playing library room: the concert hall became ten seconds of the
# stream. Each case is the fault itself, and each is one line, exit 1,
# and the room's bytes unchanged:
#  - the playing room's file (`--record`), a shipped room's, another
#    library's (`--rooms L`) room through `--commands`' `record`, a link
#    to a room and another spelling of its path, the manifest;
#  - none says that the device "stopped answering" first.
# A new file in the folder the session runs in records as before.
set -u
. "$(dirname "$0")/cli_lib.sh"

"$make_wav" a.wav room 48000 2 24000 1 0.5
"$make_wav" b.wav room 48000 2 24000 2 0.5
mkdir -p L shipped
"$earshot" rooms add a.wav --name r2 >/dev/null || bad "rooms add r2"
for r in r4 r5; do "$make_wav" "$r.wav" room 48000 2 24000 3 0.5; done
# r6's file lies outside its library's folder.
"$make_wav" outside.wav room 48000 2 24000 4 0.5
printf '[r4]\nfile = r4.wav\n\n[r5]\nfile = r5.wav\n\n[r6]\nfile = %s/outside.wav\n' "$dir" \
    >L/rooms.txt
mv r4.wav r5.wav L/
cp b.wav shipped/hall.wav
printf '[hall]\nfile = hall.wav\n' >shipped/rooms.txt
export EARSHOT_SHIPPED_ROOMS=$dir/shipped
ln -s "$user/r2.wav" link-to-r2.wav
sums() { md5sum "$user"/* L/* shipped/* outside.wav | md5sum; }
before=$(sums)

play() { "$earshot" play --device null --headless --seconds 1 "$@"; }
refused "the playing room's file" "r2.wav: the recording would overwrite" -- \
    play --room r2 --record "$user/r2.wav"
grep -q "stopped answering" err.txt && bad "a refused recording said the device stopped first"
refused "a shipped room's file" "hall.wav: the recording would overwrite .*room library" -- \
    play --room r2 --record shipped/hall.wav
refused "another library's room, spelt through .." "would overwrite" -- \
    play --rooms L --room r4 --record "L/../L/r5.wav"
refused "a link to the room" "link-to-r2.wav: the recording would overwrite" -- \
    play --rooms L --room r4 --record link-to-r2.wav
refused "a room's file outside its folder" "outside.wav: the recording would overwrite room r6's file" -- \
    play --rooms L --room r4 --record outside.wav
refused "the manifest" "rooms.txt: the recording would overwrite" -- \
    play --rooms L --room r4 --record-input L/rooms.txt

# Through --commands: refused in the session's messages, and it plays on.
printf 'record L/r4.wav\nrecord %s/r2.wav\nrecord fresh.wav\n' "$user" |
    "$earshot" play --device null --headless --commands --seconds 2 --rooms L --room r5 \
        >out.txt 2>err.txt
rc=$?
refusals=$(grep -c "record: .*the recording would overwrite" err.txt)
if [ $rc -eq 0 ] && [ "$refusals" -eq 2 ] && [ -s fresh.wav ]; then
    ok "--commands: 2 refused, fresh.wav recorded, exit 0"
else
    bad "--commands: exit $rc, $refusals refused, fresh.wav $(stat -c %s fresh.wav 2>/dev/null): $(head -c 400 err.txt)"
fi
[ "$(sums)" = "$before" ] && ok "every room's bytes unchanged" ||
    bad "a room's file changed: $(md5sum "$user"/* L/* shipped/*)"
exit $fail
