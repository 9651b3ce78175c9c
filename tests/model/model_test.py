#!/usr/bin/env python3
"""VMAF models through speedqa (--model) against libvmaf's own run of the model.

usage: model_test.py MODE SPEEDQA VMAF_REF GOLDEN_DIR WORKDIR [CLIPS_DIR]

CLIPS_DIR: where the golden clips are unpacked, kept for the other tests that
read them (the build's tests/clips-data; default WORKDIR).

MODE equal: for the golden pairs (8/10/12-bit, 4:2:0/4:2:2/4:4:4) and the models
  vmaf_v1.0.16_3d0h, _3d0h_2160, _5d0h, _hfr_3d0h, vmaf_v0.6.1 and _neg, every per-frame
  vmaf and every pooled value of `speedqa --model ... --precision max --json` equals
  libvmaf's own prediction (tests/model/vmaf_ref.c: every feature by libvmaf) at
  %.17g, and the report names the features libvmaf's own report names. Where
  libvmaf refuses the input, speedqa must refuse it too, with one line.
MODE ladder: the same with two -d in one run (speedqa's reference side once), and a
  --batch of two pairs with --model (pooled vmaf of each).
MODE backends: each GPU backend that runs here (PoCL's OpenCL in CI) gives the CPU's scores.
MODE equal-gpu: MODE equal with --backend cuda (and hip) where a device opens, on both
  engines (exit 77 without one: CI).
MODE layouts: NV12 and P010 raw input score as their Y4M.
MODE order: the CSV report of several models and --feature's is byte for byte the vmaf
  tool's (columns in its order), on both engines, and so are those of the shipped files of
  models libvmaf builds in (vmaf_4k_v0.6.1, the neg ones) against its built-in ones
  ($SQ_VMAF_TOOL; exit 77 without it).
MODE errors: a model file that does not parse, an unknown version, two models of
  one name, -n: one line, nonzero exit, no report left.
MODE native: the v1.0.16 models (3d0h, 3d0h_2160, 5d0h, 1d5h_2160, and the hfr ones,
  whose motion takes the five-frame window and moving average) and vmaf_v0.6.1 (integer
  VIF, ADM and motion) on speedqa's own
  engine (SPEEDQA_MODEL_ENGINE=native: every feature by speedqa, ADM included, the
  prediction and pooling speedqa's) over the same golden pairs, every per-frame and
  pooled vmaf equal to libvmaf's own run at %.17g; the JSON, CSV and XML reports
  equal to those of the libvmaf engine but for the fps; a ladder and a batch once;
  a model with a float feature refused by that engine in one line.
MODE nolibvmaf: a build without libvmaf scores the v1.0.16 models (hfr ones included) and
  vmaf_v0.6.1 on its own engine (a vmaf per frame, exit 0; each per-frame and pooled vmaf
  equal at %.17g to libvmaf's own run as a build with it recorded,
  tests/model/nolibvmaf_ref.json: tests/model/vmaf_ref's output of each model on those 6
  frames), and answers a model with a float feature with one line naming it, exit 2.
MODE hwaccel: frames NVDEC decodes (--hwaccel cuda: H.264 8-bit, HEVC Main10) give
  libvmaf's own run of the model on the same files decoded in software (vmaf_ref
  reads them through libav), single runs and a ladder; exit 77 without a CUDA
  device, libav or clips ($SPEEDQA_NVDEC_CLIPS, else made with ffmpeg).
"""
import json
import lzma
import os
import shutil
import subprocess
import sys

MODE, SPEEDQA, VMAF_REF, GOLDEN, WORK = sys.argv[1:6]
CLIPS = sys.argv[6] if len(sys.argv) > 6 else WORK
MODELS = ["vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_5d0h",
          "vmaf_v1.0.16_hfr_3d0h", "vmaf_v0.6.1", "vmaf_v0.6.1neg"]
