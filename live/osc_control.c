/* Every command over OSC (osc_control.h): the OSC thread's side (what a
 * message asks, queued or answered at once, the meters sent when due) and
 * the session thread's (the queue run through the command table, gets
 * answered, the figures taken). */
#define _GNU_SOURCE
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "commands.h"
#include "core/clock.h"
#include "core/text.h"
#include "figures.h"
#include "osc_control.h"
#include "osc_values.h"

#define PREFIX "/earshot/"
/* A queued command's line: a room's path and its word are the longest. */
#define LINE_MAX_OSC 1200
#define ADDRESS_MAX 64

typedef struct {
    es_osc_peer from;
    char address[ADDRESS_MAX];  /* as sent (escaped), for the reply */
    char line[LINE_MAX_OSC];    /* the command line, or "get NAME" */
    int get;                    /* 1: /earshot/get */
} queued;

typedef struct {
    es_osc_peer to;
    long long period_ns, next_ns;
    int used;
} subscriber;

#define FIGURES_MAX 32

struct es_osc_control {
    es_head *head;
    int fd;                     /* the listener's socket; -1 none yet */
    es_session_log *log;
    pthread_mutex_t lock;       /* the queue, the subscribers and the figures */
    queued queue[ES_OSC_QUEUE];
    int head_at, count;
    subscriber subs[ES_OSC_SUBSCRIBERS];
    /* The figures the meters send, from the last poll. */
    int figures;
    const es_figure *figure[FIGURES_MAX];
    double value[FIGURES_MAX];
    int said;                   /* the session's lines forwarded so far */
    int wake;                   /* an eventfd: a command queued (es_osc_control_wake_fd) */
};

