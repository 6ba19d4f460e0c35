# docs/: the user guide, the design, and the man pages that `make install`
# puts in place: synctrace(1), one per command, synctrace-gen(1),
# libsynctrace(3), libsynctrace-causal(3).
dist_man_MANS = %D%/man/synctrace.1 %D%/man/synctrace-merge.1 %D%/man/synctrace-report.1 %D%/man/synctrace-waits.1 \
	%D%/man/synctrace-query.1 %D%/man/synctrace-causal.1 %D%/man/synctrace-export.1 \
	%D%/man/synctrace-dump.1 %D%/man/synctrace-gen.1 %D%/man/libsynctrace.3 \
	%D%/man/libsynctrace-causal.3
EXTRA_DIST += %D%/design.md %D%/guide.md %D%/scorep-mapping.md %D%/timeline.png %D%/vite.png
