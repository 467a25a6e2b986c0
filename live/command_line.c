/* A command line against play's command table (commands.c): parsed in
 * place, its fields checked by their own es_param rows, run; the table's
 * help; and a key's change through a row, its nudge or the command with
 * no values. */
#include <string.h>

#include "commands.h"
#include "core/suggest.h"
#include "osc_values.h"
#include "session_log.h"

const es_command *es_command_find(const char *name)
{
    for (const es_command *c = es_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static int field_count(const es_command *c)
{
    int k = 0;
    while (k < ES_COMMAND_FIELDS && c->fields[k].name)
        k++;
    return k;
}

static void names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (const es_command *c = es_commands; c->name && used < n; c++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", c == es_commands ? "" : ", ",
                                 c->name);
}

int es_command_parse(char *buf, const es_command **cmd, es_command_args *args, int *given,
                     char *err, size_t n)
{
    err[0] = 0;
    *cmd = NULL;
    *given = 0;
    memset(args, 0, sizeof *args);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 && *c != '\t' && *c != '\r' && *c != '\n') {
            snprintf(err, n, "a command line with control characters; ignored");
            return -1;
        }
    buf[strcspn(buf, "\r\n")] = 0;
    char *word = buf + strspn(buf, " \t");
    if (!*word)
        return 0;
    char *rest = word + strcspn(word, " \t");
    if (*rest)
        *rest++ = 0;
    rest += strspn(rest, " \t");
    const es_command *c = es_commands;
    while (c->name && strcmp(c->name, word) != 0)
        c++;
    if (!c->name) {
        char list[256], mean[96];
        es_suggestion near = {0};
        for (const es_command *k = es_commands; k->name; k++)
            es_suggest_consider(&near, word, k->name);
        names(list, sizeof list);
        snprintf(err, n, "unknown command '%.40s'%s (%s)", word,
                 es_suggest_text(&near, "", mean, sizeof mean), list);
        return -1;
    }
    const int fields = field_count(c);
    for (int k = 0; k < fields; k++) {
        const es_param *f = &c->fields[k];
        char *value = rest;
        if (!*value) {
            if (k >= c->optional)
                break;
            snprintf(err, n, "%s needs %s", c->name, f->arg);
            return -1;
        }
        if (fields == 1 && f->type == ES_PARAM_STRING) {
            /* a file or room name: the rest of the line, spaces and all */
            char *end = rest + strlen(rest);
            while (end > rest && (end[-1] == ' ' || end[-1] == '\t'))
                *--end = 0;
            rest = end;
        } else {
            rest = value + strcspn(value, " \t");
            if (*rest)
                *rest++ = 0;
            rest += strspn(rest, " \t");
        }
        char label[64];
        if (fields == 1)
            snprintf(label, sizeof label, "%s", c->name);
        else
            snprintf(label, sizeof label, "%s %s", c->name, f->name);
        if (es_param_parse(f, label, value, args, err, n) != 0)
            return -1;
        (*given)++;
    }
    if (*rest) {
        snprintf(err, n, "%s: unexpected '%.40s' after its %s", c->name, rest,
                 fields ? "values" : "name");
        return -1;
    }
    *cmd = c;
    return 0;
}

int es_command_run(es_session *s, const char *line, char *err, size_t n)
{
    err[0] = 0;
    const size_t len = strlen(line);
    if (len > ES_COMMAND_LINE_MAX) {
        snprintf(err, n, "a command line of %zu characters: the most is %d; ignored", len,
                 ES_COMMAND_LINE_MAX);
        return -1;
    }
    char buf[ES_COMMAND_LINE_MAX + 1];
    memcpy(buf, line, len + 1);
    const es_command *c;
    es_command_args args;
    int given;
    if (es_command_parse(buf, &c, &args, &given, err, n) != 0)
        return -1;
    if (!c)
        return 0;
    const int rc = c->run(s, &args, given);
    return rc > 0 ? 1 : rc < 0 ? -1 : 0;
}

/* The commands a subject may give while a blind test runs: the rest would
 * change or name what is being compared. */
static const char *const blind_commands[] = {"hear", "answer", "gain", "panic", "unmute",
                                             "quit", "head", "pitch", "roll", NULL};

static int blind_allows(const char *line)
{
    const char *word = line + strspn(line, " \t");
    const size_t len = strcspn(word, " \t\r\n");
    for (const char *const *b = blind_commands; *b; b++)
        if (strlen(*b) == len && !strncmp(word, *b, len))
            return 1;
    return len == 0;
}

