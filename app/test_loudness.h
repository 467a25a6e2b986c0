/* A listening test's loudness matching (earshot test, `loudness match` in
 * the plan): each stimulus's room, levelled as the session plays it,
 * convolved with the plan's source (its first 20 s), measured by BS.1770
 * (rooms/loudness.h); each stimulus then plays at its plan level plus
 * what brings it to the quietest one's loudness (never louder than it
 * was: no stimulus is pushed into the limiter). */
#ifndef ES_TEST_LOUDNESS_H
#define ES_TEST_LOUDNESS_H

#include <stddef.h>

#include "session.h"

/* level_db[k] (the plan's levels) given each stimulus's offset; said per
 * stimulus on stderr. 0, or -1 with one line. */
int es_test_match_loudness(const es_plan *plan, const es_session_config *sc, double *level_db,
                           char *err, size_t n);

#endif
