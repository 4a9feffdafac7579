/* cpu.h - a pause hint for spin loops and a monotonic clock; both safe in a
 * signal handler. */
#ifndef TSR_CPU_H
#define TSR_CPU_H

#include <time.h>

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
