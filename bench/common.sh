# Shared by the bench/ scripts (sourced, not run): CPU time of a whole
# process, and the median of a column of numbers. Needs $dir, a scratch
# folder of the caller's.

# CPU seconds (user + system) of one command, to the millisecond (bash's
# time keyword reads getrusage; /usr/bin/time prints hundredths). Fails as
# the command fails.
cpu() {
    local TIMEFORMAT='%3U %3S'
    { time "$@" >/dev/null 2>&1; } 2>"$dir/time" && awk '{ printf "%.3f", $1 + $2 }' "$dir/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The median CPU seconds of RUNS runs of a command, after one run that is
# not counted (wisdom, the page cache); empty when a run failed. The files
# named in $fresh (if set) are removed before each run, so that each
# writes a new file (earshot syncs one it replaces).
median_cpu() {
    local runs=$1 r t
    shift
    "$@" >/dev/null 2>&1 || return 0
    : >"$dir/runs"
    for ((r = 0; r < runs; r++)); do
        # shellcheck disable=SC2086 # a list of paths
        [ -z "${fresh:-}" ] || rm -f $fresh
        t=$(cpu "$@") || return 0
        echo "$t" >>"$dir/runs"
    done
    median <"$dir/runs"
}
