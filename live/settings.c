/* The settings file (settings.h says what and why): its keys are a table,
 * each checked by the first field of the command that sets the same value. */
#define _DEFAULT_SOURCE /* mkstemp, fsync */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/files.h"
#include "processor.h"
#include "settings.h"

#define FILE_MAX (64 * 1024)

int es_settings_path(char *out, size_t n)
{
    return es_xdg_path(out, n, "XDG_CONFIG_HOME", ".config", "earshot/workstation.conf");
}

static void problem(es_settings *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(es_settings *st, const char *fmt, ...)
{
    if (st->problems++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->first, sizeof st->first, fmt, ap);
        va_end(ap);
    }
}

/* ---- the keys ---- */

/* A key's value, checked: `a` holds what the command's field parsed. */
typedef void (*setting_take)(es_settings *st, int slot, const es_command_args *a, int line,
                             const char *key);

typedef struct {
    const char *name;          /* "room": a.room and b.room when per_slot */
    int per_slot;
    const char *command;       /* the command whose first field checks it (NULL: take checks) */
    setting_take take;
} setting_key;

static void take_room(es_settings *st, int k, const es_command_args *a, int line,
                      const char *key)
{
    (void)line, (void)key;
    es_play_spec_set_room(&st->slot[k], a->text);
    st->parts[k] |= ES_SPEC_ROOM;
}

static void take_engine(es_settings *st, int k, const es_command_args *a, int line,
                        const char *key)
{
    char why[256];
    if (!a->engine->probe(why, sizeof why)) {
        problem(st, "line %d: %s %s is unavailable here (%s)", line, key, a->engine->name, why);
        return;
    }
    st->slot[k].engine = a->engine;
    st->parts[k] |= ES_SPEC_ENGINE;
}

static void take_partition(es_settings *st, int k, const es_command_args *a, int line,
                           const char *key)
{
    (void)line, (void)key;
    st->slot[k].options.partition = a->number; /* 0: "auto", from the block */
    st->parts[k] |= ES_SPEC_PARTITION;
}

static void take_pipelined(es_settings *st, int k, const es_command_args *a, int line,
                           const char *key)
{
    (void)line, (void)key;
    st->slot[k].options.gpu_pipelined = a->on;
    st->parts[k] |= ES_SPEC_PIPELINED;
}

static void take_block(es_settings *st, int k, const es_command_args *a, int line,
                       const char *key)
{
    (void)line, (void)key;
    st->slot[k].block = a->number;
    st->parts[k] |= ES_SPEC_BLOCK;
}

static void take_slot(es_settings *st, int k, const es_command_args *a, int line,
                      const char *key)
{
    (void)k, (void)line, (void)key;
    st->playing = a->choice;
    st->have |= ES_SET_SLOT;
}

static void take_view(es_settings *st, int k, const es_command_args *a, int line,
                      const char *key)
{
    (void)k, (void)key;
    if (strcmp(a->text, "spectrum") != 0 && strcmp(a->text, "spectrogram") != 0) {
        problem(st, "line %d: view '%.40s': spectrum or spectrogram", line, a->text);
        return;
    }
    st->spectrogram = !strcmp(a->text, "spectrogram");
    st->have |= ES_SET_VIEW;
}

/* The levels, in dB, each with its ES_MIX_* bit. */
#define LEVEL_TAKE(field, bit)                                                      \
    static void take_##field(es_settings *st, int k, const es_command_args *a,      \
                             int line, const char *key)                             \
    {                                                                               \
        (void)k, (void)line, (void)key;                                             \
        st->field = a->db;                                                          \
        st->levels |= bit;                                                          \
    }
LEVEL_TAKE(trim, ES_MIX_TRIM)
LEVEL_TAKE(wet, ES_MIX_WET)
LEVEL_TAKE(dry, ES_MIX_DRY)
LEVEL_TAKE(gain, ES_MIX_GAIN)
LEVEL_TAKE(limiter, ES_MIX_LIMITER)

