# tools/merge/: `synctrace merge`, the pipeline. merge.c and pipeline.c
# wire the stages, one file each; merge_state.h is what they hand each
# other (merge_state.c).
MERGE_STAGES = %D%/merge.c %D%/merge.h %D%/pipeline.c %D%/merge_state.h %D%/merge_state.c %D%/merge_options.c \
	%D%/read_stage.c %D%/match_stage.c %D%/memcheck.c %D%/model_select.c %D%/solution.c %D%/estimate.c %D%/drift_fit.c %D%/apply.c %D%/repair.c \
	%D%/compare_clc.c %D%/precision.c %D%/outside.c %D%/outdir.c %D%/write_stage.c %D%/index_stage.c \
	%D%/jobs_merge.c %D%/pmerge_read.c %D%/pmerge_run.c
# The libraries of the pipeline, in link order: each before what it uses.
TOOLS_LIBS = libstparallel.la libstoutput.la libstcausal.la libstcausalq.la libstclc.la libstclock.la \
	libstmatch.la libstread.la libstwrite.la libstutil.la libstcommon.la $(OTF2_LIBS) -lm
