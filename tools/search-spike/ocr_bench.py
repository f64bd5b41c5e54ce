#!/usr/bin/env python3
"""Measures the two OCR paths of docs/SEARCH.md §S2 on the set make_ocr_set.py wrote.

For each configuration: character error rate (edit distance / length of the truth,
white space collapsed), the share of the truth's words of 3+ characters that a
case-insensitive substring search of the OCR text finds (what the catalog's trigram
index does), CPU and wall time per image, peak memory. Prints a table and writes
OUT/ocr-results.json.

  library: ocr_capi (libtesseract's C API, one process, model loaded once)
  tool:    `tesseract stdin stdout` per image, the PPM bytes on its standard input

    python3 ocr_bench.py [--out DIR] [--configs NAME,...] [--categories CAT,...]

Needs rapidfuzz (PyPI) and the binary ocr_capi built as README.md says.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import unicodedata

from rapidfuzz.distance import Levenshtein

# name -> (path, options)
CONFIGS = {
    "lib-rgb": ("lib", ["--lang", "eng"]),
    "lib-grey": ("lib", ["--lang", "eng", "--grey"]),
    "lib-grey-x2": ("lib", ["--lang", "eng", "--grey", "--scale", "2"]),
    "lib-grey-osd": ("lib", ["--lang", "eng", "--grey", "--osd"]),
    "lib-grey-psm1": ("lib", ["--lang", "eng", "--grey", "--psm", "1"]),
    "lib-grey-psm6": ("lib", ["--lang", "eng", "--grey", "--psm", "6"]),
    "lib-grey-deskew": ("lib", ["--lang", "eng", "--deskew"]),
    "lib-grey-osd-deskew": ("lib", ["--lang", "eng", "--deskew", "--osd"]),
    "lib-grey-osd-deskew-deu": ("lib", ["--lang", "eng+deu", "--deskew", "--osd"]),
    "lib-fallback-deskew": ("lib", ["--lang", "eng", "--deskew", "--fallback"]),
    "lib-fallback-deskew-deu": ("lib", ["--lang", "eng+deu", "--deskew", "--fallback"]),
    "lib-fallback-deskew-sauvola": ("lib", ["--lang", "eng", "--deskew", "--fallback", "--var", "thresholding_method=2"]),
    "lib-fallback-deskew-lotsu": ("lib", ["--lang", "eng", "--deskew", "--fallback", "--var", "thresholding_method=1"]),
    "lib-chain": ("lib", ["--lang", "eng", "--deskew", "--chain"]),
    "lib-chain-deu": ("lib", ["--lang", "eng+deu", "--deskew", "--chain"]),
    "lib-grey-osd-deu": ("lib", ["--lang", "eng+deu", "--grey", "--osd"]),
    "tool-rgb": ("tool", ["-l", "eng", "--psm", "3"]),
    "tool-deu": ("tool", ["-l", "eng+deu", "--psm", "3"]),
    # The product's path: obscura-indexer under its filter and Landlock, the chain of
    # §S2.3 in CObscuraOCR, the picture sent as PNG bytes and decoded by libvips.
    "worker": ("worker", ["eng"]),
    "worker-deu": ("worker", ["eng+deu"]),
}


def norm(s):
    return " ".join(unicodedata.normalize("NFC", s).split())


def words(lines):
    out = []
    for line in lines:
        for w in line.split():
            w = w.strip(".,;:")
            if len(w) >= 3:
                out.append(w)
    return out


def fold(s):
    """Case and diacritics folded, as FTS5's unicode61 tokenizer with remove_diacritics."""
    return "".join(c for c in unicodedata.normalize("NFD", s.casefold()) if not unicodedata.combining(c))


def tokens(s):
    return re.findall(r"\w+", fold(s))


def score(truth, text):
    t = norm("\n".join(truth["lines"]))
    o = norm(text)
    cer = Levenshtein.distance(t, o) / max(1, len(t))
    low = o.casefold()
    ws = words(truth["lines"])
    found = sum(1 for w in ws if w.casefold() in low)
    # Word-prefix search (§S5.1: the OCR text's unicode61 index): every token of the word
    # is the start of some token of the OCR text.
    ocr_tokens = tokens(o)
    prefix = sum(1 for w in ws if all(any(x.startswith(q) for x in ocr_tokens) for q in tokens(w)))
    return cer, found, len(ws), prefix