static const setting_key keys[] = {
    {"room", 1, "room", take_room},
    {"engine", 1, "engine", take_engine},
    {"partition", 1, "partition", take_partition},
    {"pipelined", 1, "pipelined", take_pipelined},
    {"block", 1, "block", take_block},
    {"slot", 0, "slot", take_slot},
    {"view", 0, NULL, take_view},
    {"trim", 0, "trim", take_trim},
    {"wet", 0, "wet", take_wet},
    {"dry", 0, "dry", take_dry},
    {"gain", 0, "gain", take_gain},
    {"limiter", 0, "limiter", take_limiter},
};

static void parse_line(es_settings *st, int line, const char *key, const char *value)
{
    int slot = -1;
    const char *name = key;
    if ((key[0] == 'a' || key[0] == 'b') && key[1] == '.') {
        slot = key[0] - 'a';
        name = key + 2;
    }
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const setting_key *sk = &keys[k];
        if (strcmp(sk->name, name) != 0 || sk->per_slot != (slot >= 0))
            continue;
        es_command_args a = {.text = value};
        char err[300];
        if (sk->per_slot && !strcmp(name, "partition") && !strcmp(value, "auto")) {
            a.number = 0;
        } else if (sk->command && es_param_parse(&es_command_find(sk->command)->fields[0], key,
                                                 value, &a, err, sizeof err) != 0) {
            problem(st, "line %d: %s", line, err);
            return;
        }
        sk->take(st, slot < 0 ? 0 : slot, &a, line, key);
        return;
    }
    /* A key this earshot does not know may be a newer one's: kept for the
     * file, said once in case it is a typing slip. */
    const size_t used = strlen(st->kept), want = strlen(key) + strlen(value) + 5;
    if (used + want < sizeof st->kept)
        snprintf(st->kept + used, sizeof st->kept - used, "%s = %s\n", key, value);
    problem(st, "line %d: unknown key '%.40s'%s", line, key,
            used + want < sizeof st->kept ? " (kept in the file)" : "");
}

/* One line of the file: a comment, nothing, or `key = value`. */
static void parse_text_line(es_settings *st, int line, char *s)
{
    s += strspn(s, " \t");
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        *--end = 0;
    if (!*s || *s == '#')
        return;
    char *eq = strchr(s, '=');
    if (!eq) {
        problem(st, "line %d: not 'key = value'", line);
        return;
    }
    char *kend = eq;
    while (kend > s && (kend[-1] == ' ' || kend[-1] == '\t'))
        kend--;
    *kend = 0;
    parse_line(st, line, s, eq + 1 + strspn(eq + 1, " \t"));
}

void es_settings_parse(es_settings *st, const char *text)
{
    int line = 0;
    while (*text) {
        line++;
        const size_t len = strcspn(text, "\n");
        char buf[1200];
        if (len >= sizeof buf) {
            problem(st, "line %d: too long", line);
        } else {
            memcpy(buf, text, len);
            buf[len] = 0;
            parse_text_line(st, line, buf);
        }
        text += len;
        if (*text)
            text++;
    }
}

void es_settings_read(es_settings *st)
{
    /* A regular file only: a FIFO would hold the start for good, a folder
     * would read as empty. Said, and the defaults play. */
    struct stat sb;
    if (stat(st->path, &sb) != 0 && errno == ENOENT)
        return;
    char why[1200];
    FILE *f = es_fopen_regular(st->path, why, sizeof why);
    if (!f) {
        const char *colon = strstr(why, ": ");
        problem(st, "cannot read it (%s)", colon ? colon + 2 : why);
        return;
    }
    static char text[FILE_MAX + 1];
    const size_t got = fread(text, 1, FILE_MAX + 1, f);
    fclose(f);
    if (got > FILE_MAX) {
        problem(st, "over %d bytes: not a settings file", FILE_MAX);
        return;
    }
    text[got] = 0;
    if (strlen(text) != got) {
        problem(st, "a NUL byte: not a settings file");
        return;
    }
    es_settings_parse(st, text);
}

/* ---- to and from a session ---- */

