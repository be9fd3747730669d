/*
 * mpi_pingpong: the smallest MPI program that moves real data between two
 * ranks, for the interop harness (tests/interop, tool mpi_pingpong). Rank 0
 * sends N messages of S bytes to rank 1, which checks each and sends it
 * back; rank 0 checks the echo. Every byte is a function of the message
 * number and its offset, so a message delivered twice, out of order or
 * torn is a wrong byte. It prints the mean round-trip time and exits
 * non-zero on the first wrong byte (MPI_Abort: mpirun then fails too).
 *
 *   mpirun -n 2 ... mpi_pingpong [-s SIZE] [-n ITERS]
 *
 * Built on the host with mpicc by tests/interop/image and copied into the
 * guest; which transport carries it is MPI's choice (the harness forces
 * UCX over verbs and checks the capture for RoCE frames).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char pattern(int msg, size_t off)
{
	return (unsigned char)(msg * 31 + off * 7 + 1);
}

static void fill(unsigned char *buf, size_t size, int msg)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern(msg, i);
}

/* The first offset whose byte is wrong, or size when all are right. */
static size_t check(const unsigned char *buf, size_t size, int msg)
{
	for (size_t i = 0; i < size; i++)
		if (buf[i] != pattern(msg, i))
			return i;
	return size;
}

int main(int argc, char **argv)
{
	size_t size = 4096;
	int iters = 100, rank, nranks, opt;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			size = strtoul(optarg, NULL, 0);
		else if (opt == 'n')
			iters = atoi(optarg);
		else
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (nranks != 2 || size == 0 || iters < 1) {
		if (rank == 0)
			fprintf(stderr, "mpi_pingpong: needs 2 ranks, -s > 0, -n > 0\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	unsigned char *buf = malloc(size);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);

	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int m = 0; m < iters; m++) {
		size_t bad;

		if (rank == 0) {
			fill(buf, size, m);
			MPI_Send(buf, (int)size, MPI_BYTE, 1, m, MPI_COMM_WORLD);
			memset(buf, 0, size);
			MPI_Recv(buf, (int)size, MPI_BYTE, 1, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, (int)size, MPI_BYTE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		bad = check(buf, size, m);
		if (bad != size) {
			fprintf(stderr, "mpi_pingpong: rank %d, message %d: byte %zu is 0x%02x, not 0x%02x\n",
				rank, m, bad, buf[bad], pattern(m, bad));
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (rank == 1)
			MPI_Send(buf, (int)size, MPI_BYTE, 0, m, MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("mpi_pingpong: %d round trips of %zu bytes, %.1f us each, every byte checked\n",
			iters, size, t * 1e6 / iters);
	free(buf);
	MPI_Finalize();
	return 0;
}
