#!/usr/bin/env python3
"""mapping_check.py ARCHIVE/traces.otf2 docs/scorep-mapping.md — checks a
merged archive against what Score-P writes (docs/scorep-mapping.md), read
with OTF2's Python reader, not synctrace's code. Prints TAP-like lines
("ok - ..." / "not ok - ...") for tests/lib.sh's tap_from_checker:
  - every MPI region has the role the docs' "Region roles" table gives it
    (FUNCTION when not listed), paradigm MPI and source file "MPI";
  - the MPI paradigm is defined (class PROCESS) with Score-P's communicator
    and window name templates;
  - no communicator is named with the tracer's key ("comm" + 16 hex digits);
  - every Cartesian topology has its dimensions, and each member of its
    communicator has coordinates that are its rank in row-major order;
  - every location's first event enters MPI_Init or MPI_Init_thread.
"""
import re
import sys

import otf2


def roles_from_docs(path):
    """role name -> set of MPI functions, from the docs' Region roles table"""
    table, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip() == "## Region roles"
                continue
            m = re.match(r"^\| ([A-Z0-9_]+) \| (MPI_.*) \|$", line.strip()) if inside else None
            if m:
                table[m.group(1)] = {x.strip() for x in m.group(2).split(",")}
    return table


def enum_name(v):
    """RegionRole.COLL_ONE2ALL -> COLL_ONE2ALL (the bindings' enums print so)"""
    return str(v).rsplit(".", 1)[-1]


def say(ok, what):
    print("%s - %s" % ("ok" if ok else "not ok", what))


def main(path, docs):
    table = roles_from_docs(docs)
    expected = {fn: role for role, fns in table.items() for fn in fns}
    say(len(expected) > 50, "the docs' region role table lists %d MPI functions" % len(expected))
    with otf2.reader.open(path) as trace:
        defs = trace.definitions
        bad = []
        nmpi = 0
        for r in defs.regions:
            if not r.name.startswith("MPI_"):
                continue
            nmpi += 1
            want = expected.get(r.name, "FUNCTION")
            if enum_name(r.region_role) != want or r.paradigm != otf2.Paradigm.MPI or r.source_file != "MPI":
                bad.append("%s %s/%s/%s" % (r.name, enum_name(r.region_role), r.paradigm, r.source_file))
        say(nmpi > 0 and not bad, "%d MPI regions with Score-P's role, paradigm MPI, file \"MPI\"%s"
            % (nmpi, (": wrong " + ", ".join(bad[:6])) if bad else ""))
        paradigms = [p for p in defs.paradigms if p.paradigm == otf2.Paradigm.MPI]
        say(len(paradigms) == 1 and paradigms[0].name == "MPI"
            and paradigms[0].paradigm_class == otf2.ParadigmClass.PROCESS, "the MPI paradigm is defined")
        props = {enum_name(p.property): p.value for p in defs.paradigm_properties if p.paradigm == otf2.Paradigm.MPI}
        say(props.get("COMM_NAME_TEMPLATE") == "Comm ${id}" and props.get("RMA_WIN_NAME_TEMPLATE") == "Win ${id}",
            "the MPI paradigm's name templates: %s" % sorted(props.items()))
        keys = [c.name for c in defs.comms if re.match(r"^comm [0-9a-f]{16}$", c.name)]
        say(not keys, "no communicator named with the tracer's key (%d)" % len(keys))
        tops = list(defs.cart_topologies)
        coords = list(defs.cart_coordinates)
        problems = []
        for t in tops:
            sizes = [d.size for d in t.dimensions]
            name = "MPI_Cartesian_" + "x".join(str(s) for s in sizes)
            if t.name != name:
                problems.append("%s named %s" % (name, t.name))
            members = len(t.communicator.group.members)
            mine = [c for c in coords if c.topology == t]
            if sorted(c.rank for c in mine) != list(range(members)):
                problems.append("%s: coordinates for ranks %s of %d" % (t.name, sorted(c.rank for c in mine), members))
            for c in mine:
                index = 0
                for s, x in zip(sizes, c.coordinates):
                    index = index * s + x
                if index != c.rank:
                    problems.append("%s: rank %d at %s" % (t.name, c.rank, c.coordinates))
        print("cartesian %s" % "; ".join("%s periodic %s" % (t.name, [enum_name(d.cart_periodicity) for d in t.dimensions])
                                         for t in tops))
        say(tops and not problems, "%d Cartesian topologies, every member's coordinates%s"
            % (len(tops), (": " + "; ".join(problems[:4])) if problems else ""))
        first = {}
        for loc, ev in trace.events:
            if loc not in first:
                first[loc] = ev
        wrong = [loc.name for loc, ev in first.items()
                 if not (type(ev).__name__ == "Enter" and ev.region.name in ("MPI_Init", "MPI_Init_thread"))]
        say(first and not wrong, "every location begins with MPI_Init's Enter%s" % (": not " + ", ".join(wrong) if wrong else ""))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mapping_check.py ARCHIVE/traces.otf2 docs/scorep-mapping.md")
    main(sys.argv[1], sys.argv[2])