int es_command_run_from(es_session *s, const char *origin, const char *line, char *reply,
                        size_t n)
{
    reply[0] = 0;
    int rc;
    char err[600] = "";
    const int said = es_session_said_count(s);
    if (es_session_blind(s) && !blind_allows(line)) {
        char word[48];
        snprintf(word, sizeof word, "%.*s", (int)strcspn(line, " \t\r\n"), line);
        snprintf(err, sizeof err, "%s: not while a blind test runs (hear, answer, gain, "
                 "panic, unmute, quit)", word);
        rc = -1;
    } else {
        rc = es_command_run(s, line, err, sizeof err);
    }
    /* The reply: the command line's own refusal, else the last line the
     * session said of it (its refusal, or what it will do). */
    if (err[0])
        snprintf(reply, n, "%s", err);
    else
        es_session_said_since(s, said, reply, n);
    es_session_log_command(es_session_logger(s), origin, line,
                           rc < 0 ? "refused" : rc > 0 ? "quit" : "done", reply);
    return rc;
}

int es_command_vrunf(es_session *s, char *err, size_t n, const char *fmt, va_list ap)
{
    char line[ES_COMMAND_LINE_MAX + 2];
    const int len = vsnprintf(line, sizeof line, fmt, ap);
    if (len < 0 || len > ES_COMMAND_LINE_MAX) {
        snprintf(err, n, "a command line of more than %d characters; ignored",
                 ES_COMMAND_LINE_MAX);
        return -1;
    }
    return es_command_run(s, line, err, n);
}

void es_commands_help(FILE *to)
{
    for (const es_command *c = es_commands; c->name; c++) {
        char head[64];
        int used = snprintf(head, sizeof head, "%s", c->name);
        for (int k = 0; k < ES_COMMAND_FIELDS && c->fields[k].name; k++)
            used += snprintf(head + used, sizeof head - (size_t)used, k >= c->optional ? " [%s]" : " %s",
                             c->fields[k].arg);
        fprintf(to, "  %-24s %s\n", head, c->help);
    }
}

/* An OSC type tag a field's value is sent as. */
static const char *osc_type(const es_param *f)
{
    switch (f->type) {
    case ES_PARAM_INT: return "i";
    case ES_PARAM_DOUBLE: return "f";
    case ES_PARAM_CUSTOM: return strstr(f->arg, "DB") ? "f|s" : "s"; /* a level, or "off" */
    default: return "s";
    }
}

void es_commands_osc_help(FILE *to)
{
    fputs("| address | arguments | what it does |\n| --- | --- | --- |\n", to);
    for (const es_command *c = es_commands; c->name; c++) {
        char args[96] = "";
        int used = 0;
        for (int k = 0; k < ES_COMMAND_FIELDS && c->fields[k].name; k++)
            used += snprintf(args + used, sizeof args - (size_t)used, "%s%s%s %s%s",
                             k ? " " : "", k >= c->optional ? "[" : "",
                             osc_type(&c->fields[k]), c->fields[k].arg,
                             k >= c->optional ? "]" : "");
        fprintf(to, "| /earshot/%s | %s | %s |\n", c->name, used ? args : "",
                c->help);
    }
    char names[400];
    es_osc_value_names(names, sizeof names);
    fprintf(to, "| /earshot/get | s NAME | a value: /earshot/value NAME VALUES (%s) |\n",
            names);
    fputs("| /earshot/subscribe | f RATE | /earshot/meters RATE times a second (0.1..200; 0 "
          "stops) and each line the session says as /earshot/said |\n"
          "| /earshot/unsubscribe | | stops them |\n"
          "| /earshot/ping | | answers /earshot/pong |\n", to);
}

int es_command_key(es_session *s, const char *name, int step, char *err, size_t n)
{
    err[0] = 0;
    const es_command *c = es_command_find(name);
    if (!c) {
        snprintf(err, n, "no command '%s' for this key", name);
        return -1;
    }
    if (step == 0) {
        /* The session says its own refusals; err carries the line's. */
        char reply[600];
        const int said = es_session_said_count(s);
        const int rc = es_command_run_from(s, "key", c->name, reply, sizeof reply);
        if (rc < 0 && es_session_said_count(s) == said)
            snprintf(err, n, "%s", reply);
        return rc;
    }
    if (!c->nudge) {
        snprintf(err, n, "%s has no step up or down", c->name);
        return -1;
    }
    char line[64];
    snprintf(line, sizeof line, "%s %s (a key's step)", c->name, step > 0 ? "up" : "down");
    if (es_session_blind(s) && !blind_allows(c->name)) {
        snprintf(err, n, "%s: not while a blind test runs (hear, answer, gain, panic, unmute, "
                 "quit)", c->name);
        es_session_log_command(es_session_logger(s), "key", line, "refused", err);
        return -1;
    }
    const int said = es_session_said_count(s);
    const int rc = c->nudge(s, step > 0, err, n) < 0 ? -1 : 0;
    char reply[600] = "";
    if (err[0])
        snprintf(reply, sizeof reply, "%s", err);
    else
        es_session_said_since(s, said, reply, sizeof reply);
    es_session_log_command(es_session_logger(s), "key", line, rc < 0 ? "refused" : "done",
                           reply);
    return rc;
}
