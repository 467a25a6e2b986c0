/* earshot engines: every engine, whether it runs here, and why not. */
#include <stdio.h>
#include <string.h>

#include "core/args.h"
#include "app.h"
#include "engine.h"

void es_engines_help(FILE *to)
{
    fputs("\nEngines (--engine NAME; earshot engines says which run here):\n", to);
    for (int i = 0; es_engines[i]; i++)
        fprintf(to, "  %-17s %s\n", es_engines[i]->name, es_engines[i]->summary);
}

int es_cmd_engines(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: earshot engines [--json]\n"
                   "Lists every engine, whether it is usable on this machine, and why not.\n");
            return 0;
        } else {
            es_error("engines: unknown option '%s'", argv[i]);
            return 2;
        }
    }
    for (int k = 0; es_engines[k]; k++) {
        const es_engine_class *e = es_engines[k];
        char why[256] = "";
        int usable = e->probe(why, sizeof why);
        if (json)
            printf("{\"name\":\"%s\",\"usable\":%s,\"summary\":\"%s\",\"note\":\"%s\"}\n",
                   e->name, usable ? "true" : "false", e->summary, why);
        else
            printf("%-17s %-12s %s\n%17s %12s %s\n", e->name,
                   usable ? "usable" : "unavailable", e->summary, "", "", why);
    }
    return 0;
}
