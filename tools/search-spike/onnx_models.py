#!/usr/bin/env python3
"""ONNX graphs with the signature of the CLIP encoders Immich exports (docs/SEARCH.md §S3),
built with the `onnx` package's helper alone:

  visual:  input "image" float32 [N, 3, 224, 224] (CLIP-normalised RGB) -> "embedding" float32 [N, 512]
  textual: input "text"  int32   [N, 77] (CLIP BPE ids, 0-padded)       -> "embedding" float32 [N, 512]

Two kinds:
  * `tiny_visual` / `tiny_textual`: the test model the issue asks for. The image side is
    the mean colour of the normalised pixels times a fixed 3x512 matrix; the text side
    counts the colour words' token ids in the row and sums their directions, each the
    same matrix applied to that colour. So "red" and a red picture share a direction,
    through the real tokenizer, preprocessing and ranking code. A few KiB.
  * `vit_visual` / `clip_textual` with random weights: the ViT-B/32 shapes (12 layers of
    width 768 on 7x7 patches; text 12 layers of width 512 over 77 tokens), as a proxy for
    the real model's load time, memory and inference time, which the weights do not change.

    python3 onnx_models.py OUT_DIR VOCAB.txt.gz     # writes tiny-*.onnx and vitb32-*.onnx
    python3 onnx_models.py OUT_DIR VOCAB.txt.gz variants

`variants` writes two ways to a faster text encoder, for timing only: the same shapes
over 16 tokens instead of 77 (with the causal mask the <|endoftext|> features depend only
on the tokens before it, so a graph cut to the query's length gives the same vector), and
the 77-token graph with ONNX Runtime's dynamic int8 quantisation of its MatMul weights.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MEAN = np.array([0.48145466, 0.4578275, 0.40821073], np.float32)
STD = np.array([0.26862954, 0.26130258, 0.27577711], np.float32)
OPSET = 17


class Graph:
    def __init__(self, seed=0):
        self.nodes, self.inits, self.n = [], [], 0
        self.rng = np.random.default_rng(seed)

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def const(self, arr, base="c"):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def weight(self, *shape, std=0.02):
        return self.const(self.rng.normal(0, std, shape).astype(np.float32), "w")

    def op(self, kind, inputs, **attrs):
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def layer_norm(self, x, width):
        return self.op("LayerNormalization", [x, self.const(np.ones(width, np.float32)), self.const(np.zeros(width, np.float32))], axis=-1)

    def linear(self, x, fan_in, fan_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight(fan_in, fan_out)]), self.const(np.zeros(fan_out, np.float32))])

    def block(self, x, width, heads, mask=None):
        """A pre-norm transformer block as CLIP's: attention, then a QuickGELU MLP."""
        d = width // heads
        h = self.layer_norm(x, width)
        qkv = self.linear(h, width, 3 * width)
        q, k, v = (self.name(s) for s in "qkv")
        self.nodes.append(helper.make_node("Split", [qkv, self.const(np.array([width] * 3, np.int64))], [q, k, v], axis=-1))
        shape = self.const(np.array([0, 0, heads, d], np.int64))
        q = self.op("Transpose", [self.op("Reshape", [q, shape])], perm=[0, 2, 1, 3])
        k = self.op("Transpose", [self.op("Reshape", [k, shape])], perm=[0, 2, 3, 1])
        v = self.op("Transpose", [self.op("Reshape", [v, shape])], perm=[0, 2, 1, 3])
        s = self.op("Mul", [self.op("MatMul", [q, k]), self.const(np.array(d ** -0.5, np.float32))])
        if mask is not None:
            s = self.op("Add", [s, mask])
        a = self.op("MatMul", [self.op("Softmax", [s], axis=-1), v])
        a = self.op("Reshape", [self.op("Transpose", [a], perm=[0, 2, 1, 3]), self.const(np.array([0, 0, width], np.int64))])
        x = self.op("Add", [x, self.linear(a, width, width)])
        h = self.linear(self.layer_norm(x, width), width, 4 * width)
        h = self.op("Mul", [h, self.op("Sigmoid", [self.op("Mul", [h, self.const(np.array(1.702, np.float32))])])])
        return self.op("Add", [x, self.linear(h, 4 * width, width)])

    def model(self, inputs, output, doc):
        self.nodes.append(helper.make_node("Identity", [output], ["embedding"]))
        g = helper.make_graph(self.nodes, "clip", inputs,
                              [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["N", 512])], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], doc_string=doc)
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


IMAGE = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 224, 224])
TEXT = helper.make_tensor_value_info("text", TensorProto.INT32, ["N", 77])


