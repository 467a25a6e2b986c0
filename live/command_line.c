/* A command line against play's command table (commands.c): parsed in
 * place, its fields checked by their own es_param rows, run; the table's
 * help; and a key's change through a row, its nudge or the command with
 * no values. */
#include <string.h>

#include "commands.h"
#include "core/suggest.h"

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

int es_command_key(es_session *s, const char *name, int step, char *err, size_t n)
{
    err[0] = 0;
    const es_command *c = es_command_find(name);
    if (!c) {
        snprintf(err, n, "no command '%s' for this key", name);
        return -1;
    }
    if (step == 0)
        return es_command_run(s, c->name, err, n);
    if (!c->nudge) {
        snprintf(err, n, "%s has no step up or down", c->name);
        return -1;
    }
    return c->nudge(s, step > 0, err, n) < 0 ? -1 : 0;
}
