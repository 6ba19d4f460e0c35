# tools/waits/: `synctrace waits`, Scalasca's MPI wait-state patterns on a
# merged archive with bounds from the merge's clock bounds.
WAITS_SOURCES = %D%/waits.h %D%/waits_cmd.c %D%/waits_read.c %D%/waits_bounds.c %D%/waits_json.c \
	%D%/waits_json.h %D%/waits_p2p.c %D%/waits_coll.c %D%/waits_epochs.c %D%/waits_pscw.c %D%/waits_out.c \
	%D%/waits_summary.c %D%/waits_instances.c %D%/waits_instances.h %D%/waits_sorted.c %D%/waits_spool.c \
	%D%/waits_nbrs.c %D%/waits_share.c %D%/waits_share.h
# waits.json read back for a tool: part of libsynctrace-causal
# (include/synctrace/waits.h, the stc_waits_* calls).
noinst_LTLIBRARIES += libstwaitsq.la
libstwaitsq_la_SOURCES = %D%/waits_rows.c %D%/waits_json.c %D%/waits_json.h include/synctrace/waits.h
libstwaitsq_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
