# tests/: TAP through automake's tap-driver.sh: unit tests in C, and scripts
# that run MPI programs under mpirun with the tracer preloaded.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = $(LOG_DRIVER)
SH_LOG_COMPILER = bash
TESTS_ENVIRONMENT = \
	MPIRUN='$(MPIRUN)' OTF2_PRINT='$(OTF2_PRINT)' PYTHON3='$(PYTHON3)' \
	top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
	SYNCTRACE_LIB='$(abs_top_builddir)/.libs/libsynctrace.so' \
	SANITIZERS='$(enable_sanitizers)' MPIFORT='$(MPIFORT)' OTF2_INCLUDEDIR='$(OTF2_INCLUDEDIR)'

# (the unit tests are listed once, below, as UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS) tests/mtorder_check tests/otf2copy_run tests/waits_rows
# libsynctrace-causal's waits.json reader, as a tool links it (tests/test-waits-views.sh).
tests_waits_rows_SOURCES = tests/checkers/waits_rows.c
tests_waits_rows_CPPFLAGS = -I$(srcdir)/include
tests_waits_rows_LDADD = libsynctrace-causal.la
# tools/foreign's copy of an archive, driven by tests/test-otf2copy.sh.
tests_otf2copy_run_SOURCES = tests/checkers/otf2copy_run.c
tests_otf2copy_run_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_otf2copy_run_LDADD = libstforeign.la $(TOOLS_LIBS)
# Sync rounds' offset estimates (round-trip midpoints, one-way bounds).
tests_unit_estimate_SOURCES = tests/unit/unit_estimate.c tests/unit/tap.h common/offset_estimate.c common/offset_estimate.h
tests_unit_estimate_CPPFLAGS = $(TRACER_CPPFLAGS)
tests_unit_estimate_LDADD = -lm
tests_unit_clock_SOURCES = tests/unit/unit_clock.c tests/unit/tap.h src/clock.c src/clock.h
tests_unit_clock_CPPFLAGS = $(TRACER_CPPFLAGS)
tests_unit_clock_LDADD = -lm
tests_unit_evtchunk_SOURCES = tests/unit/unit_evtchunk.c tests/unit/tap.h format/convert.c format/convert.h format/evtchunk.c format/evtchunk.h
tests_unit_evtchunk_CPPFLAGS = $(TRACER_CPPFLAGS)
tests_unit_evtchunk_LDADD = $(OTF2_LIBS)
# A killed rank's records file read back: what continues the event file, and damage.
tests_unit_recfile_SOURCES = tests/unit/unit_recfile.c tests/unit/tap.h
tests_unit_recfile_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_recfile_LDADD = $(TOOLS_LIBS)
tests_unit_handlemap_SOURCES = tests/unit/unit_handlemap.c src/handlemap.c src/handlemap.h
tests_unit_handlemap_CPPFLAGS = $(TRACER_CPPFLAGS)
# Blocks of a file through slots, against the file.
tests_unit_blockcache_SOURCES = tests/unit/unit_blockcache.c tests/unit/tap.h
tests_unit_blockcache_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_blockcache_LDADD = $(TOOLS_LIBS)
# What the parallel merge's processes hand each other, written and read back.
tests_unit_locstream_SOURCES = tests/unit/unit_locstream.c tests/unit/tap.h
tests_unit_locstream_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_locstream_LDADD = $(TOOLS_LIBS)
# The streaming clock's in-flight table against a brute-force model.
tests_unit_u64map_SOURCES = tests/unit/unit_u64map.c tests/unit/tap.h
tests_unit_u64map_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_u64map_LDADD = $(TOOLS_LIBS)
# The data-flow rule of collectives against a brute-force per-pair enumeration.
tests_unit_flow_SOURCES = tests/unit/unit_flow.c tests/unit/tap.h
tests_unit_flow_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_flow_LDADD = $(TOOLS_LIBS)
tests_unit_solve_SOURCES = tests/unit/unit_solve.c tests/unit/tap.h
tests_unit_solve_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_solve_LDADD = $(TOOLS_LIBS)
# The report's exact medians in passes against sorting.
tests_unit_multiselect_SOURCES = tests/unit/unit_multiselect.c tests/unit/tap.h
tests_unit_multiselect_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_multiselect_LDADD = $(TOOLS_LIBS)
tests_unit_clockmodel_SOURCES = tests/unit/unit_clockmodel.c tests/unit/tap.h
tests_unit_clockmodel_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_clockmodel_LDADD = $(TOOLS_LIBS)
tests_unit_clc_SOURCES = tests/unit/unit_clc.c tests/unit/tap.h
tests_unit_clc_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_clc_LDADD = $(TOOLS_LIBS)
# The one reader of raw definitions against damaged archives.
# The membership codec: known lists, seeded random round trips, corrupt runs.
# Score-P's PSCW records as the merge's notifications (tools/foreign/foreign_pscw.c).
tests_unit_pscw_SOURCES = tests/unit/unit_pscw.c tests/unit/tap.h
tests_unit_pscw_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_pscw_LDADD = libstforeign.la $(TOOLS_LIBS)
tests_unit_members_SOURCES = tests/unit/unit_members.c tests/unit/tap.h
tests_unit_members_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_members_LDADD = $(TOOLS_LIBS)
tests_unit_eventstore_SOURCES = tests/unit/unit_eventstore.c tests/unit/tap.h
tests_unit_eventstore_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_eventstore_LDADD = $(TOOLS_LIBS)
tests_unit_rawread_SOURCES = tests/unit/unit_rawread.c tests/unit/tap.h
tests_unit_rawread_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_rawread_LDADD = $(TOOLS_LIBS)
# Hubs beside the graph against Floyd-Warshall with every hub a vertex; the
# store's own copy keeps 256 bytes in memory, so its records go through a file.
tests_unit_hubstore_SOURCES = tests/unit/unit_hubstore.c tests/unit/tap.h tools/clock/hubstore.c tools/clock/hubstore.h
tests_unit_hubstore_CPPFLAGS = $(TOOLS_CPPFLAGS) -DHS_MEMORY=256
tests_unit_hubstore_LDADD = $(TOOLS_LIBS)
tests_unit_blockqueue_SOURCES = tests/unit/unit_blockqueue.c tests/unit/tap.h tools/causal/blockqueue.c tools/causal/blockqueue.h
tests_unit_blockqueue_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_blockqueue_LDADD = libstutil.la libstcommon.la -lpthread
# mt_read_events against every location read alone (tests/test-export-order.sh).
tests_mtorder_check_SOURCES = tests/checkers/mtorder_check.c
tests_mtorder_check_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_mtorder_check_LDADD = $(TOOLS_LIBS)
tests_unit_export_SOURCES = tests/unit/unit_export.c tests/unit/tap.h tools/export/flowmatch.c tools/export/flowmatch.h
tests_unit_export_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_export_LDADD = $(TOOLS_LIBS)

