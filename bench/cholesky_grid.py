#!/usr/bin/env python3
"""A sparse symmetric positive definite matrix for SPLASH-3's CHOLESKY.

    bench/cholesky_grid.py NX NY NZ > grid.O

The matrix is the 7-point Laplacian of an NX x NY x NZ grid, written as
CHOLESKY reads its inputs (util.C, ReadSparse): a Harwell-Boeing header
with type PSA (pattern, symmetric, assembled) and the lower triangle,
diagonal included, column by column, 1-based. CHOLESKY makes up the values
from the pattern (diagonal maxm + 0.1, the rest -1: diagonally dominant,
so positive definite whatever the pattern) and factors the matrix in the
order given ("No ordering"): the grid is numbered by nested dissection,
each box's two halves first and the plane between them last, so that the
factor fills in as a good ordering would, not as a band would. The inputs
of the checkout stop at tk29.O (13,992 columns); a 40^3 grid (64,000) is
what `SIZE=large bench/splash3.py` runs, written by the script itself.
"""
import sys

SMALL = 8  # boxes with at most this many points are numbered in order


def dissect(box, out):
    """Appends the points of box ((x0, x1), (y0, y1), (z0, z1)) to out."""
    sizes = [hi - lo for lo, hi in box]
    if min(sizes) <= 0:
        return
    if sizes[0] * sizes[1] * sizes[2] <= SMALL or max(sizes) < 3:
        (x0, x1), (y0, y1), (z0, z1) = box
        out.extend((x, y, z) for z in range(z0, z1) for y in range(y0, y1) for x in range(x0, x1))
        return
    d = sizes.index(max(sizes))
    lo, hi = box[d]
    mid = (lo + hi) // 2
    for part in ((lo, mid), (mid + 1, hi), (mid, mid + 1)):
        dissect(tuple(part if k == d else box[k] for k in range(3)), out)


def columns(nx, ny, nz):
    """The lower triangle's rows of each column, in the dissection's order."""
    order = []
    dissect(((0, nx), (0, ny), (0, nz)), order)
    index = {p: i for i, p in enumerate(order)}
    for i, (x, y, z) in enumerate(order):
        rows = [i]
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            j = index.get((x + dx, y + dy, z + dz))
            if j is not None and j > i:
                rows.append(j)
        yield sorted(rows)


def lines(values, per, width):
    for k in range(0, len(values), per):
        yield "".join(f"{v:{width}d}" for v in values[k:k + per])


def main():
    try:
        nx, ny, nz = (int(a) for a in sys.argv[1:4])
        if len(sys.argv) != 4 or min(nx, ny, nz) < 1:
            raise ValueError
    except ValueError:
        sys.exit("usage: cholesky_grid.py NX NY NZ > matrix.O (each at least 1)")
    pointers, rows = [1], []
    for col in columns(nx, ny, nz):
        rows.extend(r + 1 for r in col)
        pointers.append(len(rows) + 1)
    n = nx * ny * nz
    # ReadVector reads a line into 100 bytes: 8 fields of 10 fit.
    ptr_lines, row_lines = list(lines(pointers, 8, 10)), list(lines(rows, 8, 10))
    title = f"7-point Laplacian, {nx}x{ny}x{nz} grid, nested dissection order"
    out = sys.stdout
    out.write(f"{title:<72.72}{'grid':<8}\n")
    out.write(f"{len(ptr_lines) + len(row_lines):14d}{len(ptr_lines):14d}{len(row_lines):14d}"
              f"{0:14d}{0:14d}\n")
    out.write(f"PSA{'':11}{n:14d}{n:14d}{len(rows):14d}{0:14d}\n")
    out.write(f"{'(8I10)':<16}{'(8I10)':<16}{'':<20}{'':<20}\n")
    for line in ptr_lines + row_lines:
        out.write(line + "\n")


if __name__ == "__main__":
    main()