MAX_FRAMES = 12  # keeps the whole run short on 2 cores
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL_DIR = os.path.join(SRC, "data", "model")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(args, env=None):
    p = subprocess.run(args, capture_output=True, text=True,
                       env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout, p.stderr


def model_file(name):
    for sub in ("", "vmaf_v1.0.16", "vmaf_v1.0.16_hfr"):
        p = os.path.join(MODEL_DIR, sub, name + ".json")
        if os.path.exists(p):
            return p
    raise SystemExit("no model file " + name)


def float_model():
    """vmaf_v0.6.1 with libvmaf's float VIF for its integer one: a feature speedqa does
    not compute (the float extractors of libvmaf's vmaf_float_* models)."""
    out = os.path.join(WORK, "float_vif.json")
    with open(model_file("vmaf_v0.6.1")) as f:
        text = f.read()
    assert "VMAF_integer_feature_vif_scale0_score" in text
    with open(out, "w") as f:
        f.write(text.replace("VMAF_integer_feature_vif_", "VMAF_feature_vif_"))
    return out


def clip(rel):
    """A golden clip, decompressed once into CLIPS (tests side by side: each into its own temporary)."""
    out = os.path.join(CLIPS, os.path.basename(rel)[:-3])
    if not os.path.exists(out):
        os.makedirs(CLIPS, exist_ok=True)
        tmp = out + ".%d.tmp" % os.getpid()
        with lzma.open(os.path.join(GOLDEN, rel)) as f, open(tmp, "wb") as o:
            o.write(f.read())
        os.rename(tmp, out)
    return out


def pairs():
    """One distorted clip per reference of the golden manifest (a distinct one)."""
    seen = {}
    with open(os.path.join(GOLDEN, "manifest.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    for r in rows:
        ref, dis = r[3], r[4]
        if ref != dis and ref not in seen:
            seen[ref] = dis
    return sorted(seen.items())


def reference(ref, dis, model, tag):
    out = os.path.join(WORK, tag + ".libvmaf.json")
    code, so, se = run([VMAF_REF, ref, dis, model_file(model), out, str(MAX_FRAMES)])
    if code == 3:
        return None, se.strip()
    if code != 0:
        raise SystemExit("vmaf_ref failed: " + se)
    return json.loads(so), json.load(open(out))


def compare(doc, want, lib, what):
    frames = doc["frames"]
    got = [f["metrics"]["vmaf"] for f in frames]
    check(len(got) == len(want["frames"]) and
          all("%.17g" % a == "%.17g" % b for a, b in zip(got, want["frames"])),
          "%s: per-frame vmaf equals libvmaf's at %%.17g (%d frames)" % (what, len(got)))
    pooled = doc["pooled_metrics"]["vmaf"]
    check(all("%.17g" % pooled[k] == "%.17g" % want["pooled"][k] for k in want["pooled"]),
          "%s: pooled vmaf (min, max, mean, harmonic_mean) equal libvmaf's" % what)
    names = list(frames[0]["metrics"])
    lib_names = list(lib["frames"][0]["metrics"])
    check(names == lib_names, "%s: the features libvmaf reports, by its names, in its order "
          "(%s / %s)" % (what, names, lib_names))
    check(list(doc["pooled_metrics"]) == list(lib["pooled_metrics"]),
          "%s: pooled_metrics in libvmaf's order" % what)
    worst = 0.0
    for f, lf in zip(frames, lib["frames"]):
        for k, v in lf["metrics"].items():
            if k in f["metrics"]:
                worst = max(worst, abs(f["metrics"][k] - v))
    check(worst <= 5.1e-7, "%s: every feature value as libvmaf prints it (max diff %g)"
          % (what, worst))


def test_equal(models=MODELS, env=None, extra=()):
    for ref_rel, dis_rel in pairs():
        ref, dis = clip(ref_rel), clip(dis_rel)
        base = os.path.basename(dis)[:-4]
        for model in models:
            tag = "%s.%s%s%s" % (base, model, " (native)" if env else "", " ".join(("",) + extra))
            want, lib = reference(ref, dis, model, tag.split(" ")[0])
            code, out, err = run([SPEEDQA, "-r", ref, "-d", dis, "--model", "version=" + model,
                                  "--precision", "max", "--json", "-q",
                                  "--frame_cnt", str(MAX_FRAMES)] + list(extra), env)
            if want is None:
                check(code != 0 and len(err.strip().splitlines()) == 1 and not out,
                      "%s: libvmaf refuses (%s); speedqa refuses in one line (%d %r)"
                      % (tag, lib, code, err))
                continue
            if code != 0:
                check(False, "%s: speedqa failed (%d %r)" % (tag, code, err))
                continue
            compare(json.loads(out), want, lib, tag)


def test_equal_gpu():
    """test_equal on each CUDA or HIP device this machine has, both engines (exit 77: none;
    OpenCL, which CI has as PoCL, is model-backends')."""
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    ran = 0
    for b in ("cuda", "hip"):
        code, _, err = run([SPEEDQA, "-r", clip(ref_rel), "-d", clip(dis_rel), "--backend", b,
                            "--frame_cnt", "1", "-q", "-o", os.devnull])
        if code == 4:
            print("skip %s: %s" % (b, err.strip()))
            continue
        ran += 1
        test_equal(extra=("--backend", b))
        test_equal(V1 + HFR + ["vmaf_v0.6.1"], NATIVE, ("--backend", b))
    if not ran and not failures:
        sys.exit(77)


def test_ladder(models=("vmaf_v1.0.16_3d0h", "vmaf_v0.6.1"), env=None):
    (ref_rel, dis_rel), = [p for p in pairs() if "576x324" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    # the second rung: the reference itself (a different stream of one shape)
    rungs = [dis, ref]
    for model in models:
        outs = os.path.join(WORK, "ladder.%s.{i}.json" % model)
        code, _, err = run([SPEEDQA, "-r", ref, "-d", rungs[0], "-d", rungs[1], "--model",
                            "version=" + model, "--precision", "max", "-q", "-o", outs,
                            "--frame_cnt", str(MAX_FRAMES), "--threads", "2"], env)
        check(code == 0, "ladder %s: exit 0 (%r)" % (model, err))
        for i, d in enumerate(rungs):
            want, lib = reference(ref, d, model, "ladder.%d.%s" % (i, model))
            compare(json.load(open(outs.replace("{i}", str(i + 1)))), want, lib,
                    "ladder %s rung %d" % (model, i + 1))


def test_batch(env=None):
    """--batch with --model: each pair's pooled vmaf equals libvmaf's own run."""
    chosen = [p for p in pairs() if "642x362" in p[0] or "422p10" in p[0]]
    manifest = os.path.join(WORK, "pairs.csv")
    with open(manifest, "w") as f:
        f.write("ref,dis\n")
        for ref_rel, dis_rel in chosen:
            f.write("%s,%s\n" % (clip(ref_rel), clip(dis_rel)))
    model = "vmaf_v1.0.16_3d0h"
    code, out, err = run([SPEEDQA, "--batch", manifest, "--model", "version=" + model,
                          "--precision", "max", "-q", "--threads", "2",
                          "--frame_cnt", str(MAX_FRAMES)], env)
    check(code == 0, "batch with --model: exit 0 (%r)" % err)
    lines = [json.loads(l) for l in out.splitlines()] if code == 0 else []
    by_dis = {l["dis"]: l for l in lines}  # stdout keeps the order the pairs finished
    for ref_rel, dis_rel in chosen:
        want, _ = reference(clip(ref_rel), clip(dis_rel), model, "batch." + os.path.basename(dis_rel))
        line = by_dis.get(clip(dis_rel), {"pooled_metrics": {"vmaf": {}}})
        got = line["pooled_metrics"]["vmaf"]
        check(all("%.17g" % got[k] == "%.17g" % want["pooled"][k] for k in want["pooled"]),
              "batch %s: pooled vmaf equals libvmaf's" % os.path.basename(dis_rel))
    check(len(lines) == len(chosen), "batch: one line per pair")


def test_batch_models():
    """A manifest's model column: each pair scored with its own models (two pairs of
    one reference with two models: never one chunk), an empty value with --model's;
    a value that does not load refused before anything is scored; --resume keeps
    no line scored with another --model or -n."""
    (ref_rel, dis_rel), = [p for p in pairs() if "576x324" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    want = {m: reference(ref, dis, m, "bm." + m)[0]["pooled"]
            for m in ("vmaf_v1.0.16_3d0h", "vmaf_v0.6.1", "vmaf_v1.0.16_5d0h")}
    manifest = os.path.join(WORK, "models.csv")
    with open(manifest, "w") as f:
        f.write("ref,dis,model\n%s,%s,version=vmaf_v1.0.16_3d0h\n%s,%s,version=vmaf_v0.6.1\n"
                "%s,%s,\n" % (ref, dis, ref, dis, ref, dis))
    res = os.path.join(WORK, "models.jsonl")
    if os.path.exists(res):
        os.remove(res)
    base = [SPEEDQA, "--batch", manifest, "--precision", "max", "--threads", "2",
            "--frame_cnt", str(MAX_FRAMES), "-o", res]
    code, _, err = run(base + ["--model", "version=vmaf_v1.0.16_5d0h"])
    lines = [json.loads(l) for l in open(res)] if code == 0 else []
    check(code == 0 and len(lines) == 3, "batch with a model column: exit 0, 3 lines (%r)" % err)
    for line, model, given in zip(lines, ("vmaf_v1.0.16_3d0h", "vmaf_v0.6.1", "vmaf_v1.0.16_5d0h"),
                                  ("version=vmaf_v1.0.16_3d0h", "version=vmaf_v0.6.1", None)):
        got = line["pooled_metrics"]["vmaf"]
        check(all("%.17g" % got[k] == "%.17g" % want[model][k] for k in want[model]),
              "batch model column %s: pooled vmaf equals libvmaf's own run" % model)
        check(line.get("model") == given, "the line records the pair's model (%r)"
              % line.get("model"))
    before = open(res, "rb").read() if lines else b""
    code, _, err = run(base + ["--model", "version=vmaf_v1.0.16_5d0h", "--resume"])
    check(code == 0 and "3 kept" in err and open(res, "rb").read() == before,
          "--resume with the same --model keeps every line (%d %r)" % (code, err))
    code, _, err = run(base + ["--model", "version=vmaf_v1.0.16_3d0h", "--resume"])
    lines = [json.loads(l) for l in open(res)] if code == 0 else []
    got = lines[2]["pooled_metrics"]["vmaf"] if len(lines) == 3 else {}
    check(code == 0 and "0 kept" in err and
          all("%.17g" % got.get(k, -1) == "%.17g" % want["vmaf_v1.0.16_3d0h"][k]
              for k in want["vmaf_v1.0.16_3d0h"]),
          "--resume with another --model scores every pair again, with it (%d %r)" % (code, err))
    code, _, err = run(base + ["--model", "version=vmaf_v1.0.16_3d0h", "--resume", "-n"])
    lines = [json.loads(l) for l in open(res)] if code == 0 else []
    check(code == 0 and "0 kept" in err and len(lines) == 3 and
          all("vmaf" not in l["pooled_metrics"] for l in lines),
          "--resume with -n added scores again, without predictions (%d %r)" % (code, err))
    # a value that does not load: its file and line, exit 2, nothing scored or written
    for bad_value, words in (("version=vmaf_v9", ["vmaf_v9"]),
                             ("version=vmaf_v0.6.1;version=vmaf_v0.6.1", ["name="])):
        bad = os.path.join(WORK, "badmodel.csv")
        with open(bad, "w") as f:
            f.write("ref,dis,model\n%s,%s,\n%s,%s,\"%s\"\n" % (ref, dis, ref, dis, bad_value))
        out = os.path.join(WORK, "badmodel.jsonl")
        if os.path.exists(out):
            os.remove(out)
        code, so, se = run([SPEEDQA, "--batch", bad, "-o", out])
        lines_err = se.strip().splitlines()
        check(code == 2 and len(lines_err) == 1 and "badmodel.csv:3:" in lines_err[0] and
              all(w in lines_err[0] for w in words) and not os.path.exists(out),
              "manifest model %r: one line naming the file and line, exit 2, nothing "
              "written (%d %r)" % (bad_value, code, se))
    # JSON lines: an array of values, each model under its own name
    jl = os.path.join(WORK, "models.jsonl.manifest")
    with open(jl, "w") as f:
        f.write(json.dumps({"ref": ref, "dis": dis, "model": ["version=vmaf_v1.0.16_3d0h:name=a",
                                                             "version=vmaf_v0.6.1:name=b"]}) + "\n")
    code, out, err = run([SPEEDQA, "--batch", jl, "--precision", "max", "-q",
                          "--frame_cnt", str(MAX_FRAMES)])
    line = json.loads(out) if code == 0 else {"pooled_metrics": {}}
    check(code == 0 and all("%.17g" % line["pooled_metrics"].get(n, {}).get(k, -1) ==
                            "%.17g" % want[m][k] for n, m in (("a", "vmaf_v1.0.16_3d0h"),
                                                              ("b", "vmaf_v0.6.1"))
                            for k in want[m]),
          "JSON-lines model array: each named model equals libvmaf's own run (%d %r)"
          % (code, err))


def one_line_error(args, code_want, words, what, env=None):
    out = os.path.join(WORK, "err.json")
    if os.path.exists(out):
        os.remove(out)
    code, so, se = run(args + ["-o", out], env)
    lines = se.strip().splitlines()
    check(code == code_want and len(lines) == 1 and all(w in lines[0] for w in words)
          and not os.path.exists(out),
          "%s: exit %d, one line, no report (%d %r)" % (what, code_want, code, se))


def test_digits():
    """vmaf's digits: %.16f where %.6f would print a nonzero fraction as zeros (libvmaf's
    writers), in the report's text, equal to libvmaf's own JSON report but version and fps."""
    (ref_rel, _), = [p for p in pairs() if "642x362" in p[0]][:1]
    ref = clip(ref_rel)
    base = json.load(open(model_file("vmaf_v0.6.1")))
    # ref against itself: adm3 and the scales just above 1; the clip pins vmaf to each value
    for k, v in enumerate((5e-7, 1e-6, 9.9e-7, 1.000001, -2.0000001, 123.0000001, 1e-20, 0.9999999,
                           1e300, 2.0 ** 31 + 1e-6, 7.0000000001)):
        doc = json.loads(json.dumps(base))
        doc["model_dict"]["score_clip"] = [v, v]
        path = os.path.join(WORK, "clip%d.json" % k)
        with open(path, "w") as f:
            json.dump(doc, f)
        lib_out = os.path.join(WORK, "clip%d.libvmaf.json" % k)
        code, _, se = run([VMAF_REF, ref, ref, path, lib_out, "2"])
        if code != 0:
            check(False, "vmaf_ref on score_clip %r (%d %r)" % (v, code, se))
            continue
        code, out, err = run([SPEEDQA, "-r", ref, "-d", ref, "--model", "path=" + path, "--json",
                              "-q", "--frame_cnt", "2"])
        keep = lambda t: [l for l in t.splitlines() if '"version"' not in l and '"fps"' not in l]
        lib_text = open(lib_out).read()
        check(code == 0 and keep(out) == keep(lib_text),
              "score_clip %r: the report's text is libvmaf's (%d %r)" % (v, code, err))


def test_sad_model():
    """A model reading motion's SAD score (which libvmaf prints under its full name): speedqa's
    own engine scores it, equal to libvmaf's run of the model."""
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    doc = json.load(open(model_file("vmaf_v1.0.16_3d0h")))
    names = doc["model_dict"]["feature_names"]
    names[[k for k, n in enumerate(names) if "motion" in n][0]] = "VMAF_integer_feature_motion_sad_score"
    path = os.path.join(WORK, "sad.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    code, so, se = run([VMAF_REF, ref, dis, path, os.path.join(WORK, "sad.libvmaf.json"),
                        str(MAX_FRAMES)])
    want = json.loads(so) if code == 0 else None
    for env in (None, {"SPEEDQA_MODEL_ENGINE": "native"}):
        code2, out, err = run([SPEEDQA, "-r", ref, "-d", dis, "--model", "path=" + path, "--json",
                               "-q", "--precision", "max", "--frame_cnt", str(MAX_FRAMES)], env)
        got = [f["metrics"]["vmaf"] for f in json.loads(out)["frames"]] if code2 == 0 else None
        check(want is not None and got is not None and
              ["%.17g" % x for x in got] == ["%.17g" % x for x in want["frames"]],
              "a model of motion's SAD score (%s): libvmaf's vmaf (%d %r %d %r)"
              % (env or "default engine", code, se, code2, err))


def test_errors():
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    R = [SPEEDQA, "-r", ref, "-d", dis]
    bad = os.path.join(WORK, "bad.json")
    with open(bad, "w") as f:
        f.write('{"model_dict": {"model_type": "LIBSVMNUSVR", "feature_names": [')
    one_line_error(R + ["--model", "path=" + bad], 2, ["bad.json", "JSON"], "truncated model file")
    nofeat = os.path.join(WORK, "nofeat.json")
    with open(nofeat, "w") as f:
        json.dump({"model_dict": {"model_type": "LIBSVMNUSVR",
                                  "feature_names": ["No_such_feature_score"]}}, f)
    one_line_error(R + ["--model", "path=" + nofeat], 2, ["No_such_feature_score"],
                   "a feature no extractor provides")
    bogus = os.path.join(WORK, "bogus.json")
    doc = json.load(open(model_file("vmaf_v1.0.16_3d0h")))
    doc["model_dict"]["feature_opts_dicts"][1]["speed_bogus"] = 3
    with open(bogus, "w") as f:
        json.dump(doc, f)
    one_line_error(R + ["--model", "path=" + bogus], 2, ["bogus.json", "speed_bogus"],
                   "a model giving speed_chroma an option it does not have")
    # the SVM (model_dict.model) cut short: refused at load, whichever engine predicts
    badsvm = os.path.join(WORK, "badsvm.json")
    doc = json.load(open(model_file("vmaf_v1.0.16_3d0h")))
    doc["model_dict"]["model"] = doc["model_dict"]["model"][:-2000]
    with open(badsvm, "w") as f:
        json.dump(doc, f)
    for env in (None, {"SPEEDQA_MODEL_ENGINE": "native"}):
        one_line_error(R + ["--model", "path=" + badsvm], 2, ["badsvm.json", "support vector"],
                       "a model whose SVM is cut short (%s)" % (env or "default engine"), env)
    # what libvmaf refuses (or crashes on: no rho) is refused by either engine in one line
    import re
    svm = lambda f: lambda md: md.__setitem__("model", f(md["model"]))
    for tag, edit, words in (
            ("norho", svm(lambda t: re.sub(r"rho \S+\n", "", t)), ["rho"]),
            ("rhonan", svm(lambda t: re.sub(r"rho \S+", "rho nan", t)), ["rho"]),
            ("crlf", svm(lambda t: t.replace("\n", "\r\n")), ["carriage return"]),
            ("svnan", svm(lambda t: re.sub(r"1:\S+", "1:nan", t, count=1)), ["support vector 1"]),
            ("enabled", lambda md: md["score_transform"].__setitem__("enabled", "true"), ["enabled"]),
            ("gte", lambda md: md["score_transform"].__setitem__("out_gte_in", True), ["out_gte_in"])):
        doc = json.load(open(model_file("vmaf_v0.6.1")))
        edit(doc["model_dict"])
        path = os.path.join(WORK, tag + ".json")
        with open(path, "w") as f:
            json.dump(doc, f)
        for env in (None, {"SPEEDQA_MODEL_ENGINE": "native"}):
            one_line_error(R + ["--model", "path=" + path], 2, [tag + ".json"] + words,
                           "model %s (%s)" % (tag, env or "default engine"), env)
    with open(model_file("vmaf_v0.6.1")) as f:
        text = f.read()
    slope = json.loads(text)["model_dict"]["slopes"][0]
    for lit in ("NaN", "-Infinity"):
        path = os.path.join(WORK, "lit%s.json" % lit)
        with open(path, "w") as f:
            f.write(text.replace(repr(slope), lit, 1))
        one_line_error(R + ["--model", "path=" + path], 2, ["slopes[0]"], "a %s literal" % lit)
    one_line_error(R + ["--model", "path=/dev/zero"], 2, ["64 MiB"], "an endless model file")
    # a prediction that is no number (libvmaf prints nan): exit 3, whichever engine
    doc = json.load(open(model_file("vmaf_v0.6.1")))
    doc["model_dict"]["model"] = re.sub(r"gamma \S+", "gamma -1e300", doc["model_dict"]["model"])
    gneg = os.path.join(WORK, "gneg.json")
    with open(gneg, "w") as f:
        json.dump(doc, f)
    for env in (None, {"SPEEDQA_MODEL_ENGINE": "libvmaf"}):
        one_line_error(R + ["--model", "path=" + gneg], 3, ["gneg.json", "nan"],
                       "a model predicting NaN (%s)" % (env or "default engine"), env)
    # a model's score named as a feature's column: refused, never a column lost or repeated
    for name in ("integer_adm2", "integer_aim", "VMAF_integer_feature_motion_sad_score"):
        for env in (None, {"SPEEDQA_MODEL_ENGINE": "libvmaf"}):
            one_line_error(R + ["--model", "version=vmaf_v0.6.1:name=" + name, "--json"], 2,
                           [name, ":name="], "a model named %s (%s)" % (name, env or "default"),
                           env)
    one_line_error(R + ["--model", "version=vmaf_v9"], 2, ["vmaf_v9"], "unknown version")
    one_line_error(R + ["--model", "version=vmaf_v0.6.1", "--model", "version=vmaf_v0.6.1"], 2,
                   ["name="], "two models named vmaf")
    one_line_error(R + ["--model", "vmaf_v0.6.1"], 2, ["version="], "a value without path=/version=")
    # --feature: libvmaf's extractors by libvmaf; a name nobody has: one line, both lists
    one_line_error(R + ["--feature", "nosuch"], 2, ["nosuch", "speed_chroma", "cambi"],
                   "--feature of neither speedqa nor libvmaf")
    # options speedqa refuses as having no result are not handed to libvmaf (which
    # crashes, hangs, prints NaN or fails every frame there); one it lacks is
    for feat, words in (("cambi=cambi_vis_lum_threshold=299", ["cambi_vis_lum_threshold"]),
                        ("cambi=cambi_vis_lum_threshold=85", ["leaves no value"]),
                        ("adm=adm_csf_mode=1", ["Barten"]),
                        ("adm=adm_csf_mode=2:adm_norm_view_dist=4", ["no table"]),
                        ("adm=adm_norm_view_dist=1", ["3 * 1080"])):
        one_line_error(R + ["--feature", feat], 2, ["--feature"] + words,
                       "--feature %s: refused, not handed to libvmaf" % feat)
    # a feature asked again (by --feature, or by the model too) is scored once, as vmaf does
    code, out, err = run(R + ["--model", "version=vmaf_v0.6.1", "--json", "-q", "--frame_cnt", "3",
                              "--precision", "max"])
    code2, out2, err2 = run(R + ["--feature", "adm", "--feature", "motion", "--model",
                                 "version=vmaf_v0.6.1", "--json", "-q", "--frame_cnt", "3",
                                 "--precision", "max"])
    strip = lambda t: [f["metrics"] for f in json.loads(t)["frames"]] if t else None
    check(code == 0 and code2 == 0 and strip(out2) == strip(out),
          "--feature adm --feature motion with v0.6.1 (which has both): its report (%d %d %r)"
          % (code, code2, err2))
    # motion's columns alone in libvmaf's order: as in the model's report (test_equal: libvmaf's)
    code, out, err = run(R + ["--feature", "motion", "--json", "-q", "--frame_cnt", "2"])
    alone = list(json.loads(out)["frames"][0]["metrics"]) if code == 0 else []
    in_model = [k for k in strip(out2)[0] if k in alone] if strip(out2) else []
    check(code == 0 and len(alone) == 3 and alone == in_model,
          "--feature motion: its columns in the model report's (libvmaf's) order (%s / %s)"
          % (alone, in_model))
    code, out, err = run(R + ["--feature", "adm", "--feature", "adm=adm_enhn_gain_limit=100",
                              "--json", "-q", "--frame_cnt", "2"])
    m = list(json.loads(out)["frames"][0]["metrics"]) if code == 0 else []
    check(code == 0 and len(m) == 7 and len(set(m)) == 7,
          "adm twice (default options spelt out): its 7 columns once (%d %r %s)" % (code, err, m))
    code, out, err = run(R + ["--feature", "motion=motion_five_frame_window=true", "--json", "-q"])
    m = json.loads(out)["frames"][0]["metrics"] if code == 0 else {}
    check(code == 0 and "integer_motion2_mffw" in m,
          "--feature motion=motion_five_frame_window=true: libvmaf's (%d %r)" % (code, err))
    code, out, err = run(R + ["--feature", "cambi", "--feature", "speed_chroma", "--json", "-q",
                              "--precision", "max"])
    m = json.loads(out)["frames"][0]["metrics"] if code == 0 else {}
    check(code == 0 and set(m) == {"cambi", "speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"},
          "--feature cambi --feature speed_chroma: both, by libvmaf's names (%d %r %s)"
          % (code, err, sorted(m)))
    # 4:0:0: the v1 models' speed_chroma has no chroma to read: one line, exit 3
    w, h, frames = y4m_planes(ref)
    gray = os.path.join(WORK, "gray.yuv")
    with open(gray, "wb") as f:
        for fr in frames[:2]:
            f.write(fr[:w * h])
    one_line_error([SPEEDQA, "-r", gray, "-d", gray, "-w", str(w), "-h", str(h), "-p", "400",
                    "-b", "8", "--model", "version=vmaf_v1.0.16_3d0h"], 3, ["4:0:0"],
                   "a v1 model on 4:0:0 input")
    # -n: features only, no model score
    code, out, err = run(R + ["--model", "version=vmaf_v1.0.16_3d0h", "-n", "--json", "-q"])
    doc = json.loads(out) if code == 0 else {}
    check(code == 0 and "vmaf" not in doc["frames"][0]["metrics"] and
          "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02" in doc["frames"][0]["metrics"],
          "-n with --model: features, no prediction (%d %r)" % (code, err))
    # two models, each named: both scores in one report, each equal to its own run
    code, out, err = run(R + ["--model", "version=vmaf_v1.0.16_3d0h:name=v1",
                              "--model", "version=vmaf_v0.6.1:name=v0", "--json", "-q",
                              "--precision", "max"])
    check(code == 0, "two named models: exit 0 (%r)" % err)
    if code == 0:
        doc = json.loads(out)
        for name, model in (("v1", "vmaf_v1.0.16_3d0h"), ("v0", "vmaf_v0.6.1")):
            want, _ = reference(ref, dis, model, "two." + name)
            got = [f["metrics"][name] for f in doc["frames"]]
            check(["%.17g" % x for x in got] == ["%.17g" % x for x in want["frames"][:len(got)]],
                  "two models: %s equals libvmaf's %s" % (name, model))


def y4m_planes(path):
    """(width, height, [frame bytes]) of a 4:2:0 Y4M file."""
    data = open(path, "rb").read()
    hdr, rest = data.split(b"\n", 1)
    w = int([t for t in hdr.split() if t.startswith(b"W")][0][1:])
    h = int([t for t in hdr.split() if t.startswith(b"H")][0][1:])
    return w, h, [f for f in rest.split(b"FRAME\n")[1:]]


def semi_planar(src, out, wide):
    """src's frames as NV12 (8-bit) or P010 (10-bit in the top bits)."""
    import array
    w, h, frames = y4m_planes(src)
    bps = 2 if wide else 1
    ysz, csz = w * h * bps, (w // 2) * (h // 2) * bps
    with open(out, "wb") as f:
        for fr in frames[:4]:  # the frames scored
            y, u, v = fr[:ysz], fr[ysz:ysz + csz], fr[ysz + csz:ysz + 2 * csz]
            if wide:
                ya, ua, va = (array.array("H", p) for p in (y, u, v))
                for a in (ya, ua, va):
                    for i in range(len(a)):
                        a[i] <<= 6
                uv = array.array("H", [0]) * (2 * len(ua))
                uv[0::2], uv[1::2] = ua, va
                f.write(ya.tobytes() + uv.tobytes())
            else:
                uv = bytearray(2 * csz)
                uv[0::2], uv[1::2] = u, v
                f.write(y + bytes(uv))
    return w, h


def test_layouts():
    """NV12 and P010 input (libvmaf gets planar copies): the same scores as the Y4M."""
    for key, fmt in (("642x362_420p8", "nv12"), ("1280x720_420p10", "p010")):
        (ref_rel, dis_rel), = [p for p in pairs() if key in p[0]][:1]
        ref, dis = clip(ref_rel), clip(dis_rel)
        args = ["--model", "version=vmaf_v1.0.16_3d0h", "--json", "-q", "--precision", "max",
                "--frame_cnt", "4"]
        code, want, err = run([SPEEDQA, "-r", ref, "-d", dis] + args)
        raw = []
        for p in (ref, dis):
            out = os.path.join(WORK, os.path.basename(p) + "." + fmt)
            w, h = semi_planar(p, out, fmt == "p010")
            raw.append(out)
        code2, got, err2 = run([SPEEDQA, "-r", raw[0], "-d", raw[1], "-w", str(w), "-h", str(h),
                                "-p", fmt] + args)
        ok = code == 0 and code2 == 0
        if ok:
            a, b = json.loads(want), json.loads(got)
            ok = a["frames"] == b["frames"] and a["pooled_metrics"] == b["pooled_metrics"]
        check(ok, "%s input: the Y4M's model scores and features (%d %d %r)"
              % (fmt, code, code2, err + err2))


def test_backends():
    """Each GPU backend this machine runs gives the CPU's model scores (exit 77: none), on
    speedqa's engine (every feature on the backend) and on libvmaf's (the prediction)."""
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    ran = 0
    for model in ("vmaf_v1.0.16_3d0h_2160", "vmaf_v0.6.1"):
        base = [SPEEDQA, "-r", ref, "-d", dis, "--model", "version=" + model, "--json",
                "--precision", "max", "-q", "--frame_cnt", "6"]
        code, want, err = run(base)
        check(code == 0, "%s cpu: exit 0 (%r)" % (model, err))
        for b in ("opencl", "cuda", "hip"):
            for env in ({}, NATIVE):
                code, got, err = run(base + ["--backend", b], env)
                if code == 4:  # not built, or no device
                    print("skip %s: %s" % (b, err.strip()))
                    continue
                ran += 1
                check(code == 0 and json.loads(got)["frames"] == json.loads(want)["frames"] and
                      json.loads(got)["pooled_metrics"] == json.loads(want)["pooled_metrics"],
                      "%s --backend %s%s: the CPU's model scores and features (%d %r)"
                      % (model, b, " (native engine)" if env else "", code, err))
    # --feature: adm, motion, vif and cambi on the backend: the CPU's values
    feats = ["--feature", "adm", "--feature", "motion=motion_max_val=18", "--feature", "vif",
             "--feature", "cambi", "--feature", "speed_chroma"]
    base = [SPEEDQA, "-r", ref, "-d", dis, "--json", "--precision", "max", "-q", "--frame_cnt",
            "4"] + feats
    code, want, err = run(base)
    check(code == 0, "--feature adm, motion, vif, cambi cpu: exit 0 (%r)" % err)
    for b in ("opencl", "cuda", "hip"):
        code, got, err = run(base + ["--backend", b])
        if code == 4:
            continue
        ran += 1
        check(code == 0 and json.loads(got)["frames"] == json.loads(want)["frames"],
              "--feature adm, motion, vif, cambi --backend %s: the CPU's values (%d %r)"
              % (b, code, err))
    if not ran and not failures:
        sys.exit(77)


NATIVE = {"SPEEDQA_MODEL_ENGINE": "native"}
V1 = ["vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_5d0h",
      "vmaf_v1.0.16_1d5h_2160"]
HFR = [m.replace("v1.0.16_", "v1.0.16_hfr_") for m in V1]


def test_native():
    test_equal(V1 + HFR + ["vmaf_v0.6.1"], NATIVE)
    test_ladder(("vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_hfr_3d0h"), NATIVE)
    test_batch(NATIVE)
    # both engines' reports, every format: the same bytes but for the measured speed
    for ref_rel, dis_rel in [p for p in pairs() if "422p10" in p[0] or "642x362" in p[0]]:
        ref, dis = clip(ref_rel), clip(dis_rel)
        for model, fmt, extra in (("5d0h", "json", []), ("5d0h", "csv", []), ("5d0h", "xml", []),
                                  ("5d0h", "json", ["--subsample", "3", "--precision", "max"]),
                                  ("hfr_3d0h", "json", ["--subsample", "3", "--precision", "max"])):
            outs = []
            for env in ({"SPEEDQA_MODEL_ENGINE": "libvmaf"}, NATIVE):
                code, out, err = run([SPEEDQA, "-r", ref, "-d", dis, "--model",
                                      "version=vmaf_v1.0.16_" + model, "--" + fmt, "-q",
                                      "--frame_cnt", "8"] + extra, env)
                outs.append([l for l in out.splitlines() if "fps" not in l] if code == 0 else
                            err)
            check(outs[0] == outs[1] and outs[0], "%s %s %s%s: the native engine's report is "
                  "the libvmaf engine's" % (os.path.basename(dis), model, fmt,
                                            " ".join([""] + extra)))
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    one_line_error([SPEEDQA, "-r", clip(ref_rel), "-d", clip(dis_rel), "--model",
                    "path=" + float_model()], 2, ["VMAF_feature_vif_scale0_score"],
                   "native engine, a model with libvmaf's float VIF", NATIVE)


def test_nolibvmaf():
    known = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "nolibvmaf_ref.json")))
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    assert ref.endswith(known["ref"][:-3]) and dis.endswith(known["dis"][:-3])
    for model in V1 + HFR + ["vmaf_v0.6.1"]:
        code, out, err = run([SPEEDQA, "-r", ref, "-d", dis, "--model", "version=" + model,
                              "--json", "-q", "--precision", "max", "--frame_cnt", "6"])
        doc = json.loads(out) if code == 0 else {"frames": []}
        check(code == 0 and len(doc["frames"]) == 6 and
              all(isinstance(f["metrics"].get("vmaf"), float) for f in doc["frames"]) and
              "vmaf" in doc["pooled_metrics"],
              "%s without libvmaf: exit 0, a vmaf per frame (%d %r)" % (model, code, err))
        # libvmaf's own run of the same frames, recorded by a build with it
        want = known["models"][model]
        check(code == 0 and ["%.17g" % f["metrics"]["vmaf"] for f in doc["frames"]] ==
              want["frames"] and all("%.17g" % doc["pooled_metrics"]["vmaf"][k] == v
                                     for k, v in want["pooled"].items()),
              "%s without libvmaf: every vmaf and pooled value libvmaf's own run recorded "
              "(tests/model/nolibvmaf_ref.json) at %%.17g" % model)
    # every feature on a GPU backend: both model families without libvmaf there too
    for b, model in [(b, m) for b in ("opencl", "cuda")
                     for m in ("vmaf_v0.6.1", "vmaf_v1.0.16_3d0h")]:
        code, out, err = run([SPEEDQA, "-r", ref, "-d", dis, "--model", "version=" + model,
                              "--json", "-q", "--precision", "max", "--frame_cnt", "6",
                              "--backend", b])
        if code == 4:
            print("skip %s: %s" % (b, err.strip()))
            continue
        want = known["models"][model]
        doc = json.loads(out) if code == 0 else {"frames": []}
        check(code == 0 and ["%.17g" % f["metrics"]["vmaf"] for f in doc["frames"]] ==
              want["frames"], "%s --backend %s without libvmaf: libvmaf's recorded values "
              "(%d %r)" % (model, b, code, err))
    fm = float_model()
    code, out, err = run([SPEEDQA, "-r", ref, "-d", dis, "--model", "path=" + fm])
    lines = err.strip().splitlines()
    check(code == 2 and len(lines) == 1 and "VMAF_feature_vif_scale0_score" in lines[0]
          and "libvmaf" in lines[0] and not out,
          "a model with libvmaf's float VIF without libvmaf: one line naming it (%d %r)"
          % (code, err))
    man = os.path.join(WORK, "m.csv")
    with open(man, "w") as f:
        f.write("ref,dis,model\n%s,%s,path=%s\n" % (ref, dis, fm))
    code, out, err2 = run([SPEEDQA, "--batch", man])
    lines2 = err2.strip().splitlines()
    check(code == 2 and len(lines2) == 1 and "m.csv:2: " in lines2[0] and
          lines and lines2[0].endswith(lines[0].split("error: ", 1)[-1]),
          "a manifest's float-VIF model without libvmaf: --model's line, naming the file and "
          "line (%d %r)" % (code, err2))


def test_nolibvmaf_engine():
    """Without libvmaf, an engine asked for by name that is not there: one line, no report."""
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    out_json = os.path.join(WORK, "engine.json")
    code, out, err = run([SPEEDQA, "-r", clip(ref_rel), "-d", clip(dis_rel), "--model",
                          "version=vmaf_v1.0.16_3d0h", "-o", out_json],
                         env={"SPEEDQA_MODEL_ENGINE": "libvmaf"})
    lines = err.strip().splitlines()
    check(code == 2 and len(lines) == 1 and "SPEEDQA_MODEL_ENGINE=libvmaf" in lines[0] and
          "no libvmaf" in lines[0] and not os.path.exists(out_json),
          "SPEEDQA_MODEL_ENGINE=libvmaf without libvmaf: one line, exit 2, no report (%d %r)"
          % (code, err))


def nvdec_clips():
    d = os.environ.get("SPEEDQA_NVDEC_CLIPS")
    if d and os.path.isdir(d):
        return d
    d = os.path.join(WORK, "clips")
    if not os.path.exists(os.path.join(d, "h264_1080p_dis.mkv")):
        subprocess.run(["sh", os.path.join(SRC, "bench", "make_nvdec_clips.sh"), d, "test"],
                       capture_output=True, check=False)
    return d if os.path.exists(os.path.join(d, "h264_1080p_dis.mkv")) else None


def test_hwaccel():
    code, out, _ = run([SPEEDQA, "--list-devices"])
    lines = out.splitlines()
    if "cuda:" not in lines or not lines[lines.index("cuda:") + 1:][:1] or \
            not lines[lines.index("cuda:") + 1].startswith("0:"):
        print("skip: no CUDA device")
        sys.exit(77)
    d = nvdec_clips()
    if not d:
        print("skip: no NVDEC clips ($SPEEDQA_NVDEC_CLIPS) and no ffmpeg to make them")
        sys.exit(77)
    model = "vmaf_v1.0.16_3d0h"
    wants = {}
    for c in ("h264_1080p", "hevc10_360p"):
        ref, dis = os.path.join(d, c + "_ref.mkv"), os.path.join(d, c + "_dis.mkv")
        if not os.path.exists(ref):
            print("note: no %s clip" % c)
            continue
        want, lib = reference(ref, dis, model, c)
        if want is None:
            check(False, "%s: vmaf_ref refused (%s)" % (c, lib))
            continue
        base = [SPEEDQA, "-r", ref, "-d", dis, "--model", "version=" + model, "--precision",
                "max", "--json", "--frame_cnt", str(MAX_FRAMES), "--hwaccel", "cuda"]
        code, out, err = run(base)
        check(code == 0 and "software" not in err,
              "%s: --hwaccel cuda --model exit 0, decoded on NVDEC (%d %r)" % (c, code, err))
        if code == 0:
            compare(json.loads(out), want, lib, c + " --hwaccel cuda")
        # a ladder: the reference's host copy serves both streams
        code, out, err = run(base[:5] + ["-d", dis] + base[5:] + ["-o", os.path.join(WORK, c + "_{i}.json")])
        check(code == 0, "%s: ladder --hwaccel cuda --model exit 0 (%d %r)" % (c, code, err))
        for i in (1, 2):
            p = os.path.join(WORK, "%s_%d.json" % (c, i))
            if code == 0 and os.path.exists(p):
                compare(json.load(open(p)), want, lib, "%s ladder stream %d" % (c, i))
        wants[c] = (ref, dis, want)
    # a batch on NVDEC (a model column): each pair's pooled vmaf is libvmaf's
    manifest = os.path.join(WORK, "nvdec.csv")
    with open(manifest, "w") as f:
        f.write("ref,dis,model\n")
        for ref, dis, _ in wants.values():
            f.write("%s,%s,version=%s\n" % (ref, dis, model))
    code, out, err = run([SPEEDQA, "--batch", manifest, "--hwaccel", "cuda", "--precision", "max",
                          "-q", "--frame_cnt", str(MAX_FRAMES)])
    lines = {l["dis"]: l for l in map(json.loads, out.splitlines())} if code == 0 else {}
    check(code == 0 and len(lines) == len(wants), "--batch --hwaccel cuda with a model column: "
          "exit 0, a line per pair (%d %r)" % (code, err))
    for c, (ref, dis, want) in wants.items():
        got = lines.get(dis, {}).get("pooled_metrics", {}).get("vmaf", {})
        check(bool(got) and all("%.17g" % got[k] == "%.17g" % want["pooled"][k]
                                for k in want["pooled"]),
              "batch %s on NVDEC: pooled vmaf equals libvmaf's" % c)


ORDER_CASES = [
    # two models, each order: every instance in the order vmaf registers them
    ["--model", "version=vmaf_v0.6.1:name=a", "--model", "version=vmaf_v1.0.16_3d0h:name=b"],
    ["--model", "version=vmaf_v1.0.16_3d0h:name=b", "--model", "version=vmaf_v0.6.1:name=a"],
    # --feature's after the models' features: speedqa's and libvmaf's in their order,
    # a model's own instance once, motion's flush names after every per-frame name
    ["--model", "version=vmaf_v0.6.1", "--feature", "cambi", "--feature", "psnr"],
    ["--model", "version=vmaf_v0.6.1", "--feature", "psnr", "--feature", "cambi"],
    ["--model", "version=vmaf_v1.0.16_3d0h", "--feature", "adm", "--feature", "motion"],
    ["--model", "version=vmaf_v1.0.16_3d0h", "--feature", "motion=motion_max_val=18",
     "--feature", "float_ssim", "--feature", "speed_temporal"],
    ["--model", "version=vmaf_v1.0.16_3d0h", "-n", "--feature", "adm"],
    # libvmaf's --feature's in the order given around speedqa's, whatever order its
    # threads finish them in (speedqa's threads)
    ["--model", "version=vmaf_v1.0.16_5d0h:name=m0", "--model",
     "version=vmaf_v1.0.16_3d0h_2160:name=m1", "--feature", "float_ssim", "--feature", "psnr",
     "--feature", "speed_chroma", "--threads", "2"],
    ["--model", "version=vmaf_v0.6.1", "--feature", "psnr", "--feature", "cambi", "--feature",
     "float_ssim", "--feature", "psnr_hvs", "--feature", "speed_temporal", "--feature", "ciede"],
    # the shipped files of the models libvmaf builds in: its built-in models' reports
    ["--model", "version=vmaf_v0.6.1neg"],
    ["--model", "version=vmaf_4k_v0.6.1neg"],
    ["--model", "version=vmaf_4k_v0.6.1"],
]


def test_order():
    """The report's columns in the vmaf tool's order (libvmaf's own tool, found next to the
    libvmaf the build uses), its CSV byte for byte, with several models and --feature's,
    on both engines where speedqa's own can take the job."""
    tool = os.environ.get("SQ_VMAF_TOOL", "")
    if not os.access(tool, os.X_OK):
        print("skip: no vmaf tool beside libvmaf (%r)" % tool)
        sys.exit(77)
    (ref_rel, dis_rel), = [p for p in pairs() if "642x362" in p[0]][:1]
    ref, dis = clip(ref_rel), clip(dis_rel)
    for k, args in enumerate(ORDER_CASES):
        want = os.path.join(WORK, "order%d.vmaf.csv" % k)
        # vmaf's order is its one-thread run's: --threads goes to speedqa alone
        cut = args.index("--threads") if "--threads" in args else len(args)
        code, _, err = run([tool, "-r", ref, "-d", dis, "--frame_cnt", "3", "--csv", "-q", "-o",
                            want] + args[:cut] + args[cut + 2:])
        if code != 0:
            check(False, "vmaf %s (%d %r)" % (" ".join(args), code, err))
            continue
        native = not any(a in ("psnr", "float_ssim", "psnr_hvs", "ciede") for a in args)
        # auto: speedqa's own engine, or libvmaf's with speedqa's features where a feature is
        # libvmaf's; libvmaf: libvmaf's with its own ADM, whose two instances with another
        # between them it does not place (doc/cli.md)
        two_adm = sum(a.startswith(("version=", "adm")) for a in args) > 1
        for engine in ("auto", "native", "libvmaf")[:(2 if native else 1)] + \
                (() if two_adm else ("libvmaf",)):
            got = os.path.join(WORK, "order%d.%s.csv" % (k, engine))
            code, _, err = run([SPEEDQA, "-r", ref, "-d", dis, "--frame_cnt", "3", "--csv", "-q",
                                "-o", got] + args, {"SPEEDQA_MODEL_ENGINE": engine})
            same = code == 0 and open(got, "rb").read() == open(want, "rb").read()
            check(same, "%s (%s engine): the CSV is vmaf's, columns in its order (%d %r)%s"
                  % (" ".join(args), engine, code, err,
                     "" if same or code else "\n  vmaf:    %s  speedqa: %s"
                     % (open(want).readline(), open(got).readline())))


os.makedirs(WORK, exist_ok=True)
{"equal": test_equal, "ladder": lambda: (test_ladder(), test_batch(), test_batch_models()), "errors": lambda: (test_errors(), test_digits(), test_sad_model()), "order": test_order, "layouts": test_layouts,
 "backends": test_backends, "hwaccel": test_hwaccel, "native": test_native,
 "equal-gpu": test_equal_gpu,
 "nolibvmaf": lambda: (test_nolibvmaf(), test_nolibvmaf_engine())}[MODE]()
if failures:
    print("%d failed" % len(failures))
    sys.exit(1)
# a passing run leaves no files behind (CI disks can be small); a failing one keeps them
shutil.rmtree(WORK, ignore_errors=True)
