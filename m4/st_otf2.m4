# st_otf2.m4 — ST_CHECK_OTF2: otf2-config, otf2/otf2.h and otf2-print
# (Debian: libotf2-trace-dev, otf2-tools). Sets OTF2_CFLAGS and OTF2_LIBS.
AC_DEFUN([ST_CHECK_OTF2], [
AC_ARG_VAR([OTF2_CONFIG], [path of otf2-config])
AC_PATH_PROG([OTF2_CONFIG], [otf2-config])
AS_IF([test -z "$OTF2_CONFIG"],
      [AC_MSG_ERROR([otf2-config not found: install the Debian package libotf2-trace-dev])])
OTF2_CFLAGS=`$OTF2_CONFIG --cflags`
OTF2_LIBS="`$OTF2_CONFIG --ldflags` `$OTF2_CONFIG --libs`"
AC_SUBST([OTF2_CFLAGS])
AC_SUBST([OTF2_LIBS])
# where OTF2's headers are (tools/foreign/gen-otf2copy.py reads them)
OTF2_INCLUDEDIR=`$OTF2_CONFIG --cppflags | sed -n 's/^ *-I\([[^ ]]*\).*/\1/p'`/otf2
AC_SUBST([OTF2_INCLUDEDIR])
save_CPPFLAGS="$CPPFLAGS"; CPPFLAGS="$CPPFLAGS $OTF2_CFLAGS"
AC_CHECK_HEADER([otf2/otf2.h], [],
                [AC_MSG_ERROR([otf2/otf2.h not found: install the Debian package libotf2-trace-dev])])
CPPFLAGS="$save_CPPFLAGS"
AC_PATH_PROG([OTF2_PRINT], [otf2-print])

])
