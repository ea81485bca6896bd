#!/usr/bin/env python3
"""Drake's side of the corpus: for each scene file given on the command line, try Drake's parser
(a MultibodyPlant with a SceneGraph, Parser.AddModels, then Finalize) and print one line per
file, tab-separated: `path<TAB>ok|fail<TAB>message` (the first line of Drake's error).

    drake_parse.py [--drake-models DIR] FILE...

--drake-models DIR points Drake's package "drake_models" at a local copy instead of letting
Drake download it. Needs pydrake (pip install drake).
"""
import argparse
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--drake-models")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder

    for path in args.files:
        try:
            builder = DiagramBuilder()
            plant, _ = AddMultibodyPlantSceneGraph(builder, time_step=1e-3)
            parser = Parser(plant)
            pm = parser.package_map()
            if args.drake_models:
                if pm.Contains("drake_models"):
                    pm.Remove("drake_models")
                pm.Add("drake_models", args.drake_models)
            parser.AddModels(path)
            plant.Finalize()
            print(f"{path}\tok\t", flush=True)
        except Exception as e:  # Drake raises RuntimeError (and others) with its message
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"{path}\tfail\t{msg.replace(chr(9), ' ')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
