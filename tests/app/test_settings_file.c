/* The settings file's text, without a screen: what es_settings_format
 * writes, es_settings_parse reads back the same; bad lines and values are
 * each counted once, the first said, and leave the good ones alone. And a
 * file as a session's start (es_settings_to_config): the parts the command
 * line gave stay, B comes as B, the levels as levels, remembered rooms
 * marked so one that is gone is not fatal.
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
    st.have = ES_SET_SLOT | ES_SET_VIEW;
    st.levels = ES_MIX_TRIM | ES_MIX_WET | ES_MIX_DRY | ES_MIX_GAIN | ES_MIX_LIMITER;
    for (int k = 0; k < 2; k++)
        st.parts[k] = ES_SPEC_ROOM | ES_SPEC_ENGINE | ES_SPEC_PARTITION | ES_SPEC_PIPELINED |
                      ES_SPEC_BLOCK;
    st.slot[0] = (es_play_spec){.room = "cathedral", .engine = es_engine_find("cpu-direct"),
                                .block = 128};
    st.slot[1] = (es_play_spec){.room = "/tmp/a room with spaces.wav",
                                .engine = es_engine_find("cpu-partitioned"),
                                .options = {.partition = 1024}, .block = 512};
    st.playing = 1;
    st.spectrogram = 1;
    st.trim = -6;
    st.wet = -3;
    st.dry = -INFINITY;
    st.gain = 2;
    st.limiter = -1;
    return st;
}

/* full(), written and read back. */
static es_settings read_back(int print)
{
    char text[8192];
    const es_settings st = full();
    es_settings back = {0};
    es_settings_format(&st, text, sizeof text);
    es_settings_parse(&back, text);
    if (print)
        printf("%s", text);
    return back;
}

static void what_it_writes_it_reads(void)
{
    const es_settings st = full(), back = read_back(1);
    es_test_check(back.problems == 0, "what it writes it reads without a problem");
    es_test_check(back.have == st.have && back.levels == st.levels &&
                      back.parts[0] == st.parts[0] && back.parts[1] == st.parts[1],
                  "every value it wrote is read back");
    es_test_check(!strcmp(back.slot[1].room, st.slot[1].room) &&
                      back.slot[1].engine == st.slot[1].engine &&
                      back.slot[1].options.partition == 1024 && back.slot[1].block == 512 &&
                      back.slot[0].engine == st.slot[0].engine && back.slot[0].block == 128 &&
                      back.slot[0].options.partition == 0,
                  "both slots: room (spaces and all), engine, partition (auto), block");
    es_test_check(back.playing == 1 && back.spectrogram == 1, "the slot playing and the view");
    es_test_check(back.trim == -6 && fabs(back.wet + 3) < 0.05 && isinf(back.dry) &&
                      back.dry < 0 && fabs(back.gain - 2) < 0.05 && back.limiter == -1,
                  "the levels: trim, wet, dry off, output, the limiter's ceiling");
}

/* Damaged: each bad line once, the good ones kept. */
static void bad_lines_counted_once(void)
{
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
    es_test_check((bad.parts[1] & ES_SPEC_BLOCK) && bad.slot[1].block == 512 &&
                      (bad.levels & ES_MIX_TRIM) && bad.trim == -6,
                  "the good lines (CRLF, spaces around '=') are read");
    es_test_check(!(bad.parts[0] & (ES_SPEC_BLOCK | ES_SPEC_ENGINE)) &&
                      !(bad.levels & ES_MIX_WET) && !(bad.have & ES_SET_VIEW),
                  "the bad values are left out");
}

/* A newer earshot's keys are written back as they were, once, through any
 * number of reads and writes. */
static void unknown_keys_kept(void)
{
    es_settings newer = {0};
    es_settings_parse(&newer, "a.block = 512\nhead.smoothing = 12 ms\nb.crossfeed = on\n");
    char again[8192];
    es_settings_format(&newer, again, sizeof again);
    es_settings round = {0};
    es_settings_parse(&round, again);
    es_settings_format(&round, again, sizeof again);
    const char *first_kept = strstr(again, "head.smoothing = 12 ms\n");
    es_test_check(first_kept && strstr(again, "b.crossfeed = on\n") &&
                      !strstr(first_kept + 1, "head.smoothing") && round.slot[0].block == 512 &&
                      strstr(newer.first, "(kept in the file)"),
                  "unknown keys are kept, once, through a read and a write; and said");
}

/* A line longer than any setting: one problem, not one per piece. */
static void long_line_one_problem(void)
{
    static char big[30000];
    memset(big, 'x', sizeof big - 2);
    memcpy(big, "a.room = ", 9);
    big[sizeof big - 2] = '\n';
    es_settings huge = {0};
    es_settings_parse(&huge, big);
    es_test_check(huge.problems == 1 && !(huge.parts[0] & ES_SPEC_ROOM),
                  "a 30 kB line is one problem and no room");
}

/* As a start: --engine given keeps A's engine; the rest is the file's. */
static void file_as_a_start(void)
{
    const es_settings st = full();
    es_settings back = read_back(0); /* es_settings_to_config notes what it took */
    es_session_config sc = {.playing = ES_SLOT_A, .mix = {.wet = 1, .gain = 1}};
    sc.slot[ES_SLOT_A] = (es_play_spec){.engine = es_engine_find("cpu-nonuniform"), .block = 256};
    es_settings_to_config(&back, ES_SPEC_ENGINE, 0, &sc);
    es_test_check(sc.slot[0].engine == es_engine_find("cpu-nonuniform") &&
                      !strcmp(sc.slot[0].room, "cathedral") && sc.slot[0].block == 128,
                  "a start: the engine the command line gave, the file's room and block in A");
    es_test_check(sc.b_parts == back.parts[1] && !strcmp(sc.slot[1].room, st.slot[1].room) &&
                      sc.slot[1].block == 512 && sc.playing == ES_SLOT_A,
                  "B comes as B; A plays, since the command line named a part of it");
    es_test_check(sc.remembered_rooms == 3 && sc.mix.trim_db == -6 && sc.mix.dry == 0 &&
                      sc.mix.limiter && sc.mix.ceiling_db == -1,
                  "the rooms are marked remembered; the levels are the file's");
    es_session_config plain = {.playing = ES_SLOT_A};
    es_settings_to_config(&back, 0, 0, &plain);
    es_test_check(plain.playing == ES_SLOT_B, "with nothing given, the slot that played last plays");
}

static void gone_room_is_a_problem(void)
{
    es_settings gone = read_back(0);
    gone.problems = 0;
    es_settings_rooms_gone(&gone, 1u << ES_SLOT_B);
    char line[600];
    es_test_check(es_settings_problem(&gone, line, sizeof line) &&
                      strstr(line, "b.room '/tmp/a room with spaces.wav': no such room now"),
                  "a remembered room that is gone is one of the file's problems");
}

int main(void)
{
    what_it_writes_it_reads();
    bad_lines_counted_once();
    unknown_keys_kept();
    long_line_one_problem();
    file_as_a_start();
    gone_room_is_a_problem();
    printf("%s\n", es_test_failures ? "FAILED" : "PASSED");
    return es_test_failures ? 1 : 0;
}
