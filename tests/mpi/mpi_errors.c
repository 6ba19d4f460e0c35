/* mpi_errors.c — erroneous MPI calls and exit codes, for
 * tests/test-transparency.sh. Its stdout must not depend on the tracer.
 *
 *   mpi_errors errors   with MPI_ERRORS_RETURN on MPI_COMM_WORLD, make
 *                       erroneous calls and print the error class of each;
 *                       then again with an error handler of the program's
 *                       own that counts its invocations; then carry on
 *   mpi_errors exit N   return N from main after MPI_Finalize
 *   mpi_errors quiet    print one line on rank 0, write nothing to stderr */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int handler_calls, handler_last;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_last);
}

static const char *class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    default: return "other";
    }
}

static void report(const char *what, int ret)
{
    int cls = ret;
    if (ret != MPI_SUCCESS)
        MPI_Error_class(ret, &cls);
    if (rank == 0) {
        printf("%-28s returns %s (%d), handler called %d times", what, class_name(cls), cls, handler_calls);
        if (handler_calls)
            printf(", last class %s", class_name(handler_last));
        printf("\n");
    }
}

/* Each call is wrong on every rank, in the same way. */
static void erroneous_calls(void)
{
    int buf[4] = { 0 }, tsize = -1, flag;
    MPI_Status st;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm null = MPI_COMM_NULL, out = MPI_COMM_NULL;
    handler_calls = 0;
    report("MPI_Send to rank size", MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
    report("MPI_Recv with tag -5", MPI_Recv(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &st));
    report("MPI_Type_size(DATATYPE_NULL)", MPI_Type_size(MPI_DATATYPE_NULL, &tsize));
    report("MPI_Isend to rank size", MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req));
    report("MPI_Irecv with tag -5", MPI_Irecv(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &req));
    report("MPI_Sendrecv to rank size",
           MPI_Sendrecv(buf, 1, MPI_INT, size, 0, buf + 1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
    report("MPI_Send count -1", MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    report("MPI_Barrier(COMM_NULL)", MPI_Barrier(MPI_COMM_NULL));
    report("MPI_Bcast root size", MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD));
    report("MPI_Allreduce count -1", MPI_Allreduce(buf, buf + 1, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    report("MPI_Reduce op NULL", MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD));
    report("MPI_Comm_dup(COMM_NULL)", MPI_Comm_dup(MPI_COMM_NULL, &out));
    report("MPI_Comm_split(COMM_NULL)", MPI_Comm_split(MPI_COMM_NULL, 0, 0, &out));
    report("MPI_Comm_free(COMM_NULL)", MPI_Comm_free(&null));
    report("MPI_Test on no request", MPI_Test(NULL, &flag, &st));
    if (rank == 0)
        printf("Type_size left its output %s\n", tsize == -1 ? "alone" : "changed");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "errors";

    if (strcmp(mode, "exit") == 0) {
        int code = argc > 2 ? atoi(argv[2]) : 3;
        if (rank == 0)
            printf("returning %d after MPI_Finalize\n", code);
        MPI_Finalize();
        return code;
    }
    if (strcmp(mode, "quiet") == 0) {
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("sum of ranks %d\n", sum);
        MPI_Finalize();
        return 0;
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0)
        printf("-- MPI_ERRORS_RETURN\n");
    erroneous_calls();

    MPI_Errhandler mine;
    MPI_Comm_create_errhandler(count_errors, &mine);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine);
    if (rank == 0)
        printf("-- the program's own error handler\n");
    erroneous_calls();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&mine);

    /* The program carries on: real communication still works. */
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("carried on: sum of ranks %d\n", sum);
    MPI_Finalize();
    return 0;
}
