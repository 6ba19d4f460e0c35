# scripts/: set a Debian machine up, build, run the example and the tests;
# the include graph's check.
EXTRA_DIST += %D%/setup-debian.sh %D%/build.sh %D%/run-example.sh %D%/run-tests.sh \
	%D%/debian-packages.txt %D%/test-deps.txt %D%/check-deps.py %D%/check-fresh-root.sh %D%/include-graph.py
