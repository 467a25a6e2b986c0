/* JSON output: the reports of play, the workstation and bench. Numbers are
 * written with printf; every string goes through es_json_string, so a
 * device or file name with a quote, a backslash or a control character
 * still gives valid JSON: C0, DEL and C1 controls as \u escapes, bytes
 * that are not UTF-8 as U+FFFD. No raw control byte reaches a terminal
 * that shows the report. */
#ifndef ES_CORE_JSON_H
#define ES_CORE_JSON_H

#include <stdio.h>

/* Writes s as a JSON string, quotes included ("null" for NULL). */
void es_json_string(FILE *to, const char *s);

#endif
