#!/usr/bin/env python3
"""viewer_check.py ANCHOR WORKDIR — open an OTF2 archive as its users' viewers do.

ViTE (Debian's OTF2 viewer) draws the whole archive into an SVG in its
headless export; otf2-print reads every record; otf2-snapshots reads every
event again (on a copy: it appends to the archive it is given). Prints one
"ok - ..." or "not ok - ..." line per check; exit 0 when all ran.

ViTE's own limits, allowed here and said in the README ("Viewing the result"): it keeps
only COMM_LOCATIONS groups, while OTF2 requires a communicator's group to be
a COMM_GROUP, so it warns "cannot find rank R in communicator C" once per
blocking message end (Score-P's traces alike) and takes R as a location id.
"""
import os
import re
import shutil
import subprocess
import sys

anchor, work = sys.argv[1], sys.argv[2]
# --some-arrows: messages whose ends ViTE cannot place (a thread's, whose
# peer OTF2 names by its rank's main location; a process outside the trace)
# draw no arrow, so only some of them do.
# communicators whose rank R is not location R draw wrong or no arrows: ViTE
# takes R for a location id (Score-P's traces alike), so no arrow's direction
# tells anything there. --mpi-on-threads: threads that call MPI, whose
# collectives otf2-snapshots cannot place either (it finds the communicator's
# members at their ranks' main locations, as OTF2 defines them).
mpi_on_threads = "--mpi-on-threads" in sys.argv[3:]
some_arrows = mpi_on_threads or "--some-arrows" in sys.argv[3:]
vite = os.environ.get("VITE", "vite")
label = os.path.basename(os.path.dirname(os.path.abspath(anchor)))
os.makedirs(work, exist_ok=True)


def ok(cond, what, detail=""):
    print("%s - %s%s" % ("ok" if cond else "not ok", what, (" (%s)" % detail) if detail and not cond else ""))


def run(cmd, **kw):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=300, **kw)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


# What the archive defines, from otf2-print -G.
rc, defs = run(["otf2-print", "-G", anchor])
ok(rc == 0, "otf2-print -G reads the definitions", "exit %s" % rc)
locations, groups = [], []
intercomms = set(int(m) for m in re.findall(r"^INTER_COMM\s+(\d+)", defs, re.M))
for line in defs.splitlines():
    m = re.match(r'(LOCATION_GROUP|LOCATION)\s+(\d+)\s+Name: "(.*?)" <\d+>', line)
    if m:
        (groups if m.group(1) == "LOCATION_GROUP" else locations).append((m.group(3), int(m.group(2))))
rc, events = run(["otf2-print", anchor])
warned = [l for l in events.splitlines() if "[OTF2" in l or "warning" in l.lower() or "error" in l.lower()]
ok(rc == 0 and not warned, "otf2-print reads every event without a warning", "exit %s: %s" % (rc, warned[:2]))
# ViTE draws no intercommunicator's message: it reads no InterComm definition
sends = sum(1 for l in events.splitlines() if l.startswith(("MPI_SEND ", "MPI_ISEND "))
            and int(re.search(r"Communicator: .*? <(\d+)>", l).group(1)) not in intercomms)

# otf2-snapshots, on a copy of the archive
copy = os.path.join(work, "snapshots")
shutil.rmtree(copy, ignore_errors=True)
shutil.copytree(os.path.dirname(os.path.abspath(anchor)), copy)
snap_anchor = os.path.join(copy, os.path.basename(anchor))
rc, out = run(["otf2-snapshots", "-n", "4", snap_anchor])
# otf2-snapshots 3.0 writes one thumbnail sample too many when no event falls
# in the last 1/4097 of the trace (its catch-up loop is not capped): a trace
# that ends in a long MPI_Finalize, as ours do. Its own bug; nothing else may show.
complaints = [l for l in out.splitlines()
              if l.strip() and not l.endswith("Inconsistent number of written thumbnail samples: 4097 != 4096")
              and not (mpi_on_threads and l == "otf2-snapshots: warning: no matching collective event found")]
