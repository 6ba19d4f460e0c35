/* mpi_connect.c — two separately launched jobs joined by MPI_Comm_accept /
 * MPI_Comm_connect: the server's rank 0 opens a port and writes its name
 * to PORTFILE (by temporary name and rename), the client's rank 0 waits
 * for the file; then over the intercommunicator a message each way, an
 * allreduce, MPI_Intercomm_merge and a barrier on the merged communicator,
 * MPI_Comm_disconnect. Each rank prints one line (mpirun orders nothing:
 * compare sorted).
 *
 * Usage: mpirun --ompi-server file:URI -np N mpi_connect server|client PORTFILE */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int w;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    if (argc != 3 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0)) {
        if (w == 0)
            fprintf(stderr, "usage: mpi_connect server|client PORTFILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int server = strcmp(argv[1], "server") == 0;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm ic;
    if (server) {
        if (w == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            char tmp[4200];
            snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
            FILE *f = fopen(tmp, "w");
            if (!f || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 || rename(tmp, argv[2]) != 0) {
                perror(argv[2]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    } else {
        if (w == 0) {
            FILE *f;
            while (!(f = fopen(argv[2], "r")))
                usleep(100000);
            if (!fgets(port, sizeof port, f))
                port[0] = '\0';
            fclose(f);
            port[strcspn(port, "\n")] = '\0';
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    }
    int rs;
    MPI_Comm_remote_size(ic, &rs);
    int v = 100 * server + w, in = -1, sum = 0, ms = 0;
    MPI_Sendrecv(&v, 1, MPI_INT, w % rs, 5, &in, 1, MPI_INT, w % rs, 5, ic, MPI_STATUS_IGNORE);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ic);
    MPI_Comm merged;
    MPI_Intercomm_merge(ic, server, &merged);
    MPI_Comm_size(merged, &ms);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
    printf("%s %d got %d sum %d merged %d\n", argv[1], w, in, sum, ms);
    MPI_Comm_disconnect(&ic);
    if (server && w == 0)
        MPI_Close_port(port);
    MPI_Finalize();
    return 0;
}