def vit_visual(width=768, layers=12, heads=12, patch=32, size=224, embed=512, seed=1):
    g = Graph(seed)
    grid = size // patch
    x = g.op("Conv", ["image", g.weight(width, 3, patch, patch)], strides=[patch, patch])
    x = g.op("Transpose", [g.op("Reshape", [x, g.const(np.array([0, width, grid * grid], np.int64))])], perm=[0, 2, 1])
    # The class token, one per image of the batch.
    n = g.op("Unsqueeze", [g.op("Gather", [g.op("Shape", ["image"]), g.const(np.array(0, np.int64))], axis=0), g.const(np.array([0], np.int64))])
    cls = g.op("Expand", [g.weight(1, 1, width), g.op("Concat", [n, g.const(np.array([1, width], np.int64))], axis=0)])
    x = g.op("Add", [g.op("Concat", [cls, x], axis=1), g.weight(grid * grid + 1, width)])
    x = g.layer_norm(x, width)
    for _ in range(layers):
        x = g.block(x, width, heads)
    x = g.layer_norm(g.op("Gather", [x, g.const(np.array(0, np.int64))], axis=1), width)
    return g.model([IMAGE], g.op("MatMul", [x, g.weight(width, embed)]), "ViT-B/32-shaped image encoder, random weights")


def clip_textual(vocab=49408, context=77, width=512, layers=12, heads=8, embed=512, seed=2):
    g = Graph(seed)
    x = g.op("Add", [g.op("Gather", [g.weight(vocab, width), "text"], axis=0), g.weight(context, width)])
    mask = g.const(np.triu(np.full((context, context), -np.inf, np.float32), 1))
    for _ in range(layers):
        x = g.block(x, width, heads, mask)
    x = g.layer_norm(x, width)
    # The features at <|endoftext|>, the largest id in each row, as CLIP takes them.
    eot = g.op("ArgMax", [g.op("Cast", ["text"], to=TensorProto.FLOAT)], axis=-1, keepdims=0)
    pick = g.op("Unsqueeze", [g.op("OneHot", [eot, g.const(np.array(context, np.int64)), g.const(np.array([0, 1], np.float32))], axis=-1), g.const(np.array([1], np.int64))])
    x = g.op("Squeeze", [g.op("MatMul", [pick, x]), g.const(np.array([1], np.int64))])
    text = TEXT if context == 77 else helper.make_tensor_value_info("text", TensorProto.INT32, ["N", context])
    return g.model([text], g.op("MatMul", [x, g.weight(width, embed)]), "CLIP text-encoder-shaped, random weights")


COLOURS = {  # sRGB in [0, 1]
    "red": (1, 0, 0), "green": (0, 1, 0), "blue": (0, 0, 1), "yellow": (1, 1, 0),
    "magenta": (1, 0, 1), "orange": (1, 0.5, 0), "purple": (0.5, 0, 0.5), "white": (1, 1, 1),
    "black": (0, 0, 0),
}  # each one BPE token ("cyan" is two, so it is left out)


def colour_matrix(seed=3):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 1, (3, 512)).astype(np.float32)


def colour_direction(rgb, matrix):
    return (((np.array(rgb, np.float32) - MEAN) / STD) @ matrix).astype(np.float32)


def tiny_visual():
    g = Graph()
    mean = g.op("ReduceMean", ["image"], axes=[2, 3], keepdims=0)
    return g.model([IMAGE], g.op("MatMul", [mean, g.const(colour_matrix(), "colours")]), "tiny colour model: image side")


def tiny_textual(tokenizer):
    g = Graph()
    words = list(COLOURS)
    ids = np.array([tokenizer.encode(w)[0] for w in words], np.int32)
    directions = np.stack([colour_direction(COLOURS[w], colour_matrix()) for w in words])
    # How often each colour word's id occurs in the row: [N, 77, K] -> [N, K].
    hits = g.op("Cast", [g.op("Equal", [g.op("Unsqueeze", ["text", g.const(np.array([2], np.int64))]), g.const(ids, "ids")])], to=TensorProto.FLOAT)
    counts = g.op("ReduceSum", [hits, g.const(np.array([1], np.int64))], keepdims=0)
    return g.model([TEXT], g.op("MatMul", [counts, g.const(directions, "directions")]), "tiny colour model: text side")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from clip_tokenizer import Tokenizer

    out, vocab = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if sys.argv[3:] == ["variants"]:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        onnx.save(clip_textual(context=16), os.path.join(out, "vitb32-textual-ctx16.onnx"))
        quantize_dynamic(os.path.join(out, "vitb32-textual.onnx"), os.path.join(out, "vitb32-textual-int8.onnx"),
                         weight_type=QuantType.QInt8)
        for name in ["vitb32-textual-ctx16", "vitb32-textual-int8"]:
            path = os.path.join(out, name + ".onnx")
            print(f"{path}: {os.path.getsize(path) / 2**20:.1f} MiB")
        sys.exit()
    tok = Tokenizer(vocab)
    for name, model in [("tiny-visual", tiny_visual()), ("tiny-textual", tiny_textual(tok)),
                        ("vitb32-visual", vit_visual()), ("vitb32-textual", clip_textual())]:
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        print(f"{path}: {os.path.getsize(path) / 2**20:.1f} MiB")
