# st_python.m4 — python3 and the Python modules the tests read archives with.

# ST_CHECK_PYTHON3: PYTHON3 and the HAVE_PYTHON3 conditional.
AC_DEFUN([ST_CHECK_PYTHON3], [
AC_PATH_PROG([PYTHON3], [python3])
AM_CONDITIONAL([HAVE_PYTHON3], [test -n "$PYTHON3"])
])

# ST_CHECK_PYTHON_MODULE(MODULE, DEBIAN-PACKAGE): warn (the tests that need
# it then fail loudly) when "import MODULE" does not work.
AC_DEFUN([ST_CHECK_PYTHON_MODULE], [
AC_MSG_CHECKING([for the Python module $1])
AS_IF([test -n "$PYTHON3" && "$PYTHON3" -c "import $1" >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); AC_MSG_WARN([python3 cannot import $1: install the Debian package $2 (scripts/setup-debian.sh does)])])
])
