#!/usr/bin/env python3
"""ONNX Runtime figures for docs/SEARCH.md §S3, with the Python binding as a proxy for the
C API (the same libonnxruntime inside).

  load:  each model in a fresh process: resident memory after `import onnxruntime`,
         session creation time and memory, first and steady inference time (1 and 2
         intra-op threads), peak resident memory; with and without the CPU arena.
  tiny:  the colour test model ranks each colour's pictures first for a query naming
         it, through the reference tokenizer and preprocessing (what the Swift tests
         will assert through the real code path).
  tokens: the reference tokenizer with and without ftfy on a list of queries.

    python3 ort_bench.py MODELS_DIR VOCAB.txt.gz [load|tiny|tokens ...]
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return -1


def measure_one(path, threads, arena):
    """Runs in a child: one model, one setting; prints JSON."""
    import numpy as np
    base = status("VmRSS")
    import onnxruntime as ort
    after_import = status("VmRSS")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.enable_cpu_mem_arena = arena
    t0 = time.monotonic()
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    load_ms = (time.monotonic() - t0) * 1e3
    after_load = status("VmRSS")
    inp = s.get_inputs()[0]
    if inp.name == "image":
        feed = {"image": np.random.default_rng(0).normal(0, 1, (1, 3, 224, 224)).astype(np.float32)}
    else:
        ids = np.zeros((1, 77), np.int32)
        ids[0, :6] = [49406, 320, 2117, 536, 3424, 49407]  # "a beach at sunset"
        feed = {"text": ids}
    t0 = time.monotonic()
    s.run(None, feed)
    first_ms = (time.monotonic() - t0) * 1e3
    runs = []
    for _ in range(7):
        t0 = time.monotonic()
        s.run(None, feed)
        runs.append((time.monotonic() - t0) * 1e3)
    print(json.dumps({
        "model": os.path.basename(path), "threads": threads, "arena": arena,
        "file_mib": round(os.path.getsize(path) / 2**20, 1),
        "rss_python_mib": round(base, 1), "rss_import_added_mib": round(after_import - base, 1),
        "load_ms": round(load_ms), "rss_session_added_mib": round(after_load - after_import, 1),
        "first_run_ms": round(first_ms), "run_ms_median": round(statistics.median(runs), 1),
        "peak_rss_mib": round(status("VmHWM"), 1),
        "inputs": [(i.name, i.type, i.shape) for i in s.get_inputs()],
        "outputs": [(o.name, o.type, o.shape) for o in s.get_outputs()],
    }))


def load(models):
    rows = []
    for name in ["tiny-visual", "tiny-textual", "vitb32-visual", "vitb32-textual"]:
        path = os.path.join(models, name + ".onnx")
        settings = [(1, True)] if name.startswith("tiny") else [(1, True), (2, True), (2, False)]
        for threads, arena in settings:
            out = subprocess.run([sys.executable, __file__, "--child", path, str(threads), str(int(arena))],
                                 capture_output=True, text=True, check=True).stdout
            rows.append(json.loads(out))
            print(out.strip())
    return rows


def preprocess(img):
    """open_clip's transform: shortest side to 224 (bicubic), centre crop, normalise."""
    import numpy as np
    from onnx_models import MEAN, STD
    from PIL import Image
    w, h = img.size
    s = 224 / min(w, h)
    img = img.convert("RGB").resize((max(224, round(w * s)), max(224, round(h * s))), Image.BICUBIC)
    w, h = img.size
    left, top = (w - 224) // 2, (h - 224) // 2
    arr = np.asarray(img.crop((left, top, left + 224, top + 224)), np.float32) / 255
    return ((arr - MEAN) / STD).transpose(2, 0, 1)[None]


def tiny(models, vocab):
    import numpy as np
    import onnxruntime as ort
    from clip_tokenizer import Tokenizer
    from make_ocr_set import photo_background
    from onnx_models import COLOURS
    from PIL import Image, ImageDraw
    import random
    tok = Tokenizer(vocab)
    vis = ort.InferenceSession(os.path.join(models, "tiny-visual.onnx"), providers=["CPUExecutionProvider"])
    txt = ort.InferenceSession(os.path.join(models, "tiny-textual.onnx"), providers=["CPUExecutionProvider"])
    # Per colour: a plain picture and a "photo" mostly of that colour (a large patch over
    # a busy background), at sizes that exercise the resize and the crop.
    rng = random.Random(7)
    images, labels = [], []
    for word, rgb in COLOURS.items():
        c = tuple(int(v * 255) for v in rgb)
        images.append(Image.new("RGB", (640, 480), c))
        labels.append(word)
        bg = photo_background(rng, 800, 600)
        ImageDraw.Draw(bg).rectangle((100, 60, 700, 560), fill=c)
        images.append(bg)
        labels.append(word)
    emb = np.concatenate([vis.run(None, {"image": preprocess(im)})[0] for im in images])
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    ok = 0
    for word in COLOURS:
        q = txt.run(None, {"text": np.array([tok.tokens77(f"a photo of something {word}")], np.int32)})[0][0]
        q /= np.linalg.norm(q)
        order = np.argsort(-(emb @ q))
        top2 = [labels[i] for i in order[:2]]
        ok += top2 == [word, word]
        print(f"query {word!r}: top 2 {top2}")
    print(f"tiny model: {ok}/{len(COLOURS)} queries rank both pictures of their colour first")


QUERIES = ["passport", "beach at sunset", "whiteboard", "a photo of a cat", "receipt from the café",
           "Straße in München", "  two   spaces ", "naïve résumé", "tom's 3 dogs", "emoji 🙂 party",
           "ＦＵＬＬＷＩＤＴＨ text", "&amp; html entity", "don’t curly quote"]


def tokens(vocab):
    from clip_tokenizer import Tokenizer
    tok = Tokenizer(vocab)
    same = 0
    for q in QUERIES:
        a, b = tok.tokens77(q, fix_text=True), tok.tokens77(q, fix_text=False)
        same += a == b
        n = a.index(49407) + 1
        print(f"{q!r}: {a[:n]}" + ("" if a == b else f"  without ftfy: {b[:b.index(49407) + 1]}"))
    print(f"{same}/{len(QUERIES)} queries encode the same without ftfy")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    if sys.argv[1] == "--child":
        measure_one(sys.argv[2], int(sys.argv[3]), bool(int(sys.argv[4])))
        sys.exit()
    models, vocab = sys.argv[1], sys.argv[2]
    what = sys.argv[3:] or ["tokens", "tiny", "load"]
    if "tokens" in what:
        tokens(vocab)
    if "tiny" in what:
        tiny(models, vocab)
    if "load" in what:
        rows = load(models)
        json.dump(rows, open(os.path.join(os.path.dirname(models.rstrip("/")), "ort-results.json"), "w"), indent=1)
