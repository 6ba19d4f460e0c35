#!/usr/bin/python3
"""check-deps.py — prove that the project's own setup installs what the tests use.

Every requirement in scripts/test-deps.txt (a command, a Python module with
everything it imports in turn, a file) must be present on this machine AND
come from a Debian package that a fresh minimal Debian 12 root would have
after scripts/setup-debian.sh: one listed in scripts/debian-packages.txt, one
those depend on (Depends/Pre-Depends, recursively), or an essential package.
A requirement that is merely present here (installed by hand, or pulled in by
something we do not list) fails: CI's machine may have it, a user's will not.
That is how python3-otf2's undeclared import of six was missed.

Usage: check-deps.py [TOP]   exit 0 when all is covered, 1 otherwise (one
line per problem on stderr).
"""
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
PY = "/usr/bin/python3"   # Debian's python3: the one python3-* packages install for


def read_list(path):
    with open(path) as f:
        return [l.split("#", 1)[0].strip() for l in f if l.split("#", 1)[0].strip()]


def installed_packages():
    """name -> (depends alternatives list, provides list, essential)"""
    out = subprocess.run(["dpkg-query", "-W", "-f",
                          "${Package}\t${Status}\t${Essential}\t${Pre-Depends}, ${Depends}\t${Provides}\n"],
                         capture_output=True, text=True, check=True).stdout
    pkgs, provides = {}, {}
    for line in out.splitlines():
        name, status, essential, deps, prov = (line.split("\t") + [""] * 5)[:5]
        if not status.endswith("installed") or " installed" not in status:
            continue
        alts = []
        for d in deps.split(","):
            d = d.strip()
            if d:
                alts.append([re.sub(r"[:\s(].*", "", a.strip()) for a in d.split("|")])
        pkgs[name] = (alts, essential == "yes")
        for p in prov.split(","):
            p = re.sub(r"[:\s(].*", "", p.strip())
            if p:
                provides.setdefault(p, []).append(name)
    return pkgs, provides


def closure(roots, pkgs, provides):
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for alt in pkgs.get(p, ([], False))[0]:
            # the first alternative that is installed (or provided) is what apt chose
            for a in alt:
                cands = ([a] if a in pkgs else []) + provides.get(a, [])
                if cands:
                    todo.extend(cands[:1])
                    break
    return seen


def file_owners():
    """path -> package, from dpkg's own file lists (one read, not a dpkg -S per file)."""
    owners = {}
    info = "/var/lib/dpkg/info"
    for name in os.listdir(info):
        if not name.endswith(".list"):
            continue
        pkg = name[:-5].split(":")[0]
        with open(os.path.join(info, name), errors="replace") as f:
            for line in f:
                owners.setdefault(line.rstrip("\n"), pkg)
    return owners


def owner(path, owners):
    """The installed package that owns PATH (or its resolved target), or None."""
    for p in (path, os.path.realpath(path)):
        # usrmerge: dpkg may know /bin/x as well as /usr/bin/x
        for c in (p, p[4:] if p.startswith("/usr/") else "/usr" + p):
            if c in owners:
                return owners[c]
    return None


def module_files(module):
    code = ("import sys, %s\n"
            "for m in list(sys.modules.values()):\n"
            "    f = getattr(m, '__file__', None)\n"
            "    if f: print(f)\n") % module
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["import failed"])[-1]
    # what a bare interpreter loads by itself (site, .pth hooks) is not the module's need
    bare = subprocess.run([PY, "-c", code.replace(", %s" % module, "")], capture_output=True, text=True).stdout.split()
    return [f for f in r.stdout.split() if f.startswith("/usr/") and f not in bare], None


def main():
    problems = []
    if not os.path.exists(PY):
        print("check-deps: %s is missing: install the Debian package python3" % PY, file=sys.stderr)
        return 1
    wanted = read_list(os.path.join(TOP, "scripts", "debian-packages.txt"))
    reqs = read_list(os.path.join(TOP, "scripts", "test-deps.txt"))
    pkgs, provides = installed_packages()
    owners = file_owners()
    for p in wanted:
        if p not in pkgs:
            problems.append("package %s (scripts/debian-packages.txt) is not installed" % p)
    essential = [p for p, (_, e) in pkgs.items() if e] + ["apt"]
    covered = closure(wanted + essential, pkgs, provides)
    for req in reqs:
        kind, _, name = req.partition(" ")
        name = name.strip()
        if kind == "command":
            path = shutil.which(name)
            if not path:
                problems.append("command %s is not installed" % name)
                continue
            files, what = [path], "command " + name
        elif kind == "python":
            files, err = module_files(name)
            if files is None:
                problems.append("python module %s does not import with %s: %s" % (name, PY, err))
                continue
            what = "python module " + name
        elif kind == "file":
            if not os.path.exists(name):
                problems.append("file %s is missing" % name)
                continue
            files, what = [name], "file " + name
        else:
            problems.append("scripts/test-deps.txt: unknown requirement '%s'" % req)
            continue
        for f in files:
            pkg = owner(f, owners)
            if pkg is None:
                if f.startswith("/usr/lib/python3.") or f.startswith("/usr/bin/"):
                    problems.append("%s: %s belongs to no Debian package" % (what, f))
                continue
            if pkg not in covered:
                problems.append("%s needs %s from the Debian package %s, which scripts/debian-packages.txt "
                                "does not install (nor anything it depends on)" % (what, f, pkg))
    for p in sorted(set(problems)):
        print("check-deps: " + p, file=sys.stderr)
    if not problems:
        print("check-deps: %d requirements, all installed by scripts/setup-debian.sh's packages" % len(reqs))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