tests_unit_checksum_SOURCES = tests/unit/unit_checksum.c tests/unit/tap.h
tests_unit_checksum_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_checksum_LDADD = libstwrite.la libstcommon.la
# The external sort against qsort: in memory, a few runs, intermediate
# merges; spill files never seen, errors reported, memory bounded.
tests_unit_msgstream_SOURCES = tests/unit/unit_msgstream.c tests/unit/tap.h
tests_unit_msgstream_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_msgstream_LDADD = $(TOOLS_LIBS)
tests_unit_collstream_SOURCES = tests/unit/unit_collstream.c tests/unit/tap.h
tests_unit_causal_aside_SOURCES = tests/unit/unit_causal_aside.c tests/unit/tap.h tools/causal/causal_aside.c tools/causal/causal_aside.h
tests_unit_causal_aside_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_causal_aside_LDADD = $(TOOLS_LIBS)
tests_unit_collstream_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_collstream_LDADD = $(TOOLS_LIBS)
tests_unit_evtpatch_SOURCES = tests/unit/unit_evtpatch.c tests/unit/tap.h
tests_unit_evtpatch_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_evtpatch_LDADD = libstforeign.la $(TOOLS_LIBS)
tests_unit_extsort_SOURCES = tests/unit/unit_extsort.c tests/unit/tap.h
tests_unit_extsort_CPPFLAGS = $(TOOLS_CPPFLAGS)
tests_unit_extsort_LDADD = libstutil.la libstcommon.la

