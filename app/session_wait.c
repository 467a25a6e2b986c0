/* The headless loops' wait between polls (app.h): a tick, cut short when a
 * command arrives over OSC, so that a script's command is run and answered
 * within about a millisecond rather than at the next tick (17 ms on
 * average at 20 ms ticks, measured). */
#include <poll.h>
#include <time.h>

#include "app.h"
#include "session.h"

/* After a wake, this long for more to arrive, so that a flood is run in
 * batches (at most 1,000 polls a second), not a poll a message. */
#define BATCH_NS 1000000L

void es_app_wait(es_session *s, int ms)
{
    struct pollfd wake = {.fd = es_session_wake_fd(s), .events = POLLIN};
    if (wake.fd < 0)
        nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
    else if (poll(&wake, 1, ms) > 0)
        nanosleep(&(struct timespec){0, BATCH_NS}, NULL);
}
