/* ompi_abort.c — close the archive when Open MPI ends the job itself.
 *
 * Under MPI_ERRORS_ARE_FATAL (every communicator's default) an erroneous
 * call such as MPI_Send to rank 99 never returns to its wrapper: Open MPI's
 * handler prints its report and calls ompi_mpi_abort(), which has the job's
 * other processes killed and ends this one with _exit() — no atexit
 * handler, no signal, nothing a tracer could catch. Every path to that end
 * (the predefined fatal handlers for communicators, windows and files,
 * errors in MPI_Init, MPI_Abort itself) goes through ompi_mpi_abort, an
 * exported function that libmpi calls through its PLT; the preloaded tracer
 * defines it too, closes the archive and hands over to Open MPI's.
 *
 * Why not an error handler of our own: the program would see it (MPI_Comm_
 * get_errhandler), every communicator, window and file would need it, and
 * Open MPI's report names the failing call, which a handler calling back
 * into MPI could not reproduce. Here the program's handlers, the report
 * and the exit status stay exactly Open MPI's; other MPI libraries never
 * call this function. */
#include <config.h>
#include "tracer.h"
#include "writer.h"

#include <dlfcn.h>
#include <unistd.h>

typedef int (*ompi_abort_fn)(void *comm, int errcode);

/* Open MPI 2.x to 4.x: int ompi_mpi_abort(ompi_communicator_t *comm, int errcode), noreturn. */
__attribute__((visibility("default"))) int ompi_mpi_abort(void *comm, int errcode)
{
    ompi_abort_fn real = (ompi_abort_fn)dlsym(RTLD_NEXT, "ompi_mpi_abort");
    if (st_g.phase == ST_RECORDING) {
        st_in_tracer = 1;
        st_g.phase = ST_DONE;
        st_writer_close();   /* MPI_Abort's wrapper closed it already: then nothing to do */
    }
    if (real)
        return real(comm, errcode);
    _exit(errcode ? errcode : 1);   /* unreachable under Open MPI, which defines the function */
}