# Brute-force oracle for the causal index: alone, on synthetic traces; on
# generated and traced ones from tests/test-causal.sh.
tests_unit_causal_SOURCES = tests/unit/unit_causal.c tools/causal/causal_sweep.c
tests_unit_causal_CPPFLAGS = $(TOOLS_CPPFLAGS) -DSWEEP_BATCH=32
tests_unit_causal_LDADD = $(TOOLS_LIBS) -lpthread

UNIT_TESTS = tests/unit_eventstore tests/unit_clock tests/unit_clockmodel tests/unit_estimate tests/unit_handlemap tests/unit_u64map tests/unit_solve tests/unit_clc tests/unit_export tests/unit_causal \
	tests/unit_rawread tests/unit_members tests/unit_flow \
	tests/unit_checksum tests/unit_multiselect tests/unit_evtchunk tests/unit_recfile tests/unit_extsort tests/unit_msgstream tests/unit_collstream \
	tests/unit_causal_aside tests/unit_hubstore tests/unit_blockqueue tests/unit_locstream tests/unit_blockcache \
	tests/unit_evtpatch tests/unit_pscw
# Integration tests: MPI programs under mpirun with the tracer preloaded.
# The slowest tests first: automake's harness starts them in this order,
# one a core, so a long one started last would leave the other core idle
# (scripts/run-tests.sh prints what each phase took). They are MPI or
# merge tests like the others; they are listed here only for the order.
SLOW_TESTS = tests/test-memgrowth.sh tests/test-background.sh tests/test-causal.sh tests/test-conformance.sh tests/test-foreign.sh tests/test-fortran.sh tests/test-diskfail.sh tests/test-mpirun-merge.sh tests/test-clients.sh tests/test-waits.sh tests/test-recover.sh tests/test-precision.sh
MPI_TESTS = tests/test-generator.sh tests/test-mpirun-foreign.sh tests/test-mpirun-waits.sh tests/test-fork.sh tests/test-chdir.sh tests/test-skew.sh tests/test-buffer.sh \
	tests/test-p2p.sh tests/test-collectives.sh tests/test-merge.sh \
	tests/test-communicators.sh tests/test-crash.sh tests/test-recover-threads.sh \
	tests/test-transparency.sh \
	tests/test-neighbours.sh tests/test-threads.sh tests/test-groups.sh \
	tests/test-causal-rebuild.sh tests/test-corrupt.sh tests/test-died.sh \
	tests/test-accuracy.sh tests/test-scorep-mapping.sh tests/test-intercoll.sh tests/test-dataflow.sh \
	tests/test-commkeys.sh tests/test-spawn.sh tests/test-polling.sh tests/test-iothread.sh tests/test-spill.sh \
	tests/test-viewers.sh tests/test-extrapolation.sh tests/test-waits-views.sh tests/test-estimates.sh tests/test-drift-search.sh tests/test-drift-fit.sh
TESTS += $(SLOW_TESTS) $(UNIT_TESTS) tests/test-layout.sh tests/test-otf2copy.sh tests/test-evtpatch.sh tests/test-man.sh tests/test-gen.sh tests/test-memcheck.sh tests/test-waits-memory.sh tests/test-repair.sh tests/test-export.sh tests/test-export-order.sh tests/test-hubs.sh tests/test-corrupt-anchor.sh tests/test-tree.sh $(MPI_TESTS)
EXTRA_DIST += tests/checkers/waits_views_check.py tests/test-layout.sh tests/test-otf2copy.sh tests/test-evtpatch.sh tests/checkers/otf2_framing.py tests/checkers/otf2copy_check.py tests/test-foreign.sh tests/checkers/foreign_check.py tests/checkers/scorep_like.py tests/checkers/pscw_order_check.py tests/data tests/test-man.sh tests/test-corrupt-anchor.sh tests/test-tree.sh tests/test-spill.sh tests/test-memgrowth.sh tests/test-waits-memory.sh tests/test-mpirun-merge.sh tests/test-mpirun-waits.sh
# Fuzzing of the readers, apart from `make check` (clang, libFuzzer):
# tests/fuzz/run.sh SECONDS, run by scripts/run-tests.sh.
EXTRA_DIST += tests/fuzz/build.sh tests/fuzz/make-seeds.sh tests/fuzz/run.sh tests/fuzz/lsan.supp \
	tests/fuzz/fuzz_common.c tests/fuzz/fuzz_common.h tests/fuzz/fuzz_raw.c tests/fuzz/fuzz_journal.c \
	tests/fuzz/fuzz_causal.c tests/fuzz/fuzz_export.c