es_osc_control *es_osc_control_create(es_head *head)
{
    es_osc_control *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->head = head;
    c->fd = -1;
    c->said = -1;
    c->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (c->wake < 0) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void es_osc_control_destroy(es_osc_control *c)
{
    if (!c)
        return;
    close(c->wake);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void es_osc_control_set_socket(es_osc_control *c, int fd)
{
    c->fd = fd;
}

void es_osc_control_set_log(es_osc_control *c, es_session_log *log)
{
    c->log = log;
}

void es_osc_peer_text(const es_osc_peer *p, char *out, size_t n)
{
    char host[64], port[16];
    if (getnameinfo((const struct sockaddr *)&p->addr, p->len, host, sizeof host, port,
                    sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, n, "unknown");
        return;
    }
    snprintf(out, n, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
}

int es_osc_control_owns(const char *path)
{
    return !strncmp(path, PREFIX, strlen(PREFIX));
}

/* ---- replies ---- */

static void send_message(es_osc_control *c, const es_osc_peer *to, const char *path,
                         lo_message m)
{
    size_t size = 0;
    void *data = lo_message_serialise(m, path, NULL, &size);
    if (data && c->fd >= 0)
        (void)sendto(c->fd, data, size, MSG_DONTWAIT, (const struct sockaddr *)&to->addr,
                     to->len);
    free(data);
}

static void vreply(es_osc_control *c, const es_osc_peer *to, const char *path,
                   const char *types, va_list ap)
{
    lo_message m = lo_message_new();
    if (!m)
        return;
    for (const char *t = types; *t; t++) {
        if (*t == 's')
            lo_message_add_string(m, va_arg(ap, const char *));
        else if (*t == 'i')
            lo_message_add_int32(m, va_arg(ap, int));
        else if (*t == 'f')
            lo_message_add_float(m, (float)va_arg(ap, double));
    }
    send_message(c, to, path, m);
    lo_message_free(m);
}

void es_osc_control_reply(es_osc_control *c, const es_osc_peer *to, const char *path,
                          const char *types, ...)
{
    if (!c || !to)
        return;
    va_list ap;
    va_start(ap, types);
    vreply(c, to, path, types, ap);
    va_end(ap);
}

/* done, refused or quit (a done that ends the session). */
static const char *status_word(int rc)
{
    return rc < 0 ? "refused" : rc > 0 ? "quit" : "done";
}

void es_osc_control_answered(es_osc_control *c, const es_osc_peer *from, const char *address,
                             const char *line, int rc, const char *reply)
{
    if (!c)
        return;
    es_osc_control_reply(c, from, rc < 0 ? "/earshot/refused" : "/earshot/done", "ss",
                         address, reply);
    char origin[96];
    es_osc_peer_text(from, origin, sizeof origin);
    char with[112];
    snprintf(with, sizeof with, "osc %s", origin);
    es_session_log_command(c->log, with, line, status_word(rc), reply);
}

/* ---- the OSC thread: what a message asks ---- */

int es_osc_args_line(const char *name, const char *types, lo_arg **argv, int argc, char *out,
                     size_t n, char *why, size_t wn)
{
    size_t used = (size_t)snprintf(out, n, "%s", name);
    for (int k = 0; k < argc && used < n; k++) {
        char value[64];
        const char *text = value;
        float f;
        double d;
        int32_t i;
        int64_t h;
        switch (types[k]) {
        case LO_STRING:
        /* The string where the packet holds it, 4-byte aligned: a cast,
         * not lo_arg's member (its union wants 8; head_osc.c's number()). */
        case LO_SYMBOL: text = (const char *)argv[k]; break;
        case LO_INT32: memcpy(&i, argv[k], sizeof i); snprintf(value, sizeof value, "%d", i); break;
        case LO_INT64:
            memcpy(&h, argv[k], sizeof h);
            snprintf(value, sizeof value, "%lld", (long long)h);
            break;
        case LO_FLOAT: memcpy(&f, argv[k], sizeof f); snprintf(value, sizeof value, "%.9g", f); break;
        case LO_DOUBLE: memcpy(&d, argv[k], sizeof d); snprintf(value, sizeof value, "%.17g", d); break;
        case LO_TRUE: text = "on"; break;
        case LO_FALSE: text = "off"; break;
        default:
            snprintf(why, wn, "%s: argument %d is an OSC '%c', which is no value (send a "
                     "number, a string, or true/false)", name, k + 1,
                     types[k] >= 0x20 && types[k] < 0x7f ? types[k] : '?');
            return -1;
        }
        used += (size_t)snprintf(out + used, n - used, " %s", text);
    }
    if (used >= n) {
        snprintf(why, wn, "%s: its values are longer than %zu characters", name, n - 1);
        return -1;
    }
    return 0;
}

/* The subscriber `from` is, or a free place for it (NULL: none). */
static subscriber *subscriber_of(es_osc_control *c, const es_osc_peer *from, int take)
{
    subscriber *free_one = NULL;
    for (int k = 0; k < ES_OSC_SUBSCRIBERS; k++) {
        subscriber *s = &c->subs[k];
        if (s->used && s->to.len == from->len && !memcmp(&s->to.addr, &from->addr, from->len))
            return s;
        if (!s->used && !free_one)
            free_one = s;
    }
    return take ? free_one : NULL;
}

/* /earshot/subscribe ,f RATE (0: stop) and /earshot/unsubscribe. */
static void subscribe(es_osc_control *c, const es_osc_peer *from, const char *address,
                      const char *line, double rate)
{
    char why[200] = "";
    pthread_mutex_lock(&c->lock);
    subscriber *s = subscriber_of(c, from, rate > 0);
    if (rate == 0) {
        if (s)
            s->used = 0;
    } else if (!(rate >= ES_OSC_RATE_MIN && rate <= ES_OSC_RATE_MAX)) {
        snprintf(why, sizeof why, "subscribe: %g a second is out of range (%g..%g, or 0 to "
                 "stop)", rate, ES_OSC_RATE_MIN, ES_OSC_RATE_MAX);
    } else if (!s) {
        snprintf(why, sizeof why, "subscribe: %d senders follow the meters already (the "
                 "most); one must unsubscribe first", ES_OSC_SUBSCRIBERS);
    } else {
        const long long now = es_now_ns();
        *s = (subscriber){.to = *from, .used = 1, .period_ns = (long long)(1e9 / rate),
                          .next_ns = now};
    }
    pthread_mutex_unlock(&c->lock);
    char said[96] = "";
    if (!why[0] && rate > 0)
        snprintf(said, sizeof said, "meters %g a second", rate);
    else if (!why[0])
        snprintf(said, sizeof said, "meters stopped");
    es_head_osc_count(c->head, !why[0], why[0] != 0, 0, 0, why[0] ? why : NULL);
    es_osc_control_answered(c, from, address, line, why[0] ? -1 : 0, why[0] ? why : said);
}

/* A command for the session's thread: queued, or refused at once. */
static void enqueue(es_osc_control *c, const es_osc_peer *from, const char *address,
                    const char *line, int get)
{
    pthread_mutex_lock(&c->lock);
    const int full = c->count == ES_OSC_QUEUE;
    if (!full) {
        queued *q = &c->queue[(c->head_at + c->count++) % ES_OSC_QUEUE];
        q->from = *from;
        snprintf(q->address, sizeof q->address, "%s", address);
        snprintf(q->line, sizeof q->line, "%s", line);
        q->get = get;
    }
    pthread_mutex_unlock(&c->lock);
    if (!full) { /* the session's loop may be waiting on it */
        const uint64_t one = 1;
        (void)!write(c->wake, &one, sizeof one);
    }
    if (full) {
        char why[128];
        snprintf(why, sizeof why, "busy: %d commands wait to run already; send it again",
                 ES_OSC_QUEUE);
        es_head_osc_count(c->head, 0, 1, 0, 0, why);
        es_osc_control_answered(c, from, address, line, -1, why);
    }
}

void es_osc_control_message(es_osc_control *c, const es_osc_peer *from, const char *path,
                            const char *types, lo_arg **argv, int argc)
{
    char address[ADDRESS_MAX], line[LINE_MAX_OSC], why[300];
    es_text_escape(address, sizeof address, path);
    const char *name = path + strlen(PREFIX);
    if (strlen(name) > 40 || strchr(name, '/')) {
        snprintf(why, sizeof why, "%s: an address earshot does not read (/earshot/COMMAND: "
                 "earshot play --osc-help lists them)", address);
        es_head_osc_count(c->head, 0, 0, 0, 1, why);
        es_osc_control_answered(c, from, address, address, -1, why);
        return;
    }
    if (es_osc_args_line(name, types, argv, argc, line, sizeof line, why, sizeof why) != 0) {
        es_head_osc_count(c->head, 0, 0, 1, 0, why);
        es_osc_control_answered(c, from, address, address, -1, why);
        return;
    }
    if (!strcmp(name, "ping")) {
        es_head_osc_count(c->head, 1, 0, 0, 0, NULL);
        es_osc_control_reply(c, from, "/earshot/pong", "");
        return;
    }
    if (!strcmp(name, "subscribe") || !strcmp(name, "unsubscribe")) {
        double rate = 0;
        char *end = NULL;
        const int stop = !strcmp(name, "unsubscribe");
        if (!stop && argc == 1)
            rate = strtod(line + strlen(name), &end);
        if (!stop && (argc != 1 || !end || *end || !isfinite(rate))) {
            snprintf(why, sizeof why, "subscribe needs RATE (meters a second, %g..%g; 0 "
                     "stops)", ES_OSC_RATE_MIN, ES_OSC_RATE_MAX);
            es_head_osc_count(c->head, 0, 0, 1, 0, why);
            es_osc_control_answered(c, from, address, line, -1, why);
            return;
        }
        subscribe(c, from, address, line, stop ? 0 : rate);
        return;
    }
    if (strcmp(name, "get") != 0 && !es_command_find(name)) {
        /* The command line's own refusal, said on this thread: the parse
         * touches nothing of the session's. */
        const es_command *cmd;
        es_command_args args;
        int given;
        es_command_parse(line, &cmd, &args, &given, why, sizeof why);
        es_head_osc_count(c->head, 0, 0, 0, 1, why);
        es_osc_control_answered(c, from, address, address, -1, why);
        return;
    }
    enqueue(c, from, address, line, !strcmp(name, "get"));
}

/* ---- the meters, on the OSC thread ---- */

static void send_meters(es_osc_control *c, const es_osc_peer *to)
{
    lo_message m = lo_message_new();
    if (!m)
        return;
    pthread_mutex_lock(&c->lock);
    for (int k = 0; k < c->figures; k++) {
        lo_message_add_string(m, c->figure[k]->name);
        if (c->figure[k]->integer)
            lo_message_add_int32(m, (int32_t)c->value[k]);
        else
            lo_message_add_float(m, (float)c->value[k]);
    }
    pthread_mutex_unlock(&c->lock);
    send_message(c, to, "/earshot/meters", m);
    lo_message_free(m);
}

long long es_osc_control_tick(es_osc_control *c)
{
    const long long now = es_now_ns();
    long long next = -1;
    es_osc_peer due[ES_OSC_SUBSCRIBERS];
    int n = 0;
    pthread_mutex_lock(&c->lock);
    for (int k = 0; k < ES_OSC_SUBSCRIBERS; k++) {
        subscriber *s = &c->subs[k];
        if (!s->used)
            continue;
        if (s->next_ns <= now) {
            due[n++] = s->to;
            s->next_ns += s->period_ns;
            /* Behind by more than a period (the thread was held up): the
             * rate holds from now, rather than a burst to catch up. */
            if (s->next_ns < now)
                s->next_ns = now + s->period_ns;
        }
        next = next < 0 || s->next_ns - now < next ? s->next_ns - now : next;
    }
    pthread_mutex_unlock(&c->lock);
    for (int k = 0; k < n; k++)
        send_meters(c, &due[k]);
    return next;
}

/* ---- the session's thread ---- */

/* The figures the meters send, from the snapshot (the hidden ones left
 * out while blind). */
static void take_figures(es_osc_control *c, const es_live_snapshot *snap, int blind)
{
    pthread_mutex_lock(&c->lock);
    c->figures = 0;
    for (const es_figure *f = es_figures; f->name && c->figures < FIGURES_MAX; f++)
        if (!(blind && f->reveals)) {
            c->figure[c->figures] = f;
            c->value[c->figures++] = f->value(snap);
        }
    pthread_mutex_unlock(&c->lock);
}

/* The lines said since the last poll, to every subscriber (none while
 * blind: a line names rooms and engines). */
static void forward_said(es_osc_control *c, const es_live_snapshot *snap, int blind)
{
    if (c->said < 0 || blind) {
        c->said = snap->message_count;
        return;
    }
    subscriber subs[ES_OSC_SUBSCRIBERS];
    pthread_mutex_lock(&c->lock);
    memcpy(subs, c->subs, sizeof subs);
    pthread_mutex_unlock(&c->lock);
    int from = c->said > snap->message_count - ES_LIVE_MESSAGES
                   ? c->said : snap->message_count - ES_LIVE_MESSAGES;
    for (int k = from; k < snap->message_count; k++) {
        const es_live_message *m = &snap->messages[k % ES_LIVE_MESSAGES];
        for (int j = 0; j < ES_OSC_SUBSCRIBERS; j++)
            if (subs[j].used)
                es_osc_control_reply(c, &subs[j].to, "/earshot/said", "is", m->problem,
                                     m->text);
    }
    c->said = snap->message_count;
}

/* Takes the oldest queued command into *q: 1, or 0 when none waits. */
static int take(es_osc_control *c, queued *q)
{
    pthread_mutex_lock(&c->lock);
    const int any = c->count > 0;
    if (any) {
        *q = c->queue[c->head_at];
        c->head_at = (c->head_at + 1) % ES_OSC_QUEUE;
        c->count--;
    }
    pthread_mutex_unlock(&c->lock);
    return any;
}

/* /earshot/get ,s NAME: answered with /earshot/value, or refused. */
static void answer_get(es_osc_control *c, es_session *s, const queued *q)
{
    char why[300];
    const char *name = q->line + 3;
    name += strspn(name, " ");
    lo_message m = lo_message_new();
    if (!m)
        return;
    lo_message_add_string(m, name);
    const int rc = es_osc_value(s, name, m, why, sizeof why);
    if (rc == 0) {
        send_message(c, &q->from, "/earshot/value", m);
        es_head_osc_count(c->head, 1, 0, 0, 0, NULL);
    } else {
        es_head_osc_count(c->head, 0, 1, 0, 0, why);
        es_osc_control_reply(c, &q->from, "/earshot/refused", "ss", q->address, why);
    }
    lo_message_free(m);
    char origin[96], with[112];
    es_osc_peer_text(&q->from, origin, sizeof origin);
    snprintf(with, sizeof with, "osc %s", origin);
    es_session_log_command(c->log, with, q->line, rc == 0 ? "value" : "refused",
                           rc == 0 ? "" : why);
}

int es_osc_control_wake_fd(const es_osc_control *c)
{
    return c->wake;
}

int es_osc_control_poll(es_osc_control *c, es_session *s)
{
    uint64_t woken;
    (void)!read(c->wake, &woken, sizeof woken); /* cleared: what it woke for runs now */
    const es_live_snapshot *snap = es_session_snapshot(s);
    const int blind = es_session_blind(s);
    take_figures(c, snap, blind);
    forward_said(c, snap, blind);
    queued q;
    int quit = 0;
    /* At most a queue's worth a poll: a flood never holds the screen. */
    for (int k = 0; k < ES_OSC_QUEUE && !quit && take(c, &q); k++) {
        if (q.get) {
            answer_get(c, s, &q);
            continue;
        }
        char origin[96], with[112], reply[600];
        es_osc_peer_text(&q.from, origin, sizeof origin);
        snprintf(with, sizeof with, "osc %s", origin);
        const int rc = es_command_run_from(s, with, q.line, reply, sizeof reply);
        es_head_osc_count(c->head, rc >= 0, rc < 0, 0, 0, rc < 0 ? reply : NULL);
        es_osc_control_reply(c, &q.from, rc < 0 ? "/earshot/refused" : "/earshot/done", "ss",
                             q.address, reply);
        quit = rc == 1;
    }
    return quit;
}
