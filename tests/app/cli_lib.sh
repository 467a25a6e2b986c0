# Shared by the tests that run earshot's commands as a user would. Source
# it with earshot and es_make_wav as $1 and $2: it sets $earshot,
# $make_wav and $here (the tests' folder, for the other libraries), makes a private folder $dir (removed on exit, with any
# $pids still running killed) and works in it, gives earshot homes of its
# own there (rooms in $user, settings in $XDG_CONFIG_HOME) and no FFTW
# wisdom, and defines ok, bad and refused. $fail is 1 once anything failed.
here=$(cd "$(dirname "$0")" && pwd)
earshot=$(realpath "$1")
make_wav=$(realpath "$2")
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
export XDG_DATA_HOME=$dir/xdg XDG_CONFIG_HOME=$dir/config EARSHOT_WISDOM=off
user=$XDG_DATA_HOME/earshot/rooms
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# refused NAME PATTERN -- command...: exit 1 or 2 (not a signal), and one
# line on stderr that matches PATTERN (extended regex).
refused() {
    local name=$1 want=$2
    shift 3
    "$@" >out.txt 2>err.txt
    local rc=$? lines
    lines=$(wc -l <err.txt)
    if [ $rc -ge 1 ] && [ $rc -le 2 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$want" err.txt; then
        ok "$name: $(cat err.txt)"
    else
        bad "$name: exit $rc, $lines lines: $(head -c 300 err.txt)"
    fi
}
