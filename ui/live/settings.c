/* The settings file (settings.h says what and why). */
#define _DEFAULT_SOURCE /* mkstemp, fsync */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "processor.h"
#include "core/args.h"
#include "core/files.h"
#include "settings.h"

#define FILE_MAX (64 * 1024)
#define WAIT_SECONDS 20.0

int es_settings_path(char *out, size_t n)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    /* The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        snprintf(out, n, "%s/earshot/workstation.conf", xdg);
    else if (home && home[0])
        snprintf(out, n, "%s/.config/earshot/workstation.conf", home);
    else
        return -1;
    return 0;
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

static const es_command *command_named(const char *name)
{
    for (const es_command *c = es_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

/* A value checked by the first field of the command that sets it: the same
 * limits and words as typing it. */
static int check(es_settings *st, int line, const char *key, const char *cmd,
                 const char *text, es_command_args *a)
{
    char err[300];
    memset(a, 0, sizeof *a);
    if (es_param_parse(&command_named(cmd)->fields[0], key, text, a, err, sizeof err) == 0)
        return 0;
    problem(st, "line %d: %s", line, err);
    return -1;
}

static void parse_line(es_settings *st, int line, const char *key, const char *value)
{
    es_command_args a;
    int slot = -1;
    const char *name = key;
    if ((key[0] == 'a' || key[0] == 'b') && key[1] == '.') {
        slot = key[0] - 'a';
        name = key + 2;
    }
    const unsigned shift = slot > 0 ? ES_SET_SLOT_SHIFT : 0;
    es_settings_slot *sl = slot >= 0 ? &st->slot[slot] : NULL;
    if (sl && !strcmp(name, "room")) {
        if (check(st, line, key, "room", value, &a) == 0) {
            snprintf(sl->room, sizeof sl->room, "%s", a.text);
            st->have |= ES_SET_ROOM << shift;
        }
    } else if (sl && !strcmp(name, "engine")) {
        if (check(st, line, key, "engine", value, &a) != 0)
            return;
        char why[256];
        if (!a.engine->probe(why, sizeof why)) {
            problem(st, "line %d: %s %s is unavailable here (%s)", line, key, a.engine->name,
                    why);
            return;
        }
        sl->engine = a.engine;
        st->have |= ES_SET_ENGINE << shift;
    } else if (sl && !strcmp(name, "partition")) {
        if (!strcmp(value, "auto")) {
            sl->partition = 0;
            st->have |= ES_SET_PARTITION << shift;
        } else if (check(st, line, key, "partition", value, &a) == 0) {
            sl->partition = a.number;
            st->have |= ES_SET_PARTITION << shift;
        }
    } else if (sl && !strcmp(name, "pipelined")) {
        if (check(st, line, key, "pipelined", value, &a) == 0) {
            sl->pipelined = a.on;
            st->have |= ES_SET_PIPELINED << shift;
        }
    } else if (sl && !strcmp(name, "block")) {
        if (check(st, line, key, "block", value, &a) == 0) {
            sl->block = a.number;
            st->have |= ES_SET_BLOCK << shift;
        }
    } else if (!sl && !strcmp(name, "slot")) {
        if (check(st, line, key, "slot", value, &a) == 0) {
            st->playing = a.choice;
            st->have |= ES_SET_SLOT;
        }
    } else if (!sl && !strcmp(name, "view")) {
        if (strcmp(value, "spectrum") != 0 && strcmp(value, "spectrogram") != 0) {
            problem(st, "line %d: view '%.40s': spectrum or spectrogram", line, value);
            return;
        }
        st->spectrogram = !strcmp(value, "spectrogram");
        st->have |= ES_SET_VIEW;
    } else if (!sl && (!strcmp(name, "trim") || !strcmp(name, "wet") || !strcmp(name, "dry") ||
                       !strcmp(name, "gain") || !strcmp(name, "limiter"))) {
        if (check(st, line, key, name, value, &a) != 0)
            return;
        static const char *const levels[] = {"trim", "wet", "dry", "gain", "limiter"};
        double *dst[] = {&st->trim, &st->wet, &st->dry, &st->gain, &st->limiter};
        for (int k = 0; k < 5; k++)
            if (!strcmp(name, levels[k])) {
                *dst[k] = a.db;
                st->have |= (unsigned)ES_SET_TRIM << k;
            }
    } else {
        problem(st, "line %d: unknown key '%.40s'", line, key);
    }
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
            char *s = buf + strspn(buf, " \t");
            char *end = s + strlen(s);
            while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                *--end = 0;
            char *eq = strchr(s, '=');
            if (!*s || *s == '#') {
                /* a comment or nothing */
            } else if (!eq) {
                problem(st, "line %d: not 'key = value'", line);
            } else {
                char *kend = eq;
                while (kend > s && (kend[-1] == ' ' || kend[-1] == '\t'))
                    kend--;
                *kend = 0;
                char *value = eq + 1 + strspn(eq + 1, " \t");
                parse_line(st, line, s, value);
            }
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

static int given(int argc, char **argv, const char *flag)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], flag))
            return 1;
    return 0;
}

