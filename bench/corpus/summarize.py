#!/usr/bin/env python3
"""Tables of bench/corpus/RESULTS.md from run.sh's output (one or two runs).

    summarize.py AFTER.tsv [BEFORE.tsv]

Prints the counts (files; Drake loads; isobar loads and steps, of those Drake loads; files
needing drake_models), the failure causes of AFTER grouped by message, and one line per file.
"""
import re
import sys
from collections import Counter


def read(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (5 - len(parts))
            rows.append(dict(file=parts[0], needs=parts[1], drake=parts[2], isobar=parts[3], msg=parts[4]))
    return rows


def counts(rows):
    drake = [r for r in rows if r["drake"] == "ok"]
    both = [r for r in drake if r["isobar"] == "ok"]
    dm = [r for r in rows if r["needs"] == "yes"]
    dm_ok = [r for r in dm if r["drake"] == "ok" and r["isobar"] == "ok"]
    return len(rows), len(drake), len(both), len(dm), len(dm_ok)


def cause(msg):
    m = re.sub(r"^isobar run: cannot load the scene: ", "", msg)
    m = re.sub(r"^\S+?:\d*:? ?", "", m)  # file:line
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\d+(\.\d+)?", "N", m)
    return m.strip()[:140]


def main():
    after = read(sys.argv[1])
    before = read(sys.argv[2]) if len(sys.argv) > 2 else None
    print("| run | files | Drake loads | isobar loads and steps (of those) | need drake_models | of which both load |")
    print("|---|---|---|---|---|---|")
    for name, rows in (("before", before), ("after", after)):
        if rows is None:
            continue
        n, d, b, dm, dmo = counts(rows)
        print(f"| {name} | {n} | {d} | {b} | {dm} | {dmo} |")
    print()
    print("Failure causes (after), most common first:")
    print()
    for c, k in Counter(cause(r["msg"]) for r in after if r["drake"] == "ok" and r["isobar"] != "ok").most_common():
        print(f"- {k} × {c}")
    print()
    print("| file | drake_models | Drake | isobar" + (" (before)" if before else "") + " | isobar (after) | isobar's message (after) |")
    print("|---|---|---|---|---|---|" if before else "|---|---|---|---|---|")
    prev = {r["file"]: r for r in before} if before else {}
    for r in after:
        cols = [r["file"], r["needs"], r["drake"]]
        if before:
            cols.append(prev.get(r["file"], {}).get("isobar", "-"))
        cols += [r["isobar"], r["msg"].replace("|", "\\|")]
        print("| " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
