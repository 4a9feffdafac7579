/*
 * tsr_micro's three 64-byte round trips over shared memory that the
 * transport table compares: the raw ping-pong, the fast box and the AM
 * round trip, timed burst after burst in turn rather than one row after
 * the other.
 *
 * This machine's two cores are a hypervisor's, and it moves them: for
 * seconds at a time they behave as two hyperthreads of one core (a raw
 * round trip of 0.045 us) and then as two cores apart (0.35-0.45 us), in
 * the middle of a run as often as between runs. Timed one row after the
 * other, a row's fastest burst could come from one placement and the
 * figure it is divided by from the other: ratios of 0.1x and 10x in one
 * table. Taken in turn, every row's fastest burst comes from the same
 * stretch of the run, so the three see the same placements, and a ratio
 * between them compares like with like.
 */
#include "micro.h"
#include "tessera.h"

/* Turns of the three bursts. More than BURSTS: each placement must get
 * some of every row's bursts. */
#define TURNS 40
/* Round trips run untimed before each burst: between its turns the peer's
 * comm thread went to sleep, and the first request wakes it. */
#define LEAD 20

typedef struct paired_row {
    const char *name;
    burst_fn burst;
    const void *arg;
    int alone; /* node 0 runs it; node 1's comm thread answers */
    double best;
} paired_row;

void bench_shm_paired(void)
{
    static const size_t len = 64;
    void *raw = shm_burst_open(len), *box = box_burst_open();
    paired_row rows[3] = {{"shm_busy_64", shm_pingpong, raw, 0, 0},
                          {"shm_box_64", ring_pingpong, box, 0, 0},
                          {"am_echo_64", echo_burst, &len, 1, 0}};
    if (tsr_node() == 0)
        warm_up(echo_burst, &len);
    for (int t = 0; t < TURNS; t++)
        for (int i = 0; i < 3; i++) {
            tsr_barrier();
            if (rows[i].alone && tsr_node() != 0)
                continue;
            long first = (long)t * (LEAD + BURST) + 1;
            rows[i].burst(rows[i].arg, first, LEAD);
            double t0 = now_s();
            rows[i].burst(rows[i].arg, first + LEAD, BURST);
            double s = now_s() - t0;
            if (!t || s < rows[i].best)
                rows[i].best = s;
        }
    tsr_barrier();
    for (int i = 0; i < 3; i++)
        report(rows[i].name, rows[i].best, BURST);
    shm_burst_close(raw);
    box_burst_close(box);
}
