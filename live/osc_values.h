/* What /earshot/get NAME answers (internal to live/; osc_control.h): the
 * value of each command that has one, as the command would take it back
 * (block an int32, gain a float in dB or "off", engine a string), the
 * meters as name/value pairs, and a listening test's state. A value that
 * tells a blind test's stimuli apart (room, engine, slot, block, level,
 * latency) is refused while one runs. */
#ifndef ES_OSC_VALUES_H
#define ES_OSC_VALUES_H

#include <lo/lo.h>
#include <stddef.h>

#include "session.h"

/* The value of `name` added to m: 0, or -1 with why in one line. */
int es_osc_value(es_session *s, const char *name, lo_message m, char *why, size_t n);
/* The names, ", " between. */
void es_osc_value_names(char *out, size_t n);

#endif
