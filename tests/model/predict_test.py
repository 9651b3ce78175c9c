#!/usr/bin/env python3
"""speedqa's prediction and pooling against libvmaf's on random feature vectors.

usage: predict_test.py PREDICT_REF MODEL_DIR WORKDIR

Writes model files without feature options (libvmaf then looks each feature up
under its plain name) covering each branch of the prediction: the v1.0.16 SVM
with its chroma correction, transforms and clips; vmaf_v0.6.1 as shipped, with
enable_transform (out_gte_in) and disable_clip; knots (with out_lte_in, a flat
segment, a first knot at x = 0, segments out of order); norm_type none; the
linear, polynomial and sigmoid kernels. predict_ref compares each frame's score
and the pooled values at %.17g. Files libvmaf refuses (nulls, an unknown
norm_type or kernel) speedqa must refuse too.
"""
import copy
import json
import os
import shutil
import subprocess
import sys

REF, MODEL_DIR, WORK = sys.argv[1:4]
failures = []


def load(rel):
    return json.load(open(os.path.join(MODEL_DIR, rel)))


def plain(doc):
    doc = copy.deepcopy(doc)
    doc["model_dict"].pop("feature_opts_dicts", None)
    return doc


def variant(doc, **md):
    doc = copy.deepcopy(doc)
    doc["model_dict"].update(md)
    return doc


def kernel(doc, header):
    doc = copy.deepcopy(doc)
    text = doc["model_dict"]["model"]
    head, sv = text.split("\nSV\n", 1)
    lines = [l for l in head.split("\n") if not l.startswith(("kernel_type", "gamma"))]
    doc["model_dict"]["model"] = "\n".join(lines[:1] + header + lines[1:]) + "\nSV\n" + sv
    return doc


v1 = plain(load("vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json"))
v0 = load("vmaf_v0.6.1.json")
cases = [
    ("v1_3d0h", v1, []),
    ("v1_3d0h_2160", plain(load("vmaf_v1.0.16/vmaf_v1.0.16_3d0h_2160.json")), []),
    ("v1_1d5h_2160", plain(load("vmaf_v1.0.16/vmaf_v1.0.16_1d5h_2160.json")), []),
    ("v1_5d0h_noclip", plain(load("vmaf_v1.0.16/vmaf_v1.0.16_5d0h.json")), ["disable_clip"]),
    ("v0", v0, []),
    ("v0_transform", v0, ["enable_transform"]),
    ("v0_transform_noclip", v0, ["enable_transform", "disable_clip"]),
    ("v0_knots", variant(v0, score_transform={
        "enabled": True, "knots": [[0.0, 0.0], [20.0, 10.0], [60.0, 70.0], [100.0, 100.0]],
        "out_lte_in": "true"}), []),
    ("v0_poly_knots_flat", variant(v0, score_transform={
        "enabled": True, "p0": 1.0, "p1": 0.9,
        "knots": [[-10.0, 0.0], [30.0, 40.0], [50.0, 40.0], [90.0, 100.0]]}), []),
    ("v0_knots_bad_order", variant(v0, score_transform={
        "enabled": True, "knots": [[0.0, 0.0], [50.0, 60.0], [40.0, 80.0], [100.0, 100.0]]}),
     []),
    ("v0_norm_none", variant(v0, norm_type="none"), []),
    ("v1_norm_none", variant(v1, norm_type="none"), []),
    ("v0_linear", kernel(v0, ["kernel_type linear"]), ["disable_clip"]),
    ("v0_poly", kernel(v0, ["kernel_type polynomial", "degree 3", "gamma 0.04", "coef0 0.5"]),
     ["disable_clip"]),
    ("v0_sigmoid", kernel(v0, ["kernel_type sigmoid", "gamma 0.04", "coef0 -0.25"]),
     ["disable_clip"]),
]
# files both refuse (exit 4): libvmaf 3.2 takes no null where a number or list goes
refused = [
    ("null_p2", variant(v0, score_transform={"enabled": True, "p0": 1.0, "p2": None})),
    ("null_clip", variant(v0, score_clip=None)),
    ("null_transform", variant(v0, score_transform=None)),
    ("null_knots", variant(v0, score_transform={"enabled": True, "knots": None})),
    ("null_chroma", variant(v1, chroma_correction_parameter=None)),
    ("no_norm", variant(v0, norm_type="log")),
]
os.makedirs(WORK, exist_ok=True)
for name, doc in refused:
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    p = subprocess.run([REF, path, "10", "1"], capture_output=True, text=True)
    print(("ok   " if p.returncode == 4 else "FAIL ") + "%s: both refuse it (%d %s)"
          % (name, p.returncode, (p.stdout + p.stderr).strip()))
    if p.returncode != 4:
        failures.append(name)
for name, doc, flags in cases:
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    for seed in (1, 2):
        p = subprocess.run([REF, path, "500", str(seed)] + flags, capture_output=True, text=True)
        ok = p.returncode == 0
        print(("ok   " if ok else "FAIL ") + "%s %s seed %d: %s" % (name, " ".join(flags), seed,
                                                                  (p.stdout + p.stderr).strip()))
        if not ok:
            failures.append(name)
if failures:
    print("%d failed" % len(failures))
    sys.exit(1)
# a passing run leaves no files behind (CI disks can be small); a failing one keeps them
shutil.rmtree(WORK, ignore_errors=True)