void es_settings_to_config(es_settings *st, unsigned given, unsigned given_levels,
                           es_session_config *sc)
{
    /* A: what the command line did not give. */
    const unsigned a = st->parts[ES_SLOT_A] & ~given;
    es_play_spec_take(&sc->slot[ES_SLOT_A], &st->slot[ES_SLOT_A], a);
    if (a & ES_SPEC_ROOM)
        sc->remembered_rooms |= 1u << ES_SLOT_A;
    /* B as it was; what it left out is A's (the session fills it in). */
    sc->b_parts = st->parts[ES_SLOT_B] & ES_SPEC_SLOT;
    sc->slot[ES_SLOT_B] = st->slot[ES_SLOT_B];
    if (sc->b_parts & ES_SPEC_ROOM)
        sc->remembered_rooms |= 1u << ES_SLOT_B;
    sc->playing = (st->have & ES_SET_SLOT) && !(given & ES_SPEC_SLOT) && sc->b_parts
                      ? st->playing
                      : ES_SLOT_A;
    const unsigned taken = st->levels & ~given_levels;
    st->restored_levels = taken;
    es_mix *m = &sc->mix;
    if (taken & ES_MIX_TRIM)
        m->trim_db = (float)st->trim;
    if (taken & ES_MIX_WET)
        m->wet = (float)es_db_to_gain(st->wet);
    if (taken & ES_MIX_DRY)
        m->dry = (float)es_db_to_gain(st->dry);
    if (taken & ES_MIX_GAIN)
        m->gain = (float)es_db_to_gain(st->gain);
    if (taken & ES_MIX_LIMITER) {
        m->limiter = st->limiter != -INFINITY;
        m->ceiling_db = m->limiter ? (float)st->limiter : 0;
    }
}

void es_settings_rooms_gone(es_settings *st, unsigned gone)
{
    for (int k = 0; k < ES_AB_SLOTS; k++)
        if (gone & (1u << k))
            problem(st, "%c.room '%.80s': no such room now", "ab"[k], st->slot[k].room);
}

int es_settings_problem(const es_settings *st, char *out, size_t n)
{
    if (!st->problems)
        return 0;
    char more[48] = "";
    if (st->problems > 1)
        snprintf(more, sizeof more, " (and %d more)", st->problems - 1);
    snprintf(out, n, "settings: %s%s in %s; the defaults play for those", st->first, more,
             st->path);
    return 1;
}

static double to_db(float linear)
{
    return linear > 0 ? 20 * log10(linear) : -INFINITY;
}

void es_settings_capture(es_settings *st, const es_live_snapshot *snap, int spectrogram)
{
    st->have = ES_SET_SLOT | ES_SET_VIEW;
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        const es_live_slot *sl = &snap->slot[k];
        st->parts[k] = 0;
        if (!sl->set)
            continue;
        st->slot[k] = sl->spec;
        st->parts[k] = ES_SPEC_ROOM | ES_SPEC_ENGINE | ES_SPEC_PARTITION | ES_SPEC_PIPELINED |
                       ES_SPEC_BLOCK;
        /* A file whose name holds a control character (a newline would
         * write a line of its own) is not remembered; the rest is. */
        for (const unsigned char *c = (const unsigned char *)sl->spec.room; *c; c++)
            if (*c < 0x20 || *c == 0x7f) {
                st->parts[k] &= ~(unsigned)ES_SPEC_ROOM;
                break;
            }
    }
    st->playing = snap->active_slot;
    st->spectrogram = spectrogram;
    const es_mix *m = &snap->mix;
    st->levels = ES_MIX_TRIM | ES_MIX_WET | ES_MIX_DRY | ES_MIX_GAIN | ES_MIX_LIMITER;
    st->trim = m->trim_db;
    st->wet = to_db(m->wet);
    st->dry = to_db(m->dry);
    st->gain = to_db(m->gain);
    st->limiter = m->limiter ? m->ceiling_db : -INFINITY;
}

/* The levels a file keeps, each with its ES_MIX_* bit and the value it has
 * when nothing set it (a restored level other than that is said). */
static const struct {
    const char *name;
    unsigned bit;
    size_t at;
    double plain;
} levels[] = {
    {"trim", ES_MIX_TRIM, offsetof(es_settings, trim), 0},
    {"wet", ES_MIX_WET, offsetof(es_settings, wet), 0},
    {"dry", ES_MIX_DRY, offsetof(es_settings, dry), -INFINITY},
    {"gain", ES_MIX_GAIN, offsetof(es_settings, gain), 0},
    {"limiter", ES_MIX_LIMITER, offsetof(es_settings, limiter), ES_LIMITER_DEFAULT_DB},
};