void es_settings_drop_given(es_settings *st, int argc, char **argv)
{
    static const struct {
        const char *flag;
        unsigned bits;
    } flags[] = {
        {"--room", ES_SET_ROOM}, {"--ir", ES_SET_ROOM}, {"--engine", ES_SET_ENGINE},
        {"--partition", ES_SET_PARTITION}, {"--pipelined", ES_SET_PIPELINED},
        {"--block", ES_SET_BLOCK}, {"--trim", ES_SET_TRIM}, {"--limiter", ES_SET_LIMITER},
    };
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (given(argc, argv, flags[k].flag))
            st->have &= ~flags[k].bits; /* slot A's: the flags set what opens */
}

void es_settings_to_options(const es_settings *st, es_play_options *o)
{
    const es_settings_slot *a = &st->slot[ES_SLOT_A];
    if (st->have & ES_SET_ENGINE)
        o->engine = a->engine;
    if (st->have & ES_SET_PARTITION)
        o->partition = a->partition;
    if (st->have & ES_SET_PIPELINED)
        o->pipelined = a->pipelined;
    if (st->have & ES_SET_BLOCK)
        o->block = a->block;
}

/* A command line, as a key would run it; a refusal is said by the session
 * or here, and leaves that value as it was. */
static void run(es_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void run(es_session *s, const char *fmt, ...)
{
    char err[600];
    va_list ap;
    va_start(ap, fmt);
    if (es_command_vrunf(s, err, sizeof err, fmt, ap) < 0 && err[0])
        es_error("settings: %s", err);
    va_end(ap);
}

/* Until the change asked for plays (or fails), polling as the loop does. */
static void settle(es_session *s)
{
    const struct timespec tick = {0, 20000000};
    const double until = es_session_elapsed(s) + WAIT_SECONDS;
    char what[256];
    es_session_poll(s);
    while (es_session_preparing(s, what, sizeof what) && es_session_elapsed(s) < until) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
    }
}

static const char *db_word(double db, char *buf, size_t n)
{
    if (db == -INFINITY)
        snprintf(buf, n, "off");
    else
        snprintf(buf, n, "%.1f", db);
    return buf;
}

/* A slot's room, engine, options and block onto the slot playing. */
static void apply_slot(es_settings *st, es_session *s, int k)
{
    const unsigned shift = k ? ES_SET_SLOT_SHIFT : 0;
    const es_settings_slot *sl = &st->slot[k];
    const char letter = (char)('a' + k);
    if (st->have & (ES_SET_ROOM << shift)) {
        if (es_session_room_index(s, sl->room) < 0)
            problem(st, "%c.room '%.80s': no such room now", letter, sl->room);
        else if (strcmp(sl->room, es_session_want(s).room) != 0)
            run(s, "room %s", sl->room);
    }
    if (k == ES_SLOT_A)
        return; /* A's engine and block opened the stream */
    const es_session_wanted w = es_session_want(s);
    if ((st->have & (ES_SET_ENGINE << shift)) && sl->engine != w.engine)
        run(s, "engine %s", sl->engine->name);
    if ((st->have & (ES_SET_BLOCK << shift)) && sl->block != w.block)
        run(s, "block %d", sl->block);
    if ((st->have & (ES_SET_PARTITION << shift)) && sl->partition &&
        sl->partition != w.options.partition)
        run(s, "partition %d", sl->partition);
    if ((st->have & (ES_SET_PIPELINED << shift)) && sl->pipelined != w.options.gpu_pipelined)
        run(s, "pipelined %s", sl->pipelined ? "on" : "off");
}

