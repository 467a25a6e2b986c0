# Jconvolver's own configurations made playable where the package lacks
# their files, sourced by tests/app/test_jconvolver_peer.sh and
# bench/versus-fconvolver. Debian's jconvolver-config-files ships few of
# the IR files its configurations name.
#
#   jconv_prepare CONF WORK MAKE_WAV short|full
#       rewrites CONF's `/cd X` lines in place to folders of WORK's own
#       (one per X), and makes each IR file it reads that is not there:
#       decaying noise, as many channels as the lines that read it ask for,
#       at the configuration's rate (44.1 kHz for *-44.conf). short: longer
#       than a MAXSIZE under 20,000 frames (so that both programs cut it),
#       else 0.5 s, for tests; full: MAXSIZE frames, the load the
#       configuration was written for, for benchmarks.

# The folder a `/cd X` now means: one of WORK's own for each X.
jconv_cd_for() {
    local d="$2/cd/$(tr '/' '_' <<<"$1")"
    mkdir -p "$d"
    echo "$d"
}

jconv_prepare() {
    local conf=$1 work=$2 make_wav=$3 length=$4 dir file chan max line from to
    dir=$(dirname "$conf")
    : >"$work/reads"
    while read -r line; do
        set -- $line
        case $1 in
            /cd) dir=$(jconv_cd_for "$2" "$work") ;;
            /impulse/read) echo "$dir/$9 $8" >>"$work/reads" ;;
        esac
    done < <(grep -E '^/(cd|impulse/read)' "$conf")
    while read -r from; do
        to=$(jconv_cd_for "$from" "$work")
        sed -i "s|^/cd[[:space:]]\+$from[[:space:]]*$|/cd $to|" "$conf"
    done < <(awk '/^\/cd/ { print $2 }' "$conf" | sort -u)
    max=$(awk '/^\/convolver\/new/ { print $5 }' "$conf")
    if [ "$length" = short ]; then
        if [ "$max" -le 20000 ]; then max=$((max + 2000)); else max=24000; fi
    fi
    local rate=48000
    case $conf in *-44.conf) rate=44100 ;; esac
    sort -u "$work/reads" | awk '{ if ($2 > c[$1]) c[$1] = $2 } END { for (f in c) print f, c[f] }' |
        while read -r file chan; do
            [ -e "$file" ] || "$make_wav" "$file" decay "$rate" "$chan" "$max" 11 0.5 >/dev/null
        done
}
