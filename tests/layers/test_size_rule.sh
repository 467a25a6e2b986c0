#!/usr/bin/env bash
# scripts/check-size can fail: a function of 81 lines and a file of 601 are
# named, in any folder; 80 and 600 pass; and the checkout itself passes.
#   test_size_rule.sh SOURCE_DIR
set -u
src=$1 check="$1/scripts/check-size"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# function NAME LINES: a definition whose body is LINES lines long.
function_of() {
    printf 'void %s(void)\n{\n' "$1"
    for _ in $(seq "$2"); do printf '    ;\n'; done
    printf '}\n'
}
mkdir -p "$dir/a/deep/folder" "$dir/b"
function_of fits 80 >"$dir/a/fits.c"
{ printf '/* %s */\n' $(seq 599); } >"$dir/b/fits.h"
if "$check" "$dir" >"$dir/out" 2>&1; then ok "80 lines a function, 600 a file pass"
else bad "80 and 600 refused: $(cat "$dir/out")"; fi
function_of too_long 81 >"$dir/a/deep/folder/long.cu"
{ printf '/* %s */\n' $(seq 601); } >"$dir/b/big.h"
"$check" "$dir" >"$dir/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'a/deep/folder/long.cu:2: 81 lines (at most 80 a function): void too_long(void)' "$dir/out" &&
   grep -q 'b/big.h: 601 lines (at most 600 a file)' "$dir/out" && [ "$(wc -l <"$dir/out")" -eq 2 ]; then
    ok "a function of 81 lines and a file of 601 refused, each named (exit 1)"
else
    bad "exit $rc: $(cat "$dir/out")"
fi
if "$check" "$src" >"$dir/out" 2>&1; then ok "the checkout keeps the rule"
else bad "the checkout breaks the rule: $(cat "$dir/out")"; fi
exit $fail
