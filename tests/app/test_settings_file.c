/* The settings file's text, without a screen: what es_settings_format
 * writes, es_settings_parse reads back the same; bad lines and values are
 * each counted once, the first said, and leave the good ones alone.
 *
 *   test_settings_file */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"
#include "settings.h"

static es_settings full(void)
{
    es_settings st = {0};
    st.have = ES_SET_SLOT | ES_SET_VIEW | ES_SET_TRIM | ES_SET_WET | ES_SET_DRY | ES_SET_GAIN |
              ES_SET_LIMITER;
    for (int k = 0; k < 2; k++)
        st.have |= (unsigned)(ES_SET_ROOM | ES_SET_ENGINE | ES_SET_PARTITION |
                              ES_SET_PIPELINED | ES_SET_BLOCK)
                   << (k ? ES_SET_SLOT_SHIFT : 0);
    st.slot[0] = (es_settings_slot){.room = "cathedral", .engine = es_engine_find("cpu-direct"),
                                    .block = 128};
    st.slot[1] = (es_settings_slot){.room = "/tmp/a room with spaces.wav",
                                    .engine = es_engine_find("cpu-partitioned"),
                                    .partition = 1024, .block = 512};
    st.playing = 1;
    st.spectrogram = 1;
    st.trim = -6;
    st.wet = -3;
    st.dry = -INFINITY;
    st.gain = 2;
    st.limiter = -1;
    return st;
}

int main(void)
{
    char text[8192];
    es_settings st = full(), back = {0};
    es_settings_format(&st, text, sizeof text);
    es_settings_parse(&back, text);
    printf("%s", text);
    es_test_check(back.problems == 0, "what it writes it reads without a problem");
    es_test_check(back.have == st.have, "every value it wrote is read back");
    es_test_check(!strcmp(back.slot[1].room, st.slot[1].room) &&
                      back.slot[1].engine == st.slot[1].engine &&
                      back.slot[1].partition == 1024 && back.slot[1].block == 512 &&
                      back.slot[0].engine == st.slot[0].engine && back.slot[0].block == 128 &&
                      back.slot[0].partition == 0,
                  "both slots: room (spaces and all), engine, partition (auto), block");
    es_test_check(back.playing == 1 && back.spectrogram == 1, "the slot playing and the view");
    es_test_check(back.trim == -6 && fabs(back.wet + 3) < 0.05 && isinf(back.dry) &&
                      back.dry < 0 && fabs(back.gain - 2) < 0.05 && back.limiter == -1,
                  "the levels: trim, wet, dry off, output, the limiter's ceiling");

    /* Damaged: each bad line once, the good ones kept. */
    es_settings bad = {0};
    es_settings_parse(&bad, "# a comment\r\n"
                            "garbage\n"
                            "a.block = 7\n"
                            "a.engine = nope\n"
                            "trim = nan\n"
                            "wet = 100\n"
                            "colour = red\n"
                            "view = sideways\n"
                            "b.block = 512\r\n"
                            "  trim   =  -6  \n");
    printf("     damaged: %d problems, the first: %s\n", bad.problems, bad.first);
    es_test_check(bad.problems == 7, "7 bad lines, 7 problems");
    es_test_check(strstr(bad.first, "line 2") != NULL, "the first said is line 2's");
    es_test_check((bad.have & (ES_SET_BLOCK << ES_SET_SLOT_SHIFT)) && bad.slot[1].block == 512 &&
                      (bad.have & ES_SET_TRIM) && bad.trim == -6,
                  "the good lines (CRLF, spaces around '=') are read");
    es_test_check(!(bad.have & (ES_SET_BLOCK | ES_SET_ENGINE | ES_SET_WET | ES_SET_VIEW)),
                  "the bad values are left out");

    /* A line longer than any setting: one problem, not one per piece. */
    static char big[30000];
    memset(big, 'x', sizeof big - 2);
    memcpy(big, "a.room = ", 9);
    big[sizeof big - 2] = '\n';
    es_settings huge = {0};
    es_settings_parse(&huge, big);
    es_test_check(huge.problems == 1 && !(huge.have & ES_SET_ROOM),
                  "a 30 kB line is one problem and no room");

    printf("%s\n", es_test_failures ? "FAILED" : "PASSED");
    return es_test_failures ? 1 : 0;
}
