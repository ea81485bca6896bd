#!/usr/bin/env python3
"""Write the example tetrahedral meshes of deformable bodies as legacy ASCII VTK.

  examples/meshes/soft_ball.vtk  a ball of radius 0.05 m: a 5 x 5 x 5 grid of cubes over
                                 [-1, 1]^3, each cut into 6 tets around its main diagonal
                                 (the Kuhn split, conforming across cells), mapped onto the
                                 ball by the cube-to-sphere map x' = x sqrt(1 - y²/2 - z²/2 +
                                 y²z²/3) (and its cyclic versions), then scaled; 216 vertices,
                                 750 tets.
  examples/meshes/soft_box.vtk   a 0.1 m cube, a 2 x 2 x 2 grid of cubes split the same way;
                                 27 vertices, 48 tets.
  examples/meshes/soft_beam.vtk  a 0.3 x 0.04 x 0.04 m beam along x from x = 0, centred on the
                                 x axis, a 15 x 2 x 2 grid of cubes split the same way; 144
                                 vertices, 360 tets.
  examples/meshes/arch_block.vtk one voussoir of the masonry arch (examples/arch.sdf): the
                                 annular sector of radii 0.8 and 1.1 m over 20 degrees about the
                                 +z axis (the crown's place), 0.3 m deep along y from -0.15 to
                                 0.15, its faces flat (chords), its two joint faces pushed out
                                 by 0.1 mm along their normals; the 8 corners and its centroid,
                                 12 tets (each face split in two triangles, each joined to the
                                 centroid); 9 vertices.

Every tet is written positively oriented, ((v1-v0)x(v2-v0)).(v3-v0) > 0, as Drake and isobar
expect; the script checks it, and that the ball's surface is closed, before writing.
Run from the repository root: python3 scripts/gen_deformable_meshes.py
"""
import itertools
import math
import os
import sys

# The Kuhn split of the unit cube: one tet per permutation of the axes, each a path from
# corner (0,0,0) to (1,1,1) stepping one axis at a time.
KUHN = list(itertools.permutations(range(3)))


def grid(n):
    """Vertices of an (n+1)^3 grid over [-1, 1]^3 and the 6 n^3 Kuhn tets."""
    idx = lambda i, j, k: (i * (n + 1) + j) * (n + 1) + k
    verts = [(-1 + 2 * i / n, -1 + 2 * j / n, -1 + 2 * k / n)
             for i in range(n + 1) for j in range(n + 1) for k in range(n + 1)]
    tets = []
    for i, j, k in itertools.product(range(n), repeat=3):
        for perm in KUHN:
            c = [i, j, k]
            path = [idx(*c)]
            for axis in perm:
                c[axis] += 1
                path.append(idx(*c))
            tets.append(path)
    return verts, tets


def box_grid(nx, ny, nz, size, lo):
    """Vertices of an (nx+1)(ny+1)(nz+1) grid over the box lo + [0, size] and its Kuhn tets."""
    idx = lambda i, j, k: (i * (ny + 1) + j) * (nz + 1) + k
    verts = [(lo[0] + size[0] * i / nx, lo[1] + size[1] * j / ny, lo[2] + size[2] * k / nz)
             for i in range(nx + 1) for j in range(ny + 1) for k in range(nz + 1)]
    tets = []
    for i, j, k in itertools.product(range(nx), range(ny), range(nz)):
        for perm in KUHN:
            c = [i, j, k]
            path = [idx(*c)]
            for axis in perm:
                c[axis] += 1
                path.append(idx(*c))
            tets.append(path)
    return verts, tets


def signed6(v, t):
    a, b, c, d = (v[i] for i in t)
    u = [b[x] - a[x] for x in range(3)]
    w = [c[x] - a[x] for x in range(3)]
    z = [d[x] - a[x] for x in range(3)]
    cr = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
    return cr[0] * z[0] + cr[1] * z[1] + cr[2] * z[2]


def orient(v, tets):
    """Swap two vertices of every negatively oriented tet; fail on a flat one."""
    out = []
    for t in tets:
        s = signed6(v, t)
        if s == 0:
            sys.exit("flat tetrahedron %s" % t)
        out.append(t if s > 0 else [t[1], t[0], t[2], t[3]])
    return out


def to_ball(p):
    x, y, z = p
    return (x * math.sqrt(1 - y * y / 2 - z * z / 2 + y * y * z * z / 3),
            y * math.sqrt(1 - z * z / 2 - x * x / 2 + z * z * x * x / 3),
            z * math.sqrt(1 - x * x / 2 - y * y / 2 + x * x * y * y / 3))


def check_closed(tets):
    """Faces used once form the surface; every surface edge must be in exactly two of them."""
    faces = {}
    for t in tets:
        for f in ((1, 2, 3), (0, 3, 2), (0, 1, 3), (0, 2, 1)):
            key = tuple(sorted(t[i] for i in f))
            faces[key] = faces.get(key, 0) + 1
    surface = [k for k, n in faces.items() if n == 1]
    edges = {}
    for a, b, c in surface:
        for e in ((a, b), (b, c), (a, c)):
            edges[e] = edges.get(e, 0) + 1
    if any(n != 2 for n in edges.values()):
        sys.exit("surface is not closed")
    nv = len({v for f in surface for v in f})
    if nv - len(edges) + len(surface) != 2:
        sys.exit("surface is not a sphere")
    return len(surface)


