#!/usr/bin/env python3
"""A synthetic density volume for SPLASH-3's VOLREND.

    bench/volrend_phantom.py OUT.den [NX NY NZ]

The public checkout's head.den, the full CT head, is empty. This writes a
head-like phantom of the same map size (256 x 256 x 113 by default) in
VOLREND's .den format (map.C, Load_Map; little-endian, as the checkout's
files are): a version (1), the original, extracted and map boxes (min, max
and length of each axis, as shorts), the warp count, the number of
densities (an int), then one byte per voxel, x fastest. The phantom is
nested ellipsoids: skin and skull, whose densities (110 and 220) lie in
and above VOLREND's opacity ramp (95 to 135), round soft tissue (50,
transparent) holding a few denser spheres, so rays cross, stop at and
pass through surfaces as in the real head. It only gives the renderer a
head's size and kind of work: nothing compares its pictures with the
real head's.
"""
import struct
import sys

# (centre, semi-axes, density) as fractions of the volume; later ones are
# drawn over earlier ones.
SHAPES = [
    ((0.50, 0.50, 0.50), (0.46, 0.48, 0.47), 110),  # skin
    ((0.50, 0.50, 0.50), (0.43, 0.45, 0.44), 50),   # under the skin
    ((0.50, 0.50, 0.50), (0.40, 0.42, 0.41), 220),  # skull
    ((0.50, 0.50, 0.50), (0.36, 0.38, 0.37), 50),   # brain
    ((0.35, 0.30, 0.55), (0.06, 0.06, 0.09), 150),
    ((0.65, 0.30, 0.55), (0.06, 0.06, 0.09), 150),
    ((0.50, 0.60, 0.40), (0.12, 0.08, 0.10), 180),
    ((0.50, 0.45, 0.70), (0.05, 0.15, 0.05), 130),
]


def row(y, z, n):
    """The densities of row (y, z), x from 0 to n[0] - 1."""
    out = bytearray(n[0])
    for (cx, cy, cz), (ax, ay, az), d in SHAPES:
        ry = (y / (n[1] - 1) - cy) / ay
        rz = (z / (n[2] - 1) - cz) / az
        rest = 1.0 - ry * ry - rz * rz
        if rest <= 0:
            continue
        half = ax * rest ** 0.5 * (n[0] - 1)
        lo = max(0, int(cx * (n[0] - 1) - half + 0.999))
        hi = min(n[0] - 1, int(cx * (n[0] - 1) + half))
        if lo <= hi:
            out[lo:hi + 1] = bytes([d]) * (hi - lo + 1)
    return out


def main():
    if len(sys.argv) not in (2, 5):
        sys.exit("usage: volrend_phantom.py OUT.den [NX NY NZ]")
    n = tuple(int(a) for a in sys.argv[2:5]) or (256, 256, 113)
    if min(n) < 2 or max(n) > 32767:
        sys.exit("volrend_phantom.py: each size from 2 to 32767")
    box = list((0,) * 3) + [v - 1 for v in n] + list(n)
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<h", 1))
        for _ in range(3):  # original, extracted, map: the same box
            f.write(struct.pack("<9h", *box))
        f.write(struct.pack("<hi", 1, n[0] * n[1] * n[2]))
        for z in range(n[2]):
            for y in range(n[1]):
                f.write(row(y, z, n))


if __name__ == "__main__":
    main()
