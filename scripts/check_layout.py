#!/usr/bin/env python3
"""The layout rules of /DESIGN.md ("host/: one folder per layer, dependencies point one way"),
checked on the source tree before anything is built. Python 3 standard library only.

    python3 scripts/check_layout.py [--root DIR] [--skip-self-test]

Fails (exit 1), naming the file and the rule, when
  top-level  a .c/.h/.cu sits directly under host/ instead of in its layer's folder;
  cycle      the repository's own files include each other in a cycle;
  kernels    a kernels/ file outside kernels/cuda/ includes anything under host/;
  layer      a host layer includes a higher one (LAYER_DEPS), kernels/cuda/ includes host/
             beyond the backend it implements, or a folder under host/ is not a known layer;
  leaf       a file declared a leaf (LEAVES) includes another file of its folder;
  size       a source file in host/, kernels/ or tests/ is over 800 lines (notes from 600);
  allowlist  an ALLOWED entry no longer occurs: delete it, the list only shrinks.
Include edges that break a rule today are listed in ALLOWED with the reason they still exist;
they print as notes. Before checking the tree the script checks its own rules on small made-up
trees (a broken rule must fail), so a checker that silently passes everything cannot pass CI.
"""
import argparse
import os
import re
import sys
import tempfile

SOURCE_DIRS = ("host", "kernels", "tests", "include", "bench", "examples")
SOURCE_EXTS = (".c", ".h", ".cu", ".cuh", ".cpp", ".hpp")
SIZE_DIRS = ("host", "kernels", "tests")
HARD_LINES = 800  # a ceiling, not a target: STYLE.md's guide is ~600
NOTE_LINES = 600

# The layers of host/ and what each may include besides itself, transitively. DESIGN.md:
# runtime cli -> output -> sim -> step -> backend -> kernels; build time loaders -> model ->
# assets -> kernels; base below everything. The step reads the compiled model (its step
# context), so step sits above model; the tool loads scene files, so cli sits above loaders.
LAYER_DEPS = {
    "base": (),
    "backend": ("base",),
    "assets": ("base",),
    "model": ("assets",),
    "loaders": ("model",),
    "step": ("backend", "model"),
    "sim": ("step",),
    "output": ("sim",),
    "cli": ("output", "loaders"),
}
# kernels/cuda/ is the CUDA face of the backend: it may use the backend's headers and base.
CUDA_MAY_INCLUDE = ("base", "backend")

# Files that include no other file of their own folder except their own header: the bottom
# of a folder's internal order.
LEAVES = {
    "host/loaders/scene_xml.h": "the XML layer of the loaders knows nothing of the description",
    "host/loaders/scene_xml.c": "the XML layer of the loaders knows nothing of the description",
}

# Include edges that break a rule today, each with why it still exists. Only ever delete.
ALLOWED = {
    ("host/assets/assets.c", "host/model/model_internal.h"):
        "assets.c is the hydroelastic part of model compile, until it moves to model_compile.c",
}

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
# Comments, and the string and character literals that could hide a comment marker.
LEXEME_RE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def strip_comments(text):
    """The text with comments blanked (their line breaks kept), literals untouched."""
    return LEXEME_RE.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else m.group(0), text)


def closure(deps):
    """Every layer each layer may include, itself included."""
    out = {}

    def reach(layer, seen):
        for d in deps.get(layer, ()):
            if d not in seen:
                seen.add(d)
                reach(d, seen)
        return seen

    for layer in deps:
        out[layer] = reach(layer, {layer})
    return out


def source_files(root):
    """Repository-relative paths of every C/C++/CUDA source under SOURCE_DIRS."""
    files = []
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not d.startswith("build"))
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTS):
                    files.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return files


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def resolve(root, rel, quote, name, known):
    """The repository file an include names, as the build's include path finds it
    (the including file's folder for "...", then the root, include/ and tests/), or None."""
    here = os.path.dirname(rel)
    bases = ([here] if quote == '"' else []) + ["", "include", "tests"]
    for base in bases:
        cand = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
        if cand in known:
            return cand
    return None


