# tools/waits/: `synctrace waits`, Scalasca's MPI wait-state patterns on a
# merged archive with bounds from the merge's clock bounds.
WAITS_SOURCES = %D%/waits.h %D%/waits_cmd.c %D%/waits_read.c %D%/waits_bounds.c %D%/waits_json.c \
	%D%/waits_json.h %D%/waits_p2p.c %D%/waits_coll.c %D%/waits_out.c %D%/waits_summary.c \
	%D%/waits_instances.c %D%/waits_instances.h