void es_settings_apply(es_settings *st, es_session *s)
{
    char w[24];
    if (st->have & ES_SET_TRIM)
        run(s, "trim %.1f", st->trim);
    if (st->have & ES_SET_WET)
        run(s, "wet %s", db_word(st->wet, w, sizeof w));
    if (st->have & ES_SET_DRY)
        run(s, "dry %s", db_word(st->dry, w, sizeof w));
    if (st->have & ES_SET_GAIN)
        run(s, "gain %s", db_word(st->gain, w, sizeof w));
    if (st->have & ES_SET_LIMITER)
        run(s, "limiter %s", db_word(st->limiter, w, sizeof w));
    apply_slot(st, s, ES_SLOT_A);
    /* B only holds what it played: it plays once, then A again if A was
     * the one playing. Each step waits for the one before to play. */
    const unsigned b_room = ES_SET_ROOM << ES_SET_SLOT_SHIFT;
    if ((st->have & b_room) && es_session_room_index(s, st->slot[ES_SLOT_B].room) < 0) {
        problem(st, "b.room '%.80s': no such room now", st->slot[ES_SLOT_B].room);
        st->have &= ~b_room;
    }
    const unsigned b = (ES_SET_ROOM | ES_SET_ENGINE | ES_SET_BLOCK | ES_SET_PARTITION |
                        ES_SET_PIPELINED) << ES_SET_SLOT_SHIFT;
    if (st->have & b) {
        settle(s);
        run(s, "slot b");
        apply_slot(st, s, ES_SLOT_B);
        settle(s);
        if (!(st->have & ES_SET_SLOT) || st->playing == ES_SLOT_A) {
            run(s, "slot a");
            settle(s);
        }
    }
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

void es_settings_capture(es_settings *st, es_session *s, int spectrogram)
{
    st->have = ES_SET_SLOT | ES_SET_VIEW | ES_SET_TRIM | ES_SET_WET | ES_SET_DRY |
               ES_SET_GAIN | ES_SET_LIMITER;
    for (int k = 0; k < 2; k++) {
        es_session_slot info;
        es_session_slot_info(s, k, NULL, &info);
        if (!info.set)
            continue;
        es_settings_slot *sl = &st->slot[k];
        snprintf(sl->room, sizeof sl->room, "%s", info.room);
        sl->engine = info.engine;
        sl->partition = info.options.partition;
        sl->pipelined = info.options.gpu_pipelined;
        sl->block = info.block;
        st->have |= (unsigned)(ES_SET_ROOM | ES_SET_ENGINE | ES_SET_PARTITION |
                               ES_SET_PIPELINED | ES_SET_BLOCK)
                    << (k ? ES_SET_SLOT_SHIFT : 0);
        /* A file whose name holds a control character (a newline would
         * write a line of its own) is not remembered; the rest is. */
        for (const unsigned char *c = (const unsigned char *)sl->room; *c; c++)
            if (*c < 0x20 || *c == 0x7f) {
                st->have &= ~((unsigned)ES_SET_ROOM << (k ? ES_SET_SLOT_SHIFT : 0));
                break;
            }
    }
    st->playing = es_session_active_slot(s);
    st->spectrogram = spectrogram;
    const es_mix *m = es_session_mix(s);
    st->trim = m->trim_db;
    st->wet = to_db(m->wet);
    st->dry = to_db(m->dry);
    st->gain = to_db(m->gain);
    st->limiter = m->limiter ? m->ceiling_db : -INFINITY;
}

void es_settings_format(const es_settings *st, char *out, size_t n)
{
    size_t used = 0;
#define PUT(...)                                                                   \
    do {                                                                           \
        if (used < n)                                                              \
            used += (size_t)snprintf(out + used, n - used, __VA_ARGS__);           \
    } while (0)
    char w[24];
    PUT("# earshot workstation settings, written by earshot on quit; edit freely "
        "(bypass is never kept)\n");
    if (st->have & ES_SET_SLOT)
        PUT("slot = %c\n", st->playing ? 'b' : 'a');
    if (st->have & ES_SET_VIEW)
        PUT("view = %s\n", st->spectrogram ? "spectrogram" : "spectrum");
    for (int k = 0; k < 2; k++) {
        const unsigned shift = k ? ES_SET_SLOT_SHIFT : 0;
        const es_settings_slot *sl = &st->slot[k];
        const char c = (char)('a' + k);
        if (st->have & (ES_SET_ROOM << shift))
            PUT("%c.room = %s\n", c, sl->room);
        if (st->have & (ES_SET_ENGINE << shift))
            PUT("%c.engine = %s\n", c, sl->engine->name);
        if (st->have & (ES_SET_PARTITION << shift)) {
            if (sl->partition)
                PUT("%c.partition = %d\n", c, sl->partition);
            else
                PUT("%c.partition = auto\n", c);
        }
        if (st->have & (ES_SET_PIPELINED << shift))
            PUT("%c.pipelined = %s\n", c, sl->pipelined ? "on" : "off");
        if (st->have & (ES_SET_BLOCK << shift))
            PUT("%c.block = %d\n", c, sl->block);
    }
    if (st->have & ES_SET_TRIM)
        PUT("trim = %.1f\n", st->trim);
    if (st->have & ES_SET_WET)
        PUT("wet = %s\n", db_word(st->wet, w, sizeof w));
    if (st->have & ES_SET_DRY)
        PUT("dry = %s\n", db_word(st->dry, w, sizeof w));
    if (st->have & ES_SET_GAIN)
        PUT("gain = %s\n", db_word(st->gain, w, sizeof w));
    if (st->have & ES_SET_LIMITER)
        PUT("limiter = %s\n", db_word(st->limiter, w, sizeof w));
#undef PUT
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
    char text[8192], why[1400];
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