rc2, again = run(["otf2-print", snap_anchor]) if rc == 0 else (rc, "")
again, _, snaps = again.partition("=== Snapshots ===")
ok(rc == 0 and not complaints and rc2 == 0 and again == events and "SNAPSHOT_START" in snaps,
   "otf2-snapshots reads every event; the archive it added snapshots to reads as before",
   "exit %s / %s: %s" % (rc, rc2, " ".join(complaints)[:200]))

# ViTE, headless
svg = os.path.join(work, "vite.svg")
if os.path.exists(svg):
    os.remove(svg)
rc, out = run([vite, "-f", anchor, "-e", svg])
allowed = (r"New comm (group|self|locations)?.*", r"\s*Not yet implemented", r"vite: invalid option -- 'f'",
           r"export of .* to .*", r"Warning: cannot find rank \d+ in communicator \d+", r"",
           r"Loading of the trace : .*", r"0 errors and 0 warnings were found during parsing\.",
           r"Exporting trace to .* Please Wait\s*",
           r"QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to .*")   # Qt's, where no session runs
# ViTE 1.2 reads no InterComm definition, and says so at each of its messages
allowed += tuple(r"Warning: cannot find communicator %d" % c for c in intercomms)
# records it does not draw: legal OTF2 it has no callback for (said, not counted as its warnings)
unread = sorted(set(re.findall(r"^Warning OTF2 parser: \S+\s+callback_(\w+) not implemented$", out, re.M)))
allowed += (r"Warning OTF2 parser: \S+\s+callback_\w+ not implemented",)
other = [l for l in out.splitlines() if not any(re.fullmatch(a, l) for a in allowed)]
ok(rc == 0, "ViTE's headless export exits 0 (%s)" % label, "exit %s; %s" % (rc, out.strip().splitlines()[-1:]))
ok(not other and "0 errors and 0 warnings were found during parsing." in out,
   "ViTE parses it with 0 errors and 0 warnings, and says nothing but its communicator-group warnings%s"
   % ("" if not unread else " and that it skips %s records" % ", ".join(unread)),
   "; ".join(other[:3]))
drawn = open(svg, encoding="utf-8", errors="replace").read() if os.path.exists(svg) else ""
ok(bool(drawn), "ViTE wrote the SVG")
rows = set(re.findall(r"<text[^>]*>([^<]*)", drawn))
missing = ["%s_%d" % (n, i) for n, i in locations + groups if "%s_%d" % (n, i) not in rows]
ok(locations and not missing, "ViTE draws a row for each of the %d locations and %d processes" % (len(locations), len(groups)),
   "missing: %s" % missing[:4])
names = {}
for n, i in locations + groups:
    names.setdefault("%s_%d" % (n, i), []).append(i)
ok(all(len(v) == 1 for v in names.values()), "no two rows share ViTE's name")
arrows = re.findall(r'<line x1="([-\d.e]+)" y1="[-\d.e]+" x2="([-\d.e]+)"', drawn)
back = [a for a in arrows if float(a[1]) < float(a[0]) - 1e-6]
if some_arrows:
    ok(0 < len(arrows) <= sends, "ViTE draws an arrow for %d of the %d messages" % (len(arrows), sends),
       "%d arrows" % len(arrows))
else:
    ok(len(arrows) == sends, "ViTE draws an arrow for each of the %d messages" % sends, "%d arrows" % len(arrows))
if not some_arrows:
    ok(not back, "no arrow goes back in time", "%d of %d" % (len(back), len(arrows)))
else:
    ok(True, "(arrows drawn where ViTE cannot place every message: their direction is not checked)")
states = drawn.count("<rect")
ok(states > len(locations), "ViTE draws states (%d rectangles)" % states)
