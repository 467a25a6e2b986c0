/* A room's JACK port names as a manifest keeps them (jconvolver.h): an
 * import's names joined and split back the same; a name with the
 * separator keeps nothing rather than a wrong name; a hand-written
 * manifest's name with a colon, a control character, invalid UTF-8 or
 * too long for a port is left out, its neighbours kept. */
#include <stdio.h>
#include <string.h>

#include "jconvolver.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

int main(void)
{
    char names[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME] = {"in", "", "side.R"};
    char text[512], back[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME];
    es_jconvolver_names_join(names, 3, text, sizeof text);
    es_jconvolver_names_split(text, back, 3);
    char what[1024];
    snprintf(what, sizeof what, "joined '%s', split back: '%s' '%s' '%s'", text, back[0],
             back[1], back[2]);
    check(!strcmp(text, "in, , side.R") && !strcmp(back[0], "in") && !back[1][0] &&
              !strcmp(back[2], "side.R"),
          what);

    char none[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME] = {"", ""};
    es_jconvolver_names_join(none, 2, text, sizeof text);
    check(!text[0], "no name given: nothing kept in the manifest");
    char comma[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME] = {"a,b", "c"};
    es_jconvolver_names_join(comma, 2, text, sizeof text);
    check(!text[0], "a name holding the separator: nothing kept, not a wrong name");

    char long_name[200];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    snprintf(text, sizeof text, " ok-1 , bad:colon, esc\x1b[2J, \xff\xfe, %s ,last ", long_name);
    char got[6][ES_JCONVOLVER_NAME];
    es_jconvolver_names_split(text, got, 6);
    snprintf(what, sizeof what, "a hand-written line split: '%s' and '%s' kept, a colon, an "
             "ESC, invalid UTF-8 and a 199-byte name left out (%d %d %d %d)", got[0], got[5],
             !got[1][0], !got[2][0], !got[3][0], !got[4][0]);
    check(!strcmp(got[0], "ok-1") && !got[1][0] && !got[2][0] && !got[3][0] && !got[4][0] &&
              !strcmp(got[5], "last"),
          what);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
