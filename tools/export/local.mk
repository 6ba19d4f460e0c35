# tools/export/: `synctrace export`, views of a merged archive for tools
# other than Vampir: a Chrome trace and one self-contained HTML page.
EXPORT_SOURCES = %D%/export.c %D%/export.h %D%/export_json.c %D%/export_chrome.c %D%/export_html.c \
	%D%/flowmatch.c %D%/flowmatch.h %D%/workspan.c %D%/workspan.h %D%/export_waits.c %D%/export_waits.h
# The HTML page's text, compiled in (timeline.html is the source).
%D%/export_html_page.h: $(srcdir)/%D%/timeline.html $(srcdir)/%D%/html2c.awk
	@$(MKDIR_P) %D%
	$(AWK) -f $(srcdir)/%D%/html2c.awk $(srcdir)/%D%/timeline.html >$@.tmp && mv $@.tmp $@
BUILT_SOURCES += %D%/export_html_page.h
CLEANFILES += %D%/export_html_page.h
EXTRA_DIST += %D%/timeline.html %D%/html2c.awk
