#!/usr/bin/env python3
"""Checks that the snapshots of the one golden harness (instrumenter/tests/golden)
carry exactly the content of the three former harnesses' snapshots.

Usage: scripts/check_golden_move.py OLD_SNAPSHOT_DIR
(OLD_SNAPSHOT_DIR: instrumenter/tests/snapshots as of commit c1046f6, e.g.
`git archive c1046f6 instrumenter/tests/snapshots | tar -x -C /tmp/old`).
Every old snapshot must map to new ones with the same body (the text after the
metadata header, trailing newlines ignored as insta does), and every new
testdata snapshot must come from an old one. The old aggregate
`c_golden__bad_inputs` is the concatenation of the per-file error snapshots."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEW = os.path.join(ROOT, "instrumenter/tests/golden/testdata")


def body(path):
    text = open(path, encoding="utf-8").read()
    assert text.startswith("---\n"), path
    end = text.index("\n---\n", 4)
    return text[end + 5:].rstrip("\n")


def old_name(rel_dir, snap):
    """The former snapshot name of the new snapshot `snap` of testdata/<rel_dir>."""
    stem = snap[: -len(".snap")]
    if rel_dir == "c" or rel_dir.startswith("c/"):
        sub = rel_dir[2:]
        name = f"{sub}/{stem}" if sub else stem
        return "c_golden__" + name.replace("/", "__") + ".snap"
    if rel_dir.startswith("fortran/"):
        sub = rel_dir[len("fortran/"):]
        if "-" in stem:
            file, variant = stem.split("-", 1)
            suffix = "_" + variant
        else:
            file, suffix = stem, ""
        return "fortran_golden__" + f"{sub}/{file}".replace("/", "_").replace(".", "_") + suffix + ".snap"
    return "parallel_golden__" + rel_dir.replace("/", "__") + "__" + stem + ".snap"


def main():
    old_dir = sys.argv[1]
    old = {n: body(os.path.join(old_dir, n)) for n in os.listdir(old_dir) if n.endswith(".snap")}
    used = set()
    compared = 0
    bad_parts = []
    for dirpath, _, files in sorted(os.walk(NEW)):
        if os.path.basename(dirpath) != "snapshots":
            continue
        rel_dir = os.path.relpath(os.path.dirname(dirpath), NEW)
        for f in sorted(files):
            if not f.endswith(".snap"):
                sys.exit(f"unexpected file {dirpath}/{f}")
            new_body = body(os.path.join(dirpath, f))
            if rel_dir == "c/bad":
                bad_parts.append(new_body)
                continue
            name = old_name(rel_dir, f)
            if name not in old:
                sys.exit(f"{rel_dir}/snapshots/{f}: no former snapshot {name}")
            if old[name] != new_body:
                sys.exit(f"{rel_dir}/snapshots/{f}: body differs from {name}")
            used.add(name)
            compared += 1
    agg = "c_golden__bad_inputs.snap"
    if "\n".join(bad_parts) != old[agg]:
        sys.exit("c/bad: per-file errors do not concatenate to " + agg)
    used.add(agg)
    missing = sorted(set(old) - used)
    if missing:
        sys.exit("former snapshots without a successor: " + ", ".join(missing))
    print(f"{compared} snapshots identical to their former ones; "
          f"{len(bad_parts)} per-file error snapshots concatenate to {agg}; "
          f"all {len(old)} former snapshots accounted for")


main()
