#!/usr/bin/env python3
"""scripts/include-graph.py [--dot | --layers] [--files DIR...] [--objects OBJ...]

The includes between the source folders, resolved as the build resolves
them: each quoted #include names a file by its base name, and base names
are unique in the tree (headers under include/ aside). Prints one line per
folder edge "A -> B (N includes)", a Graphviz graph with --dot, or the
folders by layer with --layers (each includes only folders of the layers
below it). Exits 1 if the folders' graph has a cycle (naming it), or if
--files DIR is given and the files inside DIR include each other in a
cycle. With --objects, the modules of those object files (named after
their source: libtool's "libX_la-" prefix dropped) and the symbols each
takes from another (nm): exits 1 if they call each other in a cycle, which
includes alone do not show (a global defined in one file, declared in a
shared header).
A folder is the directory of a source file."""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(top):
    """Every .c and .h of the tree, build trees inside it (build*, _build) aside."""
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if not x.startswith((".", "_", "build", "autom4te"))]
        for n in names:
            if n.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, n), top)


def folder(path):
    return os.path.dirname(path)


def find_cycle(graph):
    """A cycle of the directed graph (a list of nodes), or None."""
    colour, stack = {}, []

    def visit(n):
        colour[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if colour.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in colour:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        colour[n] = 2
        return None

    for n in sorted(graph):
        if n not in colour:
            c = visit(n)
            if c:
                return c
    return None


def symbol_cycle(objects):
    """A cycle among the modules of these object files, or None."""
    defs, uses = {}, {}
    for o in objects:
        m = re.sub(r"^lib\w+_la-", "", os.path.basename(o))[:-2]
        for line in subprocess.check_output(["nm", o]).decode().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRVWC":
                defs.setdefault(parts[2], m)
            elif len(parts) == 2 and parts[0] == "U":
                uses.setdefault(m, set()).add(parts[1])
    graph = {}
    for m, symbols in uses.items():
        for sym in symbols:
            d = defs.get(sym)
            if d and d != m:
                graph.setdefault(m, set()).add(d)
    return find_cycle(graph)


def option_args(argv, name):
    if name not in argv:
        return []
    rest = argv[argv.index(name) + 1:]
    end = next((i for i, a in enumerate(rest) if a.startswith("--")), len(rest))
    return rest[:end]


def main(argv):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dot = "--dot" in argv
    file_dirs = option_args(argv, "--files")
    objects = option_args(argv, "--objects")
    files = sorted(sources(top))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    # tests, benchmarks and the fuzzers include the code they test; only
    # the product's folders are checked for cycles.
    product = [f for f in files if not f.startswith(("tests", "bench"))]
    edges, file_edges = {}, {}
    for f in product:
        with open(os.path.join(top, f), errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            # A quoted include looks beside the including file first.
            beside = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            targets = [beside] if os.path.isfile(os.path.join(top, beside)) else \
                [t for t in by_name.get(os.path.basename(inc), [])
                 if not t.startswith(("tests", "bench")) and t.endswith("/" + inc)
                 and (t.startswith("include/") == ("/" in inc))]
            if not targets:
                continue  # a system or generated header
            if len(targets) > 1:
                print("%s: #include \"%s\" is ambiguous: %s" % (f, inc, " ".join(targets)), file=sys.stderr)
                return 1
            t = targets[0]
            file_edges.setdefault(f, set()).add(t)
            a, b = folder(f), folder(t)
            if a != b:
                edges.setdefault(a, {}).setdefault(b, 0)
                edges[a][b] += 1
    if "--layers" in argv and not find_cycle({a: set(bs) for a, bs in edges.items()}):
        folders = sorted({folder(f) for f in product})
        layer = {}
        def depth(f):
            if f not in layer:
                layer[f] = 1 + max((depth(b) for b in edges.get(f, {})), default=-1)
            return layer[f]
        for f in folders:
            depth(f)
        for k in range(max(layer.values()) + 1):
            print("%d  %s" % (k, "  ".join(f for f in folders if layer[f] == k)))
    elif dot:
        print("digraph folders {")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print('  "%s" -> "%s" [label=%d];' % (a, b, edges[a][b]))
        print("}")
    else:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print("%s -> %s (%d includes)" % (a, b, edges[a][b]))
    status = 0
    cycle = find_cycle({a: set(bs) for a, bs in edges.items()})
    if cycle:
        print("cycle between folders: " + " -> ".join(cycle), file=sys.stderr)
        status = 1
    for d in file_dirs:
        # A header and its .c are one module: x.c including x.h is no edge.
        def module(p):
            return os.path.splitext(p)[0]
        g = {}
        for f, ts in file_edges.items():
            if folder(f) != d:
                continue
            for t in ts:
                if folder(t) == d and module(t) != module(f):
                    g.setdefault(module(f), set()).add(module(t))
        cycle = find_cycle(g)
        if cycle:
            print("cycle between files of %s: %s" % (d, " -> ".join(os.path.basename(c) for c in cycle)), file=sys.stderr)
            status = 1
    if objects:
        cycle = symbol_cycle(objects)
        if cycle:
            print("cycle between the modules of the objects given: " + " -> ".join(cycle), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
