# html2c.awk — turn tools/timeline.html into C string constants: the text
# before the line "<!-- DATA -->" becomes HTML_PAGE_HEAD, the text after it
# HTML_PAGE_TAIL (the exporter writes the data in between).
BEGIN {
    print "/* Generated from tools/timeline.html by tools/html2c.awk: do not edit. */"
    print "static const char HTML_PAGE_HEAD[] ="
    part = 0
}
$0 == "<!-- DATA -->" {
    print ";"
    print "static const char HTML_PAGE_TAIL[] ="
    part = 1
    next
}
{
    gsub(/\\/, "\\\\")
    gsub(/"/, "\\\"")
    print "\"" $0 "\\n\""
}
END {
    print ";"
    if (part != 1) {
        print "tools/timeline.html: no <!-- DATA --> line" > "/dev/stderr"
        exit 1
    }
}
