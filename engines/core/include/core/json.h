/* JSON output: the reports of play, the workstation and bench. Numbers are
 * written with printf; every string goes through es_json_string, so a
 * device or file name with a quote, a backslash or a control character
 * still gives valid JSON. */
#ifndef ES_CORE_JSON_H
#define ES_CORE_JSON_H

#include <stdio.h>

/* Writes s as a JSON string, quotes included ("null" for NULL). */
void es_json_string(FILE *to, const char *s);

#endif