def write(path, title, verts, tets):
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 3.0\n%s\nASCII\nDATASET UNSTRUCTURED_GRID\n" % title)
        f.write("POINTS %d double\n" % len(verts))
        for p in verts:
            f.write("%.17g %.17g %.17g\n" % p)
        f.write("CELLS %d %d\n" % (len(tets), 5 * len(tets)))
        for t in tets:
            f.write("4 %d %d %d %d\n" % tuple(t))
        f.write("CELL_TYPES %d\n" % len(tets))
        for _ in tets:
            f.write("10\n")


# The voussoir of the arch: radii, half-angle of its sector and depth (examples/arch.sdf says why).
ARCH_R_IN, ARCH_R_OUT, ARCH_HALF_ANGLE, ARCH_DEPTH = 0.8, 1.1, math.pi / 18, 0.3
# Each joint face pushed out along its normal by this much, so that neighbours start overlapping
# by twice it and the base blocks sink by it into the floor (examples/arch.sdf says why), m.
ARCH_OFFSET = 1e-4


def voussoir():
    """One voussoir about the +z axis in the x-z plane, y the depth: its 8 corners, its centroid
    as a ninth vertex, and 12 tets, one per surface triangle joined to the centroid.

    The centroid is the one vertex off the surface, so the signed-distance field that
    deformable-deformable contact uses is non-zero inside (0 at the corners, minus the distance
    to the nearest face at the centroid); with corners alone it would vanish everywhere. The
    two joint faces (at -20/2 and +20/2 degrees) are split along crossing diagonals: where a
    block's +angle face meets its neighbour's -angle face the tets of the two sides overlap in
    four quarter-triangles instead of two halves, so each joint carries four contact polygons,
    spread over both directions of the face."""
    s, c = math.sin(ARCH_HALF_ANGLE), math.cos(ARCH_HALF_ANGLE)
    h = ARCH_DEPTH / 2
    v = []
    for side in (-1, 1):  # the joint face at angle side * half-angle from +z, normal n
        n = (side * c, -side * s)  # (x, z)
        for r in (ARCH_R_IN, ARCH_R_OUT):
            for y in (-h, h):
                v.append((side * r * s + ARCH_OFFSET * n[0], y, r * c + ARCH_OFFSET * n[1]))
    idx = lambda side, r, y: 4 * side + 2 * r + y  # side, r, y in {0, 1}
    centroid = tuple(sum(p[k] for p in v) / 8 for k in range(3))
    v.append(centroid)
    quads = [
        # joint faces: (r, y) corners in order around the quad; the first corner starts the
        # diagonal the split uses, so the two faces' diagonals cross when seen along the arch
        [idx(0, 0, 0), idx(0, 1, 0), idx(0, 1, 1), idx(0, 0, 1)],
        [idx(1, 1, 0), idx(1, 1, 1), idx(1, 0, 1), idx(1, 0, 0)],
        [idx(0, 0, 0), idx(1, 0, 0), idx(1, 0, 1), idx(0, 0, 1)],  # intrados
        [idx(0, 1, 0), idx(1, 1, 0), idx(1, 1, 1), idx(0, 1, 1)],  # extrados
        [idx(0, 0, 0), idx(1, 0, 0), idx(1, 1, 0), idx(0, 1, 0)],  # front, y = -h
        [idx(0, 0, 1), idx(1, 0, 1), idx(1, 1, 1), idx(0, 1, 1)],  # back, y = +h
    ]
    tets = []
    for a, b, c2, d in quads:
        tets.append([a, b, c2, 8])
        tets.append([a, c2, d, 8])
    return v, tets


def main():
    out = os.path.join("examples", "meshes")
    os.makedirs(out, exist_ok=True)
    radius = 0.05
    v, t = grid(5)
    t = orient(v, t)  # on the grid, so that a tet the map folded shows up below
    v = [tuple(radius * c for c in to_ball(p)) for p in v]
    if any(signed6(v, x) <= 0 for x in t):
        sys.exit("the map to the ball inverted a tetrahedron")
    worst = min(signed6(v, x) for x in t) / 6
    ntri = check_closed(t)
    write(os.path.join(out, "soft_ball.vtk"),
          "soft ball, radius 0.05 m (scripts/gen_deformable_meshes.py)", v, t)
    print("soft_ball.vtk: %d vertices, %d tets, %d surface triangles, smallest volume %.3g m^3"
          % (len(v), len(t), ntri, worst))
    half = 0.05
    v, t = grid(2)
    v = [tuple(half * c for c in p) for p in v]
    t = orient(v, t)
    ntri = check_closed(t)
    write(os.path.join(out, "soft_box.vtk"),
          "soft box, 0.1 m cube (scripts/gen_deformable_meshes.py)", v, t)
    print("soft_box.vtk: %d vertices, %d tets, %d surface triangles" % (len(v), len(t), ntri))
    v, t = box_grid(15, 2, 2, (0.3, 0.04, 0.04), (0.0, -0.02, -0.02))
    t = orient(v, t)
    ntri = check_closed(t)
    write(os.path.join(out, "soft_beam.vtk"),
          "soft beam, 0.3 x 0.04 x 0.04 m (scripts/gen_deformable_meshes.py)", v, t)
    print("soft_beam.vtk: %d vertices, %d tets, %d surface triangles" % (len(v), len(t), ntri))
    v, t = voussoir()
    t = orient(v, t)
    ntri = check_closed(t)
    write(os.path.join(out, "arch_block.vtk"),
          "arch voussoir, radii 0.8-1.1 m, 20 degrees, 0.3 m deep (scripts/gen_deformable_meshes.py)", v, t)
    print("arch_block.vtk: %d vertices, %d tets, %d surface triangles, smallest volume %.3g m^3"
          % (len(v), len(t), ntri, min(signed6(v, x) for x in t) / 6))


if __name__ == "__main__":
    main()
