/* The benchmark's judge: which late blocks are the engine's misses and
 * which the machine's stalls, on made-up blocks with known answers.
 *
 *   test_judge */
#include <stdio.h>
#include <string.h>

#include "bench_judge.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* One late block judged alone: 1 miss, 0 stall, -1 still waiting. */
static int one(judge *j, block_record b, int final)
{
    j->blocks = &b;
    j->judged = 0;
    const long misses = j->misses, stalls = j->stalls;
    judge_until(j, 1, final);
    if (j->judged == 0)
        return -1;
    return j->misses > misses ? 1 : j->stalls > stalls ? 0 : -2;
}

int main(void)
{
    /* A CPU engine: its own work is the thread's CPU time. Budget 1000 us. */
    judge cpu = {.budget_us = 1000, .gpu = 0, .last_class = 1};
    check(one(&cpu, (block_record){.took_us = 1500, .cpu_us = 300, .late = 1}, 0) == 0,
          "CPU engine: 1500 us late, 300 us of CPU: a stall (descheduled)");
    check(one(&cpu, (block_record){.took_us = 1500, .cpu_us = 950, .late = 1}, 0) == 1,
          "CPU engine: 1500 us late, 950 us of CPU (over 80 %): a miss");
    check(one(&cpu, (block_record){.took_us = 100, .cpu_us = 90, .late = 1, .helper_late = 1},
              0) == 1,
          "CPU engine: a helper (tail) late: a miss");
    check(one(&cpu, (block_record){.took_us = 900, .cpu_us = 900, .late = 0}, 0) == -2,
          "a block in time is neither");
    check(strstr(cpu.first_miss, "1500 us (CPU 950 us)") != NULL,
          "the first miss is said in words");
    printf("     %s\n", cpu.first_miss);

    /* A GPU engine: its own work is its job's GPU time. Jobs 5..20 took
     * 40 us (the median), job 1 50 us, job 2 900 us, job 4 300 us, job 3
     * not known yet. */
    double dev[21];
    for (int k = 0; k <= 20; k++)
        dev[k] = k >= 5 ? 40 : -1;
    dev[1] = 50, dev[2] = 900, dev[4] = 300;
    judge gpu = {.device_by_job = dev, .jobs = 20, .budget_us = 1000, .gpu = 1,
                 .known = 19, .last_class = 1};
    check(one(&gpu, (block_record){.took_us = 1100, .cpu_us = 1090, .job = 1, .late = 1}, 0) == 0,
          "GPU engine: late, its job took 50 us: a stall (the job's time was usual)");
    check(one(&gpu, (block_record){.took_us = 1100, .cpu_us = 1090, .job = 2, .late = 1}, 0) == 1,
          "GPU engine: late, its job took 900 us (over 80 % of the budget): a miss");
    check(one(&gpu, (block_record){.took_us = 1100, .cpu_us = 1090, .job = 4, .late = 1}, 0) == 1,
          "GPU engine: its job took 300 us, over a quarter and over twice the median: a miss");
    check(one(&gpu, (block_record){.took_us = 1100, .cpu_us = 700, .job = 2, .late = 1}, 0) == 0,
          "GPU engine: the measuring thread 400 us off the CPU: a stall");
    check(one(&gpu, (block_record){.took_us = 1067, .cpu_us = 1067, .job = 3, .late = 1}, 0) == -1,
          "GPU engine: its job's time not known yet: it waits");
    check(one(&gpu, (block_record){.took_us = 1067, .cpu_us = 1067, .job = 3, .late = 1}, 1) == 1,
          "... and at the end, still unknown: a miss");
    one(&gpu, (block_record){.took_us = 1100, .cpu_us = 1090, .job = 1, .late = 1}, 0);
    check(one(&gpu, (block_record){.took_us = 5, .cpu_us = 5, .job = 0, .late = 1}, 0) == 0,
          "GPU engine: no job of its own (the GPU still busy): as the late block before it");

    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
