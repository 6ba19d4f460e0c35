# st_mpi.m4 — find the MPI C compiler wrapper, the launcher and a usable
# mpi.h; ST_CHECK_MPIFORT finds an MPI Fortran compiler (optional).

# ST_CHECK_MPI: the whole project is built with mpicc, so the wrappers see
# the exact mpi.h of the MPI they are preloaded into.
AC_DEFUN([ST_CHECK_MPI], [
AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
AC_CHECK_PROGS([MPICC], [mpicc])
AS_IF([test -z "$MPICC"],
      [AC_MSG_ERROR([mpicc not found: install the Debian package libopenmpi-dev (apt-get install libopenmpi-dev openmpi-bin)])])
CC="$MPICC"
])

# ST_CHECK_MPI_RUN (after AC_PROG_CC): the launcher, and an mpi.h that compiles.
AC_DEFUN([ST_CHECK_MPI_RUN], [
AC_ARG_VAR([MPIRUN], [MPI launcher used by the tests and the example])
AC_PATH_PROGS([MPIRUN], [mpirun mpiexec])
AS_IF([test -z "$MPIRUN"],
      [AC_MSG_ERROR([mpirun not found: install the Debian package openmpi-bin])])
AC_MSG_CHECKING([that mpi.h is usable])
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[return PMPI_Barrier(MPI_COMM_WORLD);]])],
                  [AC_MSG_RESULT([yes])],
                  [AC_MSG_RESULT([no]); AC_MSG_ERROR([mpi.h does not compile: install the Debian package libopenmpi-dev])])
])

# ST_CHECK_MPIFORT: Fortran programs are traced by the same library; an MPI
# Fortran compiler is needed only for the Fortran example and tests.
AC_DEFUN([ST_CHECK_MPIFORT], [
AC_ARG_VAR([MPIFORT], [MPI Fortran compiler wrapper (optional: Fortran example and tests)])
AC_CHECK_PROGS([MPIFORT], [mpifort mpif90])
AS_IF([test -n "$MPIFORT"], [
  AC_MSG_CHECKING([whether $MPIFORT builds mpif.h, use mpi and use mpi_f08 programs])
  printf '      program t\n      include "mpif.h"\n      integer e\n      call MPI_INIT(e)\n      end\n' > conftest.f
  printf 'program t\nuse mpi\ninteger e\ncall MPI_Init(e)\nend\n' > conftest1.f90
  printf 'program t\nuse mpi_f08\ncall MPI_Init()\nend\n' > conftest2.f90
  AS_IF([$MPIFORT -o conftest$EXEEXT conftest.f >&AS_MESSAGE_LOG_FD 2>&1 &&
         $MPIFORT -o conftest$EXEEXT conftest1.f90 >&AS_MESSAGE_LOG_FD 2>&1 &&
         $MPIFORT -o conftest$EXEEXT conftest2.f90 >&AS_MESSAGE_LOG_FD 2>&1],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no: the Fortran example is not built and the Fortran tests skip]); MPIFORT=""])
  rm -f conftest.f conftest1.f90 conftest2.f90 conftest$EXEEXT
])
AM_CONDITIONAL([HAVE_MPIFORT], [test -n "$MPIFORT"])
])
