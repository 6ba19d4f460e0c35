#!/usr/bin/env python3
"""corrupt_bytes.py SRC DST SEED [FILE] -- copy the raw trace SRC to DST and
change 1 to 4 bytes of one of its files, all chosen by SEED (Python's
Mersenne Twister: the same choice on every machine). FILE, relative to SRC,
fixes the file instead. Prints the path of the changed file relative to DST,
then the offsets changed."""
import os
import random
import shutil
import sys

src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
shutil.copytree(src, dst, symlinks=True)
if len(sys.argv) > 4:
    rel = sys.argv[4]
else:
    files = sorted(os.path.relpath(os.path.join(d, f), dst)
                   for d, _, fs in os.walk(dst) for f in fs)
    files = [f for f in files if os.path.getsize(os.path.join(dst, f)) > 0]
    rel = files[rng.randrange(len(files))]
path = os.path.join(dst, rel)
size = os.path.getsize(path)
offsets = sorted(rng.sample(range(size), min(size, rng.randint(1, 4))))
with open(path, "r+b") as f:
    for at in offsets:
        f.seek(at)
        old = f.read(1)[0]
        f.seek(at)
        f.write(bytes([old ^ rng.randint(1, 255)]))   # never the same value
print(rel)
print(" ".join(map(str, offsets)))
