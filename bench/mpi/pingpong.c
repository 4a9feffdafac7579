/*
 * pingpong.c - MPI's own round trip between two ranks of one host, for
 * tsr_micro's transport table (bench/micro/driver.c runs it under mpirun
 * and puts it beside the raw shared-memory figure of the same run).
 *
 * Measured as tsr_micro measures every round trip: the fastest of 10
 * bursts of 200, so that a burst other work interrupted does not count.
 * Rank 0 prints "M mpi_SIZE MICROSECONDS" for 64 B and 4 KiB.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BURSTS 10
#define BURST 200

static double burst(char *buf, int size, int rank)
{
    int peer = !rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < BURST; i++) {
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    static const int sizes[] = {64, 4096};
    static char buf[4096];
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks != 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: run it on 2 ranks, not %d\n", ranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(buf, 1, sizeof buf);
    for (int s = 0; s < 2; s++) {
        double best = 0;
        for (int b = 0; b < BURSTS; b++) {
            double t = burst(buf, sizes[s], rank);
            if (!b || t < best)
                best = t;
        }
        if (rank == 0)
            printf("M mpi_%d %.3f\n", sizes[s], best / BURST * 1e6);
    }
    MPI_Finalize();
    return 0;
}
