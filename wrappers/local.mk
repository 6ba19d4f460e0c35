# wrappers/: the MPI functions' spec and the generator of their PMPI
# wrappers (wrappers/gen/, by MPI family) and of the region table
# (wrappers/regions/, which src/ uses too). Generated files are kept in the
# repository: `make regen` after editing the spec; tests/test-generator.sh
# checks that they are current.
GENERATED_REGIONS = %D%/regions/regions.h %D%/regions/regions.c
GENERATED_WRAPPERS = \
	%D%/gen/env.c %D%/gen/p2p.c %D%/gen/requests.c \
	%D%/gen/collectives.c %D%/gen/communicators.c %D%/gen/rma.c \
	%D%/gen/io.c %D%/gen/datatypes.c %D%/gen/tool.c \
	%D%/gen/misc.c %D%/gen/handles.c \
	%D%/gen/fortran_env.c %D%/gen/fortran_p2p.c %D%/gen/fortran_requests.c \
	%D%/gen/fortran_collectives.c %D%/gen/fortran_communicators.c %D%/gen/fortran_rma.c \
	%D%/gen/fortran_io.c %D%/gen/fortran_datatypes.c %D%/gen/fortran_misc.c
EXTRA_DIST += %D%/mpi.spec %D%/gen-wrappers.py %D%/check-spec.py %D%/check-fortran.py

regen:
	$(PYTHON3) $(srcdir)/wrappers/gen-wrappers.py $(srcdir)/wrappers/mpi.spec $(srcdir)/wrappers/gen
.PHONY: regen