def run_lib(binary, options, files, cwd):
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    p = subprocess.run([binary, *options, *files], cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(p.stderr)
    results = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        results[r["file"]] = r
    stats = json.loads(p.stderr.strip().splitlines()[-1])
    return results, stats


def run_tool(options, files, cwd):
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    results, peak = {}, 0
    for f in files:
        data = open(os.path.join(cwd, f), "rb").read()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.monotonic()
        p = subprocess.Popen(["tesseract", "stdin", "stdout", *options], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        out, _ = p.communicate(data)
        wall = (time.monotonic() - w0) * 1e3
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3
        peak = max(peak, after.ru_maxrss / 1024)
        results[f] = {"text": out.decode("utf-8", "replace"), "cpu_ms": cpu, "wall_ms": wall, "osd_rotated": 0}
    return results, {"init_ms": None, "peak_rss_mib": peak}


def png_bytes(path):
    import io
    from PIL import Image
    buffer = io.BytesIO()
    Image.open(path).save(buffer, "PNG")
    return buffer.getvalue()


def run_worker(binary, options, files, cwd):
    from indexer_client import Indexer
    w0 = time.monotonic()
    worker = Indexer(binary)
    worker.load(options[0])
    init = (time.monotonic() - w0) * 1e3
    results = {}
    for f in files:
        data = png_bytes(os.path.join(cwd, f))
        cpu0, t0 = worker.cpu_ms(), time.monotonic()
        status, confidence, text = worker.read(data)
        results[f] = {"text": text, "cpu_ms": worker.cpu_ms() - cpu0, "wall_ms": (time.monotonic() - t0) * 1e3}
    diag = worker.diag()
    worker.close()
    return results, {"init_ms": init, "peak_rss_mib": int(diag["vmhwm_kib"]) / 1024,
                     "vmpeak_mib": int(diag["vmpeak_kib"]) / 1024}


def textless(binary, count, seed=38):
    """Words kept on photo-like pictures without text, at three confidence floors (§S2.3)."""
    import io
    import random
    from indexer_client import Indexer
    from make_ocr_set import photo_background
    rng = random.Random(seed)
    pictures = []
    for _ in range(count):
        buffer = io.BytesIO()
        photo_background(rng, 1440, 1080).save(buffer, "JPEG", quality=90)
        pictures.append(buffer.getvalue())
    print("| floor | pictures with a word kept | words kept (all pictures) | most in one picture |")
    print("|---|---|---|---|")
    for floor in (30, 50, 70):
        worker = Indexer(binary)
        worker.load("eng", floor)
        kept = [len(worker.read(p, "image/jpeg")[2].split()) for p in pictures]
        worker.close()
        print(f"| {floor} | {sum(1 for k in kept if k)} of {count} | {sum(kept)} | {max(kept)} |")


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/obscura-search-spike"))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--categories", default="")
    ap.add_argument("--binary", default=None)
    ap.add_argument("--set", default="main", choices=["main", "small"])
    ap.add_argument("--indexer", default=None, help="obscura-indexer, for the worker configs")
    ap.add_argument("--textless", type=int, default=0, help="only: junk words on N textless pictures")
    args = ap.parse_args()
    if args.textless:
        textless(args.indexer, args.textless)
        return
    cwd = os.path.join(args.out, "ocr" if args.set == "main" else "ocr-small")
    binary = args.binary or os.path.join(args.out, "bin", "ocr_capi")
    truth = json.load(open(os.path.join(cwd, "truth.json")))
    if args.categories:
        keep = set(args.categories.split(","))
        truth = [t for t in truth if t["category"] in keep]
    files = [t["file"] for t in truth]
    path_results = os.path.join(args.out, "ocr-results.json" if args.set == "main" else "ocr-small-results.json")
    everything = json.load(open(path_results)) if os.path.exists(path_results) else {}
    for name in args.configs.split(","):
        kind, options = CONFIGS[name]
        if kind == "lib":
            results, stats = run_lib(binary, options, files, cwd)
        elif kind == "worker":
            results, stats = run_worker(args.indexer, options, files, cwd)
        else:
            results, stats = run_tool(options, files, cwd)
        rows = {}
        for t in truth:
            r = results[t["file"]]
            cer, found, total, prefix = score(t, r["text"])
            rows[t["file"]] = {"category": t["category"], "cer": cer, "found": found, "words": total, "prefix": prefix,
                               "text": r["text"],
                               "cpu_ms": r["cpu_ms"], "wall_ms": r["wall_ms"], "rotated": r.get("osd_rotated", 0)}
        everything[name] = {"stats": stats, "rows": rows}
        json.dump(everything, open(path_results, "w"), indent=1)
    report(everything, [c for c in args.configs.split(",")], args.set)


def report(everything, names, which="main"):
    cats = ["document", "rotated", "skewed", "photo", "screenshot", "german"] if which == "main" else ["small", "small2x"]
    print("| config | " + " | ".join(cats) + " | all: CER / words found | words found by prefix | CPU ms/image (median) | wall ms (median) | peak RSS MiB | init ms |")
    print("|---" * (len(cats) + 7) + "|")
    for name in names:
        rows = everything[name]["rows"].values()
        stats = everything[name]["stats"]
        cells = []
        for c in cats:
            rs = [r for r in rows if r["category"] == c]
            if not rs:
                cells.append("–")
                continue
            cer = sum(r["cer"] for r in rs) / len(rs)
            found = sum(r["found"] for r in rs) / max(1, sum(r["words"] for r in rs))
            cells.append(f"{cer:.1%} / {found:.0%}")
        rs = list(rows)
        cer = sum(min(1, r["cer"]) for r in rs) / len(rs)
        found = sum(r["found"] for r in rs) / max(1, sum(r["words"] for r in rs))
        prefix = sum(r.get("prefix", 0) for r in rs) / max(1, sum(r["words"] for r in rs)) if all("prefix" in r for r in rs) else None
        init = stats.get("init_ms")
        print(f"| {name} | " + " | ".join(cells) +
              f" | {cer:.1%} / {found:.0%} | {'–' if prefix is None else f'{prefix:.0%}'} | {median([r['cpu_ms'] for r in rs]):.0f} | {median([r['wall_ms'] for r in rs]):.0f}"
              f" | {stats['peak_rss_mib']:.0f} | {'' if init is None else f'{init:.0f}'} |")


if __name__ == "__main__":
    main()