EXTRA_DIST += tests/test-export-order.sh tests/test-hubs.sh tests/test-repair.sh tests/test-diskfail.sh tests/test-fork.sh tests/mpi/mpi_fork.c tests/test-chdir.sh tests/mpi/mpi_chdir.c tests/test-gen.sh tests/test-memcheck.sh tests/test-precision.sh tests/test-export.sh tests/checkers/chrome_check.py tests/checkers/rawview_check.py tests/mpi/mpi_reorder.c \
	tests/lib.sh tests/checkers/viewer_check.py tests/checkers/sync_check.py tests/checkers/trace_check.py tests/checkers/merged_check.py \
	tests/mpi/mpi_many.c tests/mpi/mpi_p2p.c tests/mpi/mpi_coll.c tests/mpi/mpi_comms.c tests/checkers/comm_check.py \
	tests/mpi/mpi_commkeys.c \
	tests/mpi/mpi_fortran.F90 tests/mpi/mpi_fortran_ref.c tests/mpi/mpi_fortran_cptr.F90 tests/checkers/fortran_check.py wrappers/check-fortran.py \
	tests/mpi/mpi_threads.c tests/mpi/mpi_thread_colls.c tests/checkers/thread_check.py tests/mpi/mpi_shared_handle.c \
	tests/mpi/mpi_crash.c tests/mpi/mpi_errors.c tests/mpi/mpi_periodic.c tests/mpi/mpi_background.c tests/mpi/mpi_thread_level.c tests/mpi/mpi_kill9.c tests/mpi/mpi_kill9_threads.c \
	tests/mpi/mpi_neighbours.c tests/mpi/mpi_groups.c tests/mpi/mpi4py_client.py tests/unit/tap.h tests/checkers/corrupt_bytes.py tests/mpi/mpi_died.c tests/shims/signal_in_write.c tests/shims/pread_fails.c \
	tests/mpi/mpi_mapping.c tests/mpi/mpi_init_time.c tests/checkers/mapping_check.py docs/scorep-mapping.md \
	tests/mpi/mpi_intercoll.c tests/mpi/mpi_zerobytes.c tests/mpi/mpi_spawn.c tests/mpi/mpi_connect.c \
	tests/mpi/mpi_polling.c tests/mpi/mpi_polling_f.F90 tests/checkers/polling_check.py tests/mpi/mpi_waits.c tests/checkers/waits_ref.py tests/checkers/waits_plausible.py $(MPI_TESTS) $(SLOW_TESTS)

# The conformance corpus (built by tests/test-conformance.sh itself), its
# independent checker, and the real clients' inputs (tests/test-clients.sh).
CONFORMANCE_CORPUS = tests/conformance/self_comm.c tests/conformance/split_single.c \
	tests/conformance/intercomm_p2p.c tests/conformance/intercomm_rooted.c tests/conformance/intercomm_all.c \
	tests/conformance/zero_late.c tests/conformance/in_place.c tests/conformance/rma.c tests/conformance/rma_passive.c \
	tests/conformance/topology.c tests/conformance/named.c tests/conformance/persistent_nbc.c \
	tests/conformance/request_free.c tests/conformance/group_idup.c tests/conformance/flushes.c \
	tests/conformance/user_op.c tests/conformance/nbc_progress.c tests/conformance/comm_free_pending.c \
	tests/conformance/foreign_requests.c
EXTRA_DIST += tests/checkers/conformance_check.py tests/conformance/conformance.h $(CONFORMANCE_CORPUS) \
	tests/mpi/mpi4py_situations.py tests/clients/hpccinf.txt tests/clients/blacs/bt.dat tests/clients/blacs/sdrv.dat \
	tests/clients/blacs/bsbr.dat tests/clients/blacs/comb.dat tests/clients/scalapack/LU.dat tests/clients/scalapack/QR.dat
