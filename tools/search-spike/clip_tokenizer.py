#!/usr/bin/env python3
"""CLIP's byte-level BPE tokenizer (openai/CLIP simple_tokenizer.py, MIT), reduced to what
docs/SEARCH.md §S3 asks the Swift port to do, so the two can be compared.

`encode(text, fix_text=...)`: with fix_text (the reference) the text goes through
ftfy.fix_text first, as CLIP's own code does; without it (the Swift port) only NFC,
HTML unescaping, white-space cleaning and lower-casing. `tokens77` pads to CLIP's
context of 77 with 0 after <|endoftext|>, as the exported text encoders take it.

    python3 clip_tokenizer.py VOCAB.txt.gz "a photo of a cat" ...
"""
import gzip
import html
import sys
import unicodedata
from functools import lru_cache

import regex as re

SOT, EOT, CONTEXT = 49406, 49407, 77


@lru_cache()
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Tokenizer:
    def __init__(self, vocab_path):
        merges = gzip.open(vocab_path).read().decode("utf-8").split("\n")
        merges = [tuple(m.split()) for m in merges[1:49152 - 256 - 2 + 1]]
        vocab = list(bytes_to_unicode().values())
        vocab = vocab + [v + "</w>" for v in vocab] + ["".join(m) for m in merges] + ["<|startoftext|>", "<|endoftext|>"]
        self.encoder = {v: i for i, v in enumerate(vocab)}
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.cache = {}
        self.pat = re.compile(r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+""", re.IGNORECASE)

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = tuple(token[:-1]) + (token[-1] + "</w>",)
        while len(word) > 1:
            pairs = {(word[i], word[i + 1]) for i in range(len(word) - 1)}
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            merged, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    merged.append(word[i] + word[i + 1])
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            word = tuple(merged)
        self.cache[token] = word
        return word

    def encode(self, text, fix_text=True):
        if fix_text:
            import ftfy
            text = ftfy.fix_text(text)
        else:
            text = unicodedata.normalize("NFC", text)
        text = " ".join(html.unescape(html.unescape(text)).strip().split()).lower()
        ids = []
        b2u = bytes_to_unicode()
        for token in re.findall(self.pat, text):
            token = "".join(b2u[b] for b in token.encode("utf-8"))
            ids.extend(self.encoder[t] for t in self.bpe(token))
        return ids

    def tokens77(self, text, fix_text=True):
        ids = [SOT] + self.encode(text, fix_text)[: CONTEXT - 2] + [EOT]
        return ids + [0] * (CONTEXT - len(ids))


if __name__ == "__main__":
    tok = Tokenizer(sys.argv[1])
    for text in sys.argv[2:]:
        print(text, [SOT] + tok.encode(text) + [EOT])
