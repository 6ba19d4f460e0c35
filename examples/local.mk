# examples/: the bundled programs. `make example` traces the stencil on 4
# ranks with injected clock skew (one machine has one clock; the skew
# stands in for a cluster's), merges it into one synchronised archive and
# shows the report.
noinst_PROGRAMS += examples/stencil
examples_stencil_SOURCES = %D%/stencil.c
examples_stencil_LDADD = -lm

# The Fortran example, built when configure found an MPI Fortran compiler
# (automake's Fortran support would make one compulsory).
if HAVE_MPIFORT
FORTRAN_EXAMPLES = examples/heat
endif
all-local: $(FORTRAN_EXAMPLES)
examples/heat: $(srcdir)/examples/heat.f90
	@test -n "$(MPIFORT)" || { echo "examples/heat needs an MPI Fortran compiler: configure found no working mpifort" >&2; exit 1; }
	@mkdir -p examples
	$(AM_V_GEN)$(MPIFORT) -O2 -o $@ $(srcdir)/examples/heat.f90
CLEANFILES += examples/heat
EXTRA_DIST += examples/heat.f90

# `make example-fortran`: the same for the Fortran example (use mpi_f08).
example-fortran: examples/heat synctrace $(lib_LTLIBRARIES)
	rm -rf $(EXAMPLE_DIR)-fortran $(EXAMPLE_DIR)-fortran.otf2d
	$(MPIRUN) --allow-run-as-root --oversubscribe -np 4 \
	    -x LD_PRELOAD=$(abs_top_builddir)/.libs/libsynctrace.so -x SYNCTRACE_DIR=$(abs_top_builddir)/$(EXAMPLE_DIR)-fortran \
	    -x SYNCTRACE_SKEW=seed=1,offset_us=1000,drift_ppm=50 \
	    examples/heat 200
	./synctrace merge $(EXAMPLE_DIR)-fortran -o $(EXAMPLE_DIR)-fortran.otf2d
.PHONY: example-fortran

# `make example`: trace the bundled example on 4 ranks with injected clock
# skew (one machine has one clock; the skew stands in for a cluster's), then
# merge it into one synchronised archive and show the report, then where
# the ranks wait (with the clocks' bounds) and the timeline, waits shaded.
EXAMPLE_DIR = example-trace
example: examples/stencil synctrace $(lib_LTLIBRARIES)
	rm -rf $(EXAMPLE_DIR) $(EXAMPLE_DIR).otf2d
	$(MPIRUN) --allow-run-as-root --oversubscribe -np 4 \
	    -x LD_PRELOAD=$(abs_top_builddir)/.libs/libsynctrace.so -x SYNCTRACE_DIR=$(abs_top_builddir)/$(EXAMPLE_DIR) \
	    -x SYNCTRACE_SKEW=seed=1,offset_us=1000,drift_ppm=50 \
	    examples/stencil -i 200
	@echo
	@echo "raw trace (one OTF2 archive per rank): $(abs_top_builddir)/$(EXAMPLE_DIR)"
	./synctrace merge $(EXAMPLE_DIR) -o $(EXAMPLE_DIR).otf2d
	@echo
	./synctrace waits $(EXAMPLE_DIR).otf2d --json
	@echo
	./synctrace export $(EXAMPLE_DIR).otf2d --format html
	@echo
	@echo "merged archive: $(abs_top_builddir)/$(EXAMPLE_DIR).otf2d/traces.otf2 (otf2-print, Vampir); report: synctrace report $(EXAMPLE_DIR).otf2d"
	@echo "timeline: $(abs_top_builddir)/$(EXAMPLE_DIR).otf2d/timeline.html (any browser, no network needed)"
.PHONY: example
