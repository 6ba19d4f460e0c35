# st_python.m4 — python3 and the Python modules the tests read archives with.

# ST_CHECK_PYTHON3: PYTHON3 and the HAVE_PYTHON3 conditional.  Debian's
# python3-otf2 installs into /usr/bin/python3's site-packages only, so a
# python3 that comes first in PATH (pyenv, conda, a virtualenv) may not see
# it: unless the user sets PYTHON3, take the first python3 in PATH and then
# /usr/bin/python3 that can import otf2, else the first python3 found.
AC_DEFUN([ST_CHECK_PYTHON3], [
AC_ARG_VAR([PYTHON3], [the Python 3 interpreter the tests use (one that can import otf2)])
AS_IF([test -z "$PYTHON3"], [
  st_python3_first=
  AC_MSG_CHECKING([for a python3 that can import otf2])
  for st_python3 in `command -v python3 2>/dev/null` /usr/bin/python3; do
    AS_IF([test -x "$st_python3"], [
      AS_IF([test -z "$st_python3_first"], [st_python3_first=$st_python3])
      AS_IF(["$st_python3" -c "import otf2" >&AS_MESSAGE_LOG_FD 2>&1],
            [PYTHON3=$st_python3; break])])
  done
  AS_IF([test -n "$PYTHON3"], [AC_MSG_RESULT([$PYTHON3])],
        [PYTHON3=$st_python3_first; AC_MSG_RESULT([none; using ${PYTHON3:-no python3}])])
])
AC_SUBST([PYTHON3])
AM_CONDITIONAL([HAVE_PYTHON3], [test -n "$PYTHON3"])
])

# ST_CHECK_PYTHON_MODULE(MODULE, DEBIAN-PACKAGE): warn (the tests that need
# it then fail loudly) when "import MODULE" does not work.
AC_DEFUN([ST_CHECK_PYTHON_MODULE], [
AC_MSG_CHECKING([for the Python module $1])
AS_IF([test -n "$PYTHON3" && "$PYTHON3" -c "import $1" >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); AC_MSG_WARN([$PYTHON3 cannot import $1: install the Debian package $2 (scripts/setup-debian.sh does)])])
])
