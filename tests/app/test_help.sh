#!/usr/bin/env bash
# Every --help: exits 0, prints to stdout, has no printf slip ("%%" left in
# a text printed as it is), and where it takes --engine it names every
# engine of the registry (earshot engines lists them). Where it takes
# --device it lists the names a device is asked for by (auto, null, ...),
# the same list in each: the device layer's. A bad option exits non-zero
# with one line naming it.
set -u
earshot=$(realpath "$1")
fail=0
errs=$(mktemp)
trap 'rm -f "$errs"' EXIT
engines=$("$earshot" engines | awk '/^[a-z]/ { print $1 }')
[ -n "$engines" ] || { echo "FAIL: earshot engines listed none"; exit 1; }
devices_of() { sed -n '/^Devices (--device NAME/,/^$/p' <<<"$1"; }
device_names=$(devices_of "$("$earshot" devices --help)")
for want in auto null; do
    grep -q "^  $want " <<<"$device_names" ||
        { echo "FAIL earshot devices --help: Devices does not name $want"; fail=1; }
done
for cmd in "" play render bench devices rooms engines latency measure wisdom "rooms add" \
           "rooms new" "rooms import-jconvolver"; do
    for flag in --help -h; do
        # shellcheck disable=SC2086
        out=$("$earshot" $cmd $flag 2>"$errs"); rc=$?
        name="earshot${cmd:+ $cmd} $flag"
        if [ $rc -ne 0 ] || [ -z "$out" ]; then
            echo "FAIL $name: exit $rc, $(wc -c <<<"$out") bytes on stdout"
            cat "$errs"; fail=1; continue
        fi
        if grep -q '%%' <<<"$out"; then
            echo "FAIL $name: '%%' in the text:"; grep '%%' <<<"$out"; fail=1
        fi
        if grep -q -- '--device NAME' <<<"$out" && [ "$(devices_of "$out")" != "$device_names" ]; then
            echo "FAIL $name: takes --device but does not list the names earshot devices --help does"
            fail=1
        fi
        if grep -q -- '--engine' <<<"$out"; then
            for e in $engines; do
                grep -q -- "$e" <<<"$out" || { echo "FAIL $name: does not name $e"; fail=1; }
            done
        fi
        echo "ok   $name"
    done
done
for cmd in play render bench devices rooms engines; do
    err=$("$earshot" $cmd --no-such-option 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 0 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q -- '--no-such-option' <<<"$err"; then
        echo "ok   earshot $cmd --no-such-option: exit $rc, one line naming it"
    else
        echo "FAIL earshot $cmd --no-such-option: exit $rc: $err"; fail=1
    fi
done
exit $fail
