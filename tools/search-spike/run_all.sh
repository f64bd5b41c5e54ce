#!/usr/bin/env bash
# Runs every measurement of docs/SEARCH.md, niced, writing under $OUT (default
# /tmp/obscura-search-spike; nothing is written in the repository). About 12 CPU-minutes
# on a 2-core machine; see README.md for the prerequisites and for single steps.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/obscura-search-spike}
ORT_HEADER_DIR=${ORT_HEADER_DIR:-/tmp/trixie/x/usr/include/onnxruntime}
export OUT
mkdir -p "$OUT/bin"
run() { echo "+ $*" >&2; nice -n 19 "$@"; }

lib=$(python3 -c 'import onnxruntime, os; print(os.path.join(os.path.dirname(onnxruntime.__file__), "capi"))')
ort_so=$(ls "$lib"/libonnxruntime.so.1.* | head -1)
vocab="$OUT/vocab/open_clip/bpe_simple_vocab_16e6.txt.gz"
if [ ! -f "$vocab" ]; then
  mkdir -p "$OUT/vocab" "$OUT/wheels"
  run pip download --no-deps -q -d "$OUT/wheels" open-clip-torch==3.3.0
  (cd "$OUT/vocab" && unzip -o -q "$OUT"/wheels/open_clip_torch-3.3.0-*.whl open_clip/bpe_simple_vocab_16e6.txt.gz)
fi

# OCR (§S2)
run cc -O2 -o "$OUT/bin/ocr_capi" "$here/ocr_capi.c" $(pkg-config --cflags --libs tesseract lept)
run python3 "$here/make_ocr_set.py"
run python3 "$here/make_ocr_set.py" --set small
run python3 "$here/ocr_bench.py" --configs lib-rgb,lib-grey,tool-rgb,lib-grey-osd-deskew,lib-grey-osd-deskew-deu,lib-chain,lib-chain-deu
run python3 "$here/ocr_bench.py" --set small --configs lib-chain-deu

# ONNX Runtime (§S3)
run cc -O2 -o "$OUT/bin/ort_probe" "$here/ort_probe.c" -ldl
run "$OUT/bin/ort_probe" "$ort_so"
run python3 "$here/onnx_models.py" "$OUT/models" "$vocab"
run python3 "$here/onnx_models.py" "$OUT/models" "$vocab" variants
run python3 "$here/ort_bench.py" "$OUT/models" "$vocab"
if [ -f "$ORT_HEADER_DIR/onnxruntime_c_api.h" ]; then
  run cc -O2 -I "$ORT_HEADER_DIR" -o "$OUT/bin/ort_capi" "$here/ort_capi.c" -ldl
  for m in tiny-visual tiny-textual vitb32-visual vitb32-textual vitb32-textual-ctx16 vitb32-textual-int8; do
    for t in 1 2; do run "$OUT/bin/ort_capi" "$ort_so" "$OUT/models/$m.onnx" "$t" 9 | head -1; done
  done
else
  echo "no onnxruntime_c_api.h in $ORT_HEADER_DIR: C-API timings skipped (README.md says how to get it)" >&2
fi

# Ranking and storage (§S4, §S5)
run cc -O2 -o "$OUT/bin/scan_O2" "$here/scan_bench.c" -lm
run cc -O3 -march=native -o "$OUT/bin/scan_native" "$here/scan_bench.c" -lm
run "$OUT/bin/scan_O2" 100000 20
run "$OUT/bin/scan_native" 100000 20
run python3 "$here/storage_bench.py" --items 100000 --layout rowid --ocr-fts unicode61
run python3 "$here/storage_bench.py" --items 30000 --layout rowid --ocr-fts trigram
run python3 "$here/storage_bench.py" --items 30000 --layout without-rowid --ocr-fts none
run python3 "$here/storage_bench.py" --items 30000 --layout rowid --ocr-fts unicode61 --text-profile documents
