/* The session's message log alone (live/messages.h): each line heard once
 * as it is said, escaped, stamped and kept; the newest ES_LIVE_MESSAGES
 * kept and no more, oldest first; a snapshot's copy of the history the
 * same as the log's, brought up to date with only the lines said since;
 * and a topic said once about a value, again about another, again once
 * forgotten, each topic apart. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "messages.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* What the listener heard. */
typedef struct {
    int lines, problems;
    char last[1400];
} heard;

static void listen(void *ctx, int problem, const char *line)
{
    heard *h = ctx;
    h->lines++;
    h->problems += problem != 0;
    snprintf(h->last, sizeof h->last, "%s", line);
}

static int stamped(const char *when)
{
    return strlen(when) == 8 && isdigit((unsigned char)when[0]) && when[2] == ':' &&
           when[5] == ':' && isdigit((unsigned char)when[7]);
}

static int has_control(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 1;
    return 0;
}

/* One line: heard, escaped, stamped, kept with its problem flag. */
static void one_line(void)
{
    heard h = {0};
    es_message_log log;
    es_message_log_init(&log, listen, &h);
    es_message_log_sayf(&log, 1, "room %s: gone", "\033[2Jhall");
    const es_live_message *m = es_message_log_at(&log, 0);
    check(h.lines == 1 && h.problems == 1, "a line is heard once, as a problem");
    check(m && !has_control(m->text) && !has_control(h.last) && strstr(m->text, "hall: gone"),
          "kept and heard escaped: no control byte reaches a terminal");
    check(m && m->problem == 1 && stamped(m->when), "kept with its problem flag, stamped HH:MM:SS");
    char longer[1000];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    es_message_log_add(&log, 0, longer);
    m = es_message_log_at(&log, 1);
    check(m && strlen(m->text) == 299 && m->problem == 0, "a long line is kept cut to 299 bytes");
}

/* The cap: the newest ES_LIVE_MESSAGES, oldest first. */
static void cap(void)
{
    heard h = {0};
    es_message_log log;
    es_message_log_init(&log, listen, &h);
    const int said = ES_LIVE_MESSAGES + 36;
    for (int k = 0; k < said; k++)
        es_message_log_sayf(&log, 0, "line %d", k);
    check(h.lines == said, "every line heard, kept or not");
    check(es_message_log_kept(&log) == ES_LIVE_MESSAGES, "the log keeps ES_LIVE_MESSAGES");
    int in_order = 1;
    for (int k = 0; k < ES_LIVE_MESSAGES; k++) {
        char want[32];
        snprintf(want, sizeof want, "line %d", said - ES_LIVE_MESSAGES + k);
        const es_live_message *m = es_message_log_at(&log, k);
        in_order &= m && !strcmp(m->text, want);
    }
    check(in_order, "the newest kept, oldest first");
    check(!es_message_log_at(&log, ES_LIVE_MESSAGES) && !es_message_log_at(&log, -1),
          "nothing past either end");
    es_message_log quiet;
    es_message_log_init(&quiet, NULL, NULL);
    es_message_log_add(&quiet, 0, "kept only");
    check(es_message_log_kept(&quiet) == 1, "a log nobody listens to keeps its lines");
}

/* 1 when the snapshot's history is the log's, line for line. */
static int same_history(const es_message_log *log, const es_live_snapshot *snap)
{
    if (es_live_messages_kept(snap) != es_message_log_kept(log))
        return 0;
    for (int k = 0; k < es_message_log_kept(log); k++)
        if (strcmp(es_live_message_at(snap, k)->text, es_message_log_at(log, k)->text) != 0)
            return 0;
    return !es_live_message_at(snap, es_live_messages_kept(snap));
}

/* The history a snapshot carries. */
static void history(void)
{
    static es_live_snapshot snap; /* as a session's: zeroed, then copied into each poll */
    es_message_log log;
    es_message_log_init(&log, NULL, NULL);
    for (int k = 0; k < 10; k++)
        es_message_log_sayf(&log, 0, "first %d", k);
    es_message_log_copy(&log, &snap);
    check(snap.message_count == 10 && same_history(&log, &snap), "a snapshot's history is the log's");
    /* A line copied before is not copied again: a mark on it stays. */
    snprintf(snap.messages[0].text, sizeof snap.messages[0].text, "mark");
    for (int k = 0; k < 3; k++)
        es_message_log_sayf(&log, 0, "then %d", k);
    es_message_log_copy(&log, &snap);
    check(!strcmp(es_live_message_at(&snap, 0)->text, "mark") &&
              !strcmp(es_live_message_at(&snap, 12)->text, "then 2"),
          "only the lines said since are copied");
    for (int k = 0; k < 3 * ES_LIVE_MESSAGES; k++)
        es_message_log_sayf(&log, 0, "round %d", k);
    es_message_log_copy(&log, &snap);
    check(same_history(&log, &snap), "past the cap, the snapshot's history is still the log's");
}

/* Said once: a topic about a value, each topic apart. */
static void said_once(void)
{
    es_message_log log;
    es_message_log_init(&log, NULL, NULL);
    check(es_message_log_once(&log, 0, 1) == 1 && es_message_log_once(&log, 0, 1) == 0,
          "a topic is said once about a value");
    check(es_message_log_once(&log, 1, 1) == 1, "another topic is apart");
    check(es_message_log_once(&log, 0, 2) == 1 && es_message_log_once(&log, 0, 2) == 0,
          "about another value (a slot's next generation) it is said again, once");
    es_message_log_forget(&log, 0);
    check(es_message_log_once(&log, 0, 2) == 1 && es_message_log_once(&log, 1, 1) == 0,
          "forgotten, it is said again; the other topic still remembers");
    check(es_message_log_once(&log, 2, 0) == 1 && es_message_log_once(&log, 2, 0) == 0,
          "about 0 too, said once (a count or an index may be 0)");
    check(es_message_log_once(&log, ES_MESSAGE_TOPICS, 1) == 0 &&
              es_message_log_once(&log, -1, 1) == 0,
          "a topic past the log's is never said");
    check(es_message_log_kept(&log) == 0, "remembering says nothing by itself");
}

int main(void)
{
    one_line();
    cap();
    history();
    said_once();
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
