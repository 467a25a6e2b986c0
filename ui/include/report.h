/* A live session's figures as a report, made from the meter table (the
 * same definitions the workstation's screen and help use): the table a
 * person reads after playing, or one JSON object a script reads (its keys
 * are listed in the README). Reads the snapshot only. */
#ifndef ES_REPORT_H
#define ES_REPORT_H

#include <stdio.h>

#include "snapshot.h"

void es_report_write(const es_live_snapshot *snap, FILE *to, int json);

#endif
