#!/usr/bin/env python3
"""Write an SDFormat scene of N free bodies for the load benchmark (bench/load_bodies.sh):

    python3 bench/gen_many_bodies.py N OUT.sdf [--models] [--collisions]

N free links on a grid. By default the links share one model (every name lookup is inside one
scope); with --models each link is its own model (every lookup is at the world scope). With
--collisions each link gets a small box collision, which also exercises geometry names but
makes the model's all-pairs geometry table (N²/2 entries) the dominant cost. Python 3 standard
library only."""
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n, out = int(sys.argv[1]), sys.argv[2]
    models = "--models" in sys.argv[3:]
    collisions = "--collisions" in sys.argv[3:]
    side = int(n ** 0.5) + 1
    with open(out, "w") as f:
        f.write('<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="many">\n')
        if not models:
            f.write('<model name="crowd">\n')
        for i in range(n):
            x, y = 0.5 * (i % side), 0.5 * (i // side)
            if models:
                f.write(f'<model name="m{i}"><pose>{x} {y} 1 0 0 0</pose>\n')
            pose = "" if models else f"<pose>{x} {y} 1 0 0 0</pose>"
            box = (f'<collision name="c{i}"><geometry><box><size>0.1 0.1 0.1</size></box></geometry>'
                   f'</collision>' if collisions else "")
            f.write(f'<link name="b{i}">{pose}<inertial><mass>0.1</mass></inertial>{box}</link>\n')
            if models:
                f.write("</model>\n")
        if not models:
            f.write("</model>\n")
        f.write("</world>\n</sdf>\n")


if __name__ == "__main__":
    main()