static double level_of(const es_settings *st, size_t k)
{
    return *(const double *)((const char *)st + levels[k].at);
}

static const char *db_word(double db, char *buf, size_t n)
{
    if (db == -INFINITY)
        snprintf(buf, n, "off");
    else
        snprintf(buf, n, "%.1f", db);
    return buf;
}

/* Appends to the text being written (clipped at n). */
static void put(char *out, size_t n, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *out, size_t n, size_t *used, const char *fmt, ...)
{
    if (*used >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    *used += (size_t)vsnprintf(out + *used, n - *used, fmt, ap);
    va_end(ap);
}

/* A slot's lines: "a.room = cathedral", ... */
static void format_slot(const es_settings *st, int k, char *out, size_t n, size_t *used)
{
    const es_play_spec *sl = &st->slot[k];
    const unsigned p = st->parts[k];
    const char c = "ab"[k];
    if (p & ES_SPEC_ROOM)
        put(out, n, used, "%c.room = %s\n", c, sl->room);
    if (p & ES_SPEC_ENGINE)
        put(out, n, used, "%c.engine = %s\n", c, sl->engine->name);
    if ((p & ES_SPEC_PARTITION) && sl->options.partition)
        put(out, n, used, "%c.partition = %d\n", c, sl->options.partition);
    else if (p & ES_SPEC_PARTITION)
        put(out, n, used, "%c.partition = auto\n", c);
    if (p & ES_SPEC_PIPELINED)
        put(out, n, used, "%c.pipelined = %s\n", c, sl->options.gpu_pipelined ? "on" : "off");
    if (p & ES_SPEC_BLOCK)
        put(out, n, used, "%c.block = %d\n", c, sl->block);
}

void es_settings_format(const es_settings *st, char *out, size_t n)
{
    size_t used = 0;
    char w[24];
    if (n)
        out[0] = 0;
    put(out, n, &used, "# earshot workstation settings, written by earshot on quit; edit freely "
        "(bypass is never kept)\n");
    if (st->have & ES_SET_SLOT)
        put(out, n, &used, "slot = %c\n", st->playing ? 'b' : 'a');
    if (st->have & ES_SET_VIEW)
        put(out, n, &used, "view = %s\n", st->spectrogram ? "spectrogram" : "spectrum");
    for (int k = 0; k < ES_AB_SLOTS; k++)
        format_slot(st, k, out, n, &used);
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
        if (st->levels & levels[k].bit)
            put(out, n, &used, "%s = %s\n", levels[k].name, db_word(level_of(st, k), w, sizeof w));
    if (st->kept[0])
        put(out, n, &used, "# not known to this earshot, kept as they were:\n%s", st->kept);
}

int es_settings_restored(const es_settings *st, char *out, size_t n)
{
    size_t used = 0;
    char w[32];
    out[0] = 0;
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
        if ((st->restored_levels & levels[k].bit) && level_of(st, k) != levels[k].plain)
            put(out, n, &used, "%s%s %s%s", used ? ", " : "levels restored from the last session: ",
                levels[k].name, db_word(level_of(st, k), w, sizeof w),
                levels[k].bit == ES_MIX_LIMITER ? "" : " dB");
    if (used)
        put(out, n, &used, " (--no-restore starts from the defaults)");
    return used > 0;
}

/* mkdir -p of the file's folder. */
static int make_folder(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(dir, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int es_settings_write(const es_settings *st, char *err, size_t n)
{
    char text[12288], why[1400];
    es_settings_format(st, text, sizeof text);
    if (make_folder(st->path) != 0) {
        snprintf(err, n, "settings %s: cannot write it (%s); not remembered", st->path,
                 strerror(errno));
        return -1;
    }
    /* Through a link; never over a FIFO or a device named as the file. */
    if (es_file_replace(st->path, text, strlen(text), 0644, why, sizeof why) != 0) {
        snprintf(err, n, "settings: cannot write it (%s); not remembered", why);
        return -1;
    }
    return 0;
}
