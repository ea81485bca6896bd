"""Fill of a deformable mesh's block Cholesky factor under three vertex orderings.

The factor's pattern (host/assets/fem_pattern.c) follows one ordering per mesh: minimum degree
(host/assets/fem_order.c, the default) or the natural one. This script answers whether another
ordering would factor for less: it eliminates the vertex graph symbolically under

  md       minimum degree, ties to the lowest index (the library's own; its counts match
           fem_pattern_build's nslot and ntgt to the block),
  natural  the file's vertex order,
  nd L     geometric nested dissection: split at the median of the longest axis, the vertices
           on the median plane and those with an edge across it last, recursively, down to
           parts of L vertices ordered by minimum degree,

and prints, per ordering, the blocks of L (nslot), the 3x3 block updates of one factorisation
(ntgt) and its flops as fem_pattern.c counts them (54·ntgt + 27·npair + 15·n).

Usage: python3 bench/fem_ordering.py MESH.vtk [MESH.vtk ...]   (legacy ASCII VTK, tetrahedra)
Results: bench/RESULTS.md, "Deformable factor: does another ordering fill less?".
"""
import heapq
import sys


def read_vtk(path):
    lines = open(path).read().split("\n")
    pts, tets, i = [], [], 0
    while i < len(lines):
        if lines[i].startswith("POINTS"):
            n = int(lines[i].split()[1])
            vals = []
            i += 1
            while len(vals) < 3 * n:
                vals += [float(x) for x in lines[i].split()]
                i += 1
            pts = [vals[3 * k:3 * k + 3] for k in range(n)]
            continue
        if lines[i].startswith("CELLS"):
            m = int(lines[i].split()[1])
            tets = [[int(x) for x in lines[i + 1 + k].split()[1:5]] for k in range(m)]
            i += 1 + m
            continue
        i += 1
    return pts, tets


def vertex_graph(n, tets):
    adj = [set() for _ in range(n)]
    for t in tets:
        for a in t:
            adj[a].update(b for b in t if b != a)
    return adj


def fill(adj, order):
    """(nslot, ntgt, flops) of the factor under `order` (position k holds vertex order[k])."""
    n = len(adj)
    pos = [0] * n
    for k, v in enumerate(order):
        pos[v] = k
    rows = [set(pos[u] for u in adj[order[k]]) for k in range(n)]
    nslot = ntgt = 0
    for k in range(n):
        below = sorted(x for x in rows[k] if x > k)
        c = len(below)
        nslot += 1 + c
        ntgt += c * (c + 1) // 2
        if below:  # the column's pattern joins its parent's (the first row below the diagonal)
            rows[below[0]] |= set(below[1:])
    return nslot, ntgt, 54 * ntgt + 27 * (nslot - n) + 15 * n


def min_degree(adj):
    g = [set(a) for a in adj]
    alive = [True] * len(adj)
    heap = [(len(g[v]), v) for v in range(len(adj))]
    heapq.heapify(heap)
    order = []
    while heap:
        d, v = heapq.heappop(heap)
        if not alive[v] or d != len(g[v]):
            continue  # eliminated, or a stale degree
        alive[v] = False
        order.append(v)
        for u in g[v]:
            g[u].discard(v)
            g[u] |= g[v] - {u}
            heapq.heappush(heap, (len(g[u]), u))
        g[v] = set()
    return order


def sub_min_degree(adj, verts):
    index = {v: i for i, v in enumerate(verts)}
    sub = [set(index[u] for u in adj[v] if u in index) for v in verts]
    return [verts[i] for i in min_degree(sub)]


def nested_dissection(adj, pts, verts, leaf):
    if len(verts) <= leaf:
        return sub_min_degree(adj, verts)
    extent = [max(pts[v][d] for v in verts) - min(pts[v][d] for v in verts) for d in range(3)]
    d = extent.index(max(extent))
    ranked = sorted(verts, key=lambda v: (pts[v][d], v))
    median = pts[ranked[len(ranked) // 2]][d]
    left = [v for v in verts if pts[v][d] < median]
    right = [v for v in verts if pts[v][d] > median]
    sep = [v for v in verts if pts[v][d] == median]
    if not left or not right:  # all on one side: split the ranking in two instead
        left, right, sep = ranked[:len(ranked) // 2], ranked[len(ranked) // 2:], []
    across = set(right)
    cut = [v for v in left if any(u in across for u in adj[v])]  # edges across the plane
    cut_set = set(cut)
    left = [v for v in left if v not in cut_set]
    return (nested_dissection(adj, pts, left, leaf) + nested_dissection(adj, pts, right, leaf) +
            sub_min_degree(adj, sep + cut))


def main(paths):
    print("| mesh | vertices / tets | ordering | blocks of L | block updates | flops per factorisation |")
    print("|---|---|---|---:|---:|---:|")
    for path in paths:
        pts, tets = read_vtk(path)
        n = len(pts)
        adj = vertex_graph(n, tets)
        rows = [("minimum degree (the library's)", min_degree(adj)), ("natural", list(range(n)))]
        rows += [(f"nested dissection, parts of {leaf}", nested_dissection(adj, pts, list(range(n)), leaf))
                 for leaf in (8, 32)]
        for name, order in rows:
            assert sorted(order) == list(range(n))
            nslot, ntgt, flops = fill(adj, order)
            print(f"| {path} | {n} / {len(tets)} | {name} | {nslot:,} | {ntgt:,} | {flops / 1e6:.2f} M |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
