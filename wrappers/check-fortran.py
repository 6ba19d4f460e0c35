#!/usr/bin/env python3
"""Check the Fortran wrappers' parameter lists against Open MPI's own.

Open MPI installs the C prototypes of its Fortran bindings
(openmpi/ompi/mpi/fortran/mpif-h/prototypes_mpi.h). For every function of
wrappers/mpi.spec that has a Fortran wrapper, the parameter list that
gen-wrappers.py derives from the C prototype (or takes from fargs:) must
have Open MPI's length and as many hidden string lengths, in the same places: a region wrapper forwards exactly those arguments.
Usage: check-fortran.py SPEC PROTOTYPES_MPI_H. Prints one line per
difference and a summary; exit 0 when all agree, 1 otherwise.
"""
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location('gen', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                   'gen-wrappers.py'))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def ompi_prototypes(path):
    """{MPI_Name: [(type, name)]} from the PN2(ret, MPI_Name, lower, UPPER, (args)) lines."""
    out = {}
    with open(path) as f:
        text = f.read()
    for m in re.finditer(r'PN2\(\s*(\w+)\s*,\s*(MPI_\w+)\s*,\s*\w+\s*,\s*\w+\s*,\s*\((.*?)\)\);', text, re.S):
        args = m.group(3).strip()
        params = []
        if args and args != 'void':
            for a in args.split(','):
                a = a.strip()
                if '[' in a:                      # MPI_Fint ranges[][3]: a pointer
                    a = '%s *%s' % tuple(a[:a.index('[')].rsplit(None, 1))
                name = re.search(r'(\w+)\s*$', a).group(1)
                params.append((a[:-len(name)].strip(), name))
        out[m.group(2)] = params
    return out


def shape(params):
    """What forwarding depends on: per parameter, a reference (p) or a hidden length passed by value (L).
    (Open MPI types buffers as char * too, so CHARACTER arguments show only by their lengths.)"""
    return ''.join('p' if '*' in t else 'L' for t, _ in params)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: check-fortran.py SPEC PROTOTYPES_MPI_H\n')
        return 2
    try:
        families = gen.parse(argv[1])
        ompi = ompi_prototypes(argv[2])
    except (gen.SpecError, OSError) as e:
        sys.stderr.write('check-fortran: %s\n' % e)
        return 2
    bad = checked = 0
    for fam in families:
        for fn in fam['fns']:
            if fn['fortran'] in ('none', 'manual'):
                if fn['fortran'] == 'none' and fn['name'] in ompi:
                    print('%s: marked fortran: none, but Open MPI has a Fortran binding' % fn['name'])
                    bad += 1
                continue
            if fn['name'] not in ompi:
                print('%s: no Fortran binding in Open MPI (mark it fortran: none)' % fn['name'])
                bad += 1
                continue
            checked += 1
            ours, theirs = shape(gen.fortran_params(fn)), shape(ompi[fn['name']])
            if ours != theirs:
                print('%s: parameters %s, Open MPI %s (p reference, L hidden length)'
                      % (fn['name'], ours, theirs))
                bad += 1
    print('%d Fortran bindings checked, %d differ' % (checked, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
