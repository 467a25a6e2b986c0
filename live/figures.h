/* The session's figures by name (internal to live/): what an OSC
 * subscription's meters carry and what the session log writes beside each
 * command, one table of the snapshot's numbers. A figure that tells two
 * stimuli apart (a slot, an engine's load or misses, a latency) is marked
 * `reveals`: a blind test leaves it out of what the subject can read. */
#ifndef ES_FIGURES_H
#define ES_FIGURES_H

#include <stdio.h>

#include "snapshot.h"

typedef struct {
    const char *name;  /* the key: OSC meters' name, the log's JSON key */
    int integer;       /* sent as an OSC int32 (a count), else a float */
    int reveals;       /* hidden while a blind test runs */
    double (*value)(const es_live_snapshot *s);
} es_figure;

extern const es_figure es_figures[];

/* The figures as one JSON object ({"elapsed":1.25,...}), the hidden ones
 * left out when blind. */
void es_figures_json(const es_live_snapshot *s, int blind, FILE *to);

#endif