def include_graph(root, files):
    known = set(files)
    graph = {}
    for rel in files:
        text = strip_comments(read(root, rel))
        edges = []
        for m in INCLUDE_RE.finditer(text):
            target = resolve(root, rel, m.group(1), m.group(2), known)
            if target is not None and target not in edges:
                edges.append(target)
        graph[rel] = edges
    return graph


def find_cycles(graph):
    """One cycle (a list of files, first repeated last) per strongly connected component."""
    index, low, on_stack, stack, sccs = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        # iterative Tarjan: include chains can be deeper than Python's recursion limit
        work = [(v, 0)]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, i = work[-1]
            succ = graph.get(node, [])
            if i < len(succ):
                work[-1] = (node, i + 1)
                w = succ[i]
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack:
                    low[node] = min(low[node], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in graph.get(node, []):
                    sccs.append(set(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)

    cycles = []
    for comp in sccs:
        start = min(comp)
        # breadth-first from start back to start inside the component: the shortest cycle
        prev, frontier, found = {start: None}, [start], None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in graph[v]:
                    if w == start:
                        found = v
                        break
                    if w in comp and w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path, v = [], found
        while v is not None:
            path.append(v)
            v = prev[v]
        path.reverse()
        cycles.append(path + [start])
    return cycles


def layer_of(rel):
    """('host', layer), ('cuda', None), ('kernels', None) or (None, None)."""
    parts = rel.split("/")
    if parts[0] == "host" and len(parts) > 2:
        return "host", parts[1]
    if parts[0] == "kernels":
        return ("cuda", None) if len(parts) > 2 and parts[1] == "cuda" else ("kernels", None)
    return None, None


def check(root, deps=LAYER_DEPS, allowed=ALLOWED, leaves=LEAVES):
    """Returns (failures, notes): lists of (file, rule, message)."""
    failures, notes = [], []
    files = source_files(root)
    may = closure(deps)
    used_allowances = set()

    def edge_violation(src, dst, rule, message):
        if (src, dst) in allowed:
            used_allowances.add((src, dst))
            notes.append((src, rule, "%s (allowed: %s)" % (message, allowed[(src, dst)])))
        else:
            failures.append((src, rule, message))

    for rel in files:
        parts = rel.split("/")
        if parts[0] == "host" and len(parts) == 2:
            failures.append((rel, "top-level", "sits directly under host/; put it in its layer's folder "
                             "(DESIGN.md: host/, one folder per layer)"))
        if parts[0] == "host" and len(parts) > 2 and parts[1] not in deps:
            failures.append((rel, "layer", "host/%s/ is not a known layer; add it to LAYER_DEPS in "
                             "scripts/check_layout.py at its place in DESIGN.md" % parts[1]))
        if parts[0] in SIZE_DIRS:
            n = read(root, rel).count("\n")
            if n > HARD_LINES:
                failures.append((rel, "size", "%d lines, over the ceiling of %d: split it along a seam"
                                 % (n, HARD_LINES)))
            elif n > NOTE_LINES:
                notes.append((rel, "size", "%d lines, over the ~%d-line guide (STYLE.md 9)" % (n, NOTE_LINES)))

    graph = include_graph(root, files)
    for src in files:
        kind, layer = layer_of(src)
        for dst in graph[src]:
            dkind, dlayer = layer_of(dst)
            if kind == "kernels" and dkind == "host":
                edge_violation(src, dst, "kernels", "includes %s: kernels/ never includes host/ "
                               "(only kernels/cuda/ may use the backend's headers)" % dst)
            elif kind == "cuda" and dkind == "host" and dlayer not in CUDA_MAY_INCLUDE:
                edge_violation(src, dst, "layer", "includes %s: kernels/cuda/ may use host/%s only"
                               % (dst, " and host/".join(CUDA_MAY_INCLUDE)))
            elif (kind == "host" and dkind == "host" and layer in may and dlayer in deps
                  and dlayer not in may[layer]):
                edge_violation(src, dst, "layer", "includes %s: host/%s may not include host/%s "
                               "(a lower layer including a higher one, DESIGN.md)" % (dst, layer, dlayer))
            if src in leaves:
                own = os.path.splitext(src)[0] + ".h"
                if os.path.dirname(dst) == os.path.dirname(src) and dst not in (src, own):
                    edge_violation(src, dst, "leaf", "includes %s: it is a leaf of its folder (%s)"
                                   % (dst, leaves[src]))

    for cycle in find_cycles(graph):
        failures.append((cycle[0], "cycle", "include cycle: " + " -> ".join(cycle)))

    for key in sorted(set(allowed) - used_allowances):
        failures.append((key[0], "allowlist", "no longer includes %s: delete this entry from ALLOWED in "
                         "scripts/check_layout.py (the list only shrinks)" % key[1]))
    return failures, notes


def self_test():
    """Each rule on a small made-up tree: a clean tree passes, each breakage fails by its rule."""
    deps = {"base": (), "backend": ("base",), "sim": ("backend",)}

    def run(files, allowed=None, leaves=None):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            fails, _ = check(root, deps, allowed or {}, leaves or {})
            return sorted({rule for _, rule, _ in fails})

    clean = {
        "host/base/error.h": "#include <stdio.h>\n",
        "host/backend/backend.c": '#include "host/base/error.h"\n#include "backend.h"\n'
                                  '/* #include "host/sim/sim.c" */ const char *s = "/*";\n',
        "host/backend/backend.h": '#include "kernels/core.h"\n',
        "host/sim/sim.c": '#include "host/backend/backend.h"\n',
        "kernels/core.h": "",
        "kernels/cuda/run.cu": '#include "host/backend/backend.h"\n',
        "tests/test_sim.c": '#include "host/sim/sim.c"\n#include "support/support.h"\n',
        "tests/support/support.h": "",
    }
    leaf = {"host/base/leaf.c": "a leaf"}
    backend_sim = {"host/backend/backend.c": '#include "host/sim/sim.c"\n'}
    cases = [  # (what, files changed or added, allowed, leaves, the rules expected to fail)
        ("a clean tree", {}, None, None, []),
        ("a file directly under host/", {"host/stray.c": ""}, None, None, ["top-level"]),
        ("an unknown layer", {"host/extra/x.c": ""}, None, None, ["layer"]),
        ("a lower layer including a higher one", backend_sim, None, None, ["layer"]),
        ("the same, allowed", backend_sim, {("host/backend/backend.c", "host/sim/sim.c"): "why"}, None, []),
        ("a stale allowance", {}, {("host/backend/backend.c", "host/sim/sim.c"): "why"}, None, ["allowlist"]),
        ("kernels including host", {"kernels/core.h": '#include "host/base/error.h"\n'}, None, None,
         ["kernels"]),
        ("kernels/cuda including the step",
         {"host/step/x.h": "", "kernels/cuda/run.cu": '#include "host/step/x.h"\n'}, None, None, ["layer"]),
        ("an include cycle",
         {"host/base/a.h": '#include "b.h"\n', "host/base/b.h": '#include "host/base/a.h"\n'}, None, None,
         ["cycle"]),
        ("a file over the ceiling", {"tests/test_big.c": "\n" * (HARD_LINES + 1)}, None, None, ["size"]),
        ("a leaf including only its own header",
         {"host/base/leaf.c": '#include "leaf.h"\n', "host/base/leaf.h": ""}, None, leaf, []),
        ("a leaf including its folder",
         {"host/base/leaf.c": '#include "leaf.h"\n#include "error.h"\n', "host/base/leaf.h": ""}, None, leaf,
         ["leaf"]),
    ]
    ok = True
    for what, change, allowed, leaves, want in cases:
        files = dict(clean)
        files.update(change)
        got = run(files, allowed, leaves)
        if got != want:
            ok = False
            print("check_layout: self-test: %s: expected %s, got %s" % (what, want or "a pass", got or "a pass"))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--skip-self-test", action="store_true")
    args = ap.parse_args()
    if not args.skip_self_test and not self_test():
        print("check_layout: the checker's own rules are broken (see above)")
        return 2
    failures, notes = check(os.path.normpath(args.root))
    for rel, rule, msg in notes:
        print("check_layout: note: %s: [%s] %s" % (rel, rule, msg))
    for rel, rule, msg in failures:
        print("check_layout: FAIL: %s: [%s] %s" % (rel, rule, msg))
    print("check_layout: %s (%d failure%s, %d note%s)" % ("FAIL" if failures else "ok", len(failures),
          "" if len(failures) == 1 else "s", len(notes), "" if len(notes) == 1 else "s"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
