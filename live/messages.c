/* The session's message log (messages.h), and the history a snapshot
 * carries (snapshot.h): the log and the snapshot keep their lines in the
 * same ring, line k of those ever said at k % ES_LIVE_MESSAGES, so one
 * reading serves both. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/text.h"
#include "messages.h"

/* ---- the ring ---- */

static int ring_kept(int count)
{
    return count < ES_LIVE_MESSAGES ? count : ES_LIVE_MESSAGES;
}

/* Line k of those a ring of `count` ever said keeps (0: the oldest). */
static const es_live_message *ring_at(const es_live_message *ring, int count, int k)
{
    const int kept = ring_kept(count);
    if (k < 0 || k >= kept)
        return NULL;
    return &ring[(count - kept + k) % ES_LIVE_MESSAGES];
}

/* ---- the log ---- */

void es_message_log_init(es_message_log *log, es_message_listener listener, void *ctx)
{
    *log = (es_message_log){.listener = listener, .listener_ctx = ctx};
}

void es_message_log_add(es_message_log *log, int problem, const char *line)
{
    char safe[1400];
    es_text_escape(safe, sizeof safe, line);
    es_live_message *m = &log->lines[log->count++ % ES_LIVE_MESSAGES];
    const time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(m->when, sizeof m->when, "%H:%M:%S", &tm);
    snprintf(m->text, sizeof m->text, "%.299s", safe);
    m->problem = problem;
    if (log->listener)
        log->listener(log->listener_ctx, problem, safe);
}

void es_message_log_vsayf(es_message_log *log, int problem, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    es_message_log_add(log, problem, line);
}

void es_message_log_sayf(es_message_log *log, int problem, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    es_message_log_vsayf(log, problem, fmt, ap);
    va_end(ap);
}

int es_message_log_once(es_message_log *log, int topic, uint64_t about)
{
    if (topic < 0 || topic >= ES_MESSAGE_TOPICS ||
        (log->said[topic] && log->said_about[topic] == about))
        return 0;
    log->said[topic] = 1;
    log->said_about[topic] = about;
    return 1;
}

void es_message_log_forget(es_message_log *log, int topic)
{
    if (topic >= 0 && topic < ES_MESSAGE_TOPICS)
        log->said[topic] = 0;
}

int es_message_log_kept(const es_message_log *log)
{
    return ring_kept(log->count);
}

const es_live_message *es_message_log_at(const es_message_log *log, int k)
{
    return ring_at(log->lines, log->count, k);
}

void es_message_log_copy(const es_message_log *log, es_live_snapshot *snap)
{
    const int oldest = log->count - ES_LIVE_MESSAGES;
    const int first = snap->message_count > oldest ? snap->message_count : oldest;
    for (int k = first < 0 ? 0 : first; k < log->count; k++)
        snap->messages[k % ES_LIVE_MESSAGES] = log->lines[k % ES_LIVE_MESSAGES];
    snap->message_count = log->count;
}

/* ---- the snapshot's copy (snapshot.h) ---- */

int es_live_messages_kept(const es_live_snapshot *snap)
{
    return ring_kept(snap->message_count);
}

const es_live_message *es_live_message_at(const es_live_snapshot *snap, int k)
{
    return ring_at(snap->messages, snap->message_count, k);
}
