#!/usr/bin/env python3
"""Check wrappers/mpi.spec against the installed MPI.

Lists the C functions that mpi.h declares (after preprocessing, so that
functions an MPI removed are not counted) and compares them with the spec.
Usage: check-spec.py SPEC [MPICC]. Prints one line per difference; exit 0
when the spec lists exactly the declared functions, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location('gen', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                  'gen-wrappers.py'))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


def declared_functions(mpicc):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'x.c')
        with open(src, 'w') as f:
            f.write('#include <mpi.h>\n')
        out = subprocess.run([mpicc, '-E', '-P', src], check=True, capture_output=True, text=True).stdout
    out = re.sub(r'__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)', '', out)
    # A declaration: a return type, the name, an argument list, then ';'.
    return set(re.findall(r'\b(?:int|double|MPI_\w+)\s+(MPI_\w+)\s*\([^;{]*\)\s*;', out))


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), 'mpi.spec')
    mpicc = argv[2] if len(argv) > 2 else 'mpicc'
    listed = {fn['name'] for fam in gen.parse(path) for fn in fam['fns']}
    declared = declared_functions(mpicc)
    missing = sorted(declared - listed)
    extra = sorted(listed - declared)
    for name in missing:
        print('missing from the spec: %s' % name)
    for name in extra:
        print('in the spec but not declared by mpi.h: %s' % name)
    print('%d functions declared, %d listed' % (len(declared), len(listed)))
    return 1 if missing or extra else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
