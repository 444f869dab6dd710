"""Random models aimed at the edges of L-value-classes, the own-key floor, class gaps and L-fp-gap (issue 12).

Written for an adversarial campaign (2026-12-04: 945 models, 381 certified, 112 with a class gap, 47,682 words
brute-forced, nothing unsound): position embeddings whose range is reached only at large n or at the BOS row,
or whose sign is mixed; FFN ramps with breakpoints inside and outside their input's range, reading two dims,
writing into their own input; query dims known only by their range multiplied into key terms (class
intervals that meet at one corner); the own-key floor under all / j<=i / j>=i with BOS sharing a class; several
heads writing one dim; 2–4 layers.  Each ``gen_*(rng, k)`` returns a model dict.
"""
from __future__ import annotations

from fractions import Fraction

PES = ["(i-2)/(n+1)", "1/(i+1) - 1/(n+1)", "i/n - 1/2", "i/(n+1)", "1/(i+1)", "(n-i)/(n+1)", "(2*i-n)/(n+1)",
       "1/(n-i+1)", "i/(i+1)", "(i-1)/(i+1)", "1/(i+2) - 1/2", "i/n", "(i*i)/(n*n+1)", "(i-3)/(i+1)",
       "n/(i+1)", "1/(n+1)", "(n-2)/(n+1)", "i/(i+3)", "(i-1)/(n+2) - 1/4", "2*i/(n+1) - 1"]
COEF = ["1/1000", "1/100", "1/8", "1/4", "1/2", "1", "3/2", "2", "3", "-1/1000", "-1/4", "-1/2", "-1", "-2"]
SMALL = ["1/1000", "1/64", "1/8", "1/4", "1/2", "-1/1000", "-1/8", "-1/4", "-1/2", "1", "-1"]
VIS = ["all", "j<=i", "j<i", "j>=i", "j>i"]


def ramp(src, out, rng):
    """A rounding ramp src -> out (values near 0 -> 0, near 1 -> 1) with random breakpoints."""
    a, b = rng.choice([("1/4", "3/4"), ("1/3", "2/3"), ("1/10", "9/10"), ("1/2", "1")])
    a, b = Fraction(a), Fraction(b)
    k = 1 / (b - a)
    return {"type": "ffn", "hidden": [{"in": {src: str(k)}, "bias": str(-a * k), "out": {out: 1}},
                                      {"in": {src: str(k)}, "bias": str(-b * k), "out": {out: -1}}]}


def skeleton(rng, k, name, extra_dims=(), token_pe=False):
    alphabet = ["a", "b", "c"][:rng.choice([2, 2, 3])]
    bos = rng.random() < 0.5
    tokens = [f"t_{s}" for s in alphabet]
    token = {s: {f"t_{s}": 1} for s in alphabet}
    if bos:
        r = rng.random()
        if r < 0.5:
            token["$"] = {"t_bos": 1}
        elif r < 0.8:  # BOS shares a class with a symbol
            token["$"] = dict(token[rng.choice(alphabet)])
        else:
            token["$"] = {}
    pos = {"one": "1"}
    npe = rng.choice([1, 1, 2])
    pes = []
    for m in range(npe):
        pos[f"p{m}"] = rng.choice(PES)
        pes.append(f"p{m}")
    dims = ["one"] + pes + tokens + (["t_bos"] if bos else [])
    if token_pe:  # a dim with token values plus a PE
        pos["tp"] = rng.choice(PES)
        for s in list(token):
            if rng.random() < 0.7:
                token[s] = {**token[s], "tp": rng.choice(["1", "-1", "2", "1/2", "0"])}
        dims.append("tp")
    dims += list(extra_dims)
    return {"format": "hardsoft.model/1", "name": f"{name}-{k}", "alphabet": alphabet, "bos": "$" if bos else None,
            "dims": dims, "embed": {"token": token, "position": pos}, "layers": [],
            "output": {"dim": "out", "position": rng.choice(["last", "all", "first"]), "threshold": "1/2"}}, tokens, pes


def _mean_head(rng, name, tokens, out, pes=()):
    sc = [["one", rng.choice(tokens), rng.choice([1, -1, 2])]]
    if pes and rng.random() < 0.3:
        sc.append(["one", rng.choice(pes), rng.choice([1, -1])])
    return {"name": name, "hard": "average", "visible": rng.choice(["j<=i", "all", "j<i", "j>=i", "j>i"]),
            "score": sc, "value": [[out, rng.choice(tokens), 1]]}


def gen_pe_classes(rng, k):
    """Keys read PEs / token+PE dims (known only by their range) next to token terms of size near the
    PE's spread; sometimes PEs on the query side too (corners of the query box)."""
    d, tokens, pes = skeleton(rng, k, "pecl", extra_dims=("w1", "out"), token_pe=rng.random() < 0.5)
    nonfin = pes + (["tp"] if "tp" in d["dims"] else [])
    score = []
    for _ in range(rng.choice([1, 1, 2])):
        q = rng.choice(["one"] * 3 + pes + tokens)
        score.append([q, rng.choice(nonfin), rng.choice(COEF)])
    for t in tokens:
        if rng.random() < 0.75:
            score.append([rng.choice(["one", "one", rng.choice(tokens)] + pes), t, rng.choice(COEF)])
    if d["bos"] and "t_bos" in d["dims"] and rng.random() < 0.5:
        score.append(["one", "t_bos", rng.choice(COEF)])
    head = {"name": "h1", "hard": rng.choice(["average", "average", "leftmost", "rightmost"]), "visible": rng.choice(VIS),
            "score": score, "value": (lambda t: [["w1", t, 1]] + ([["w1", rng.choice([x for x in tokens if x != t]), -1]] if rng.random() < 0.2 else []))(rng.choice(tokens))}
    d["layers"] = [{"type": "attention", "heads": [head]}, ramp("w1", "out", rng)]
    return d


def gen_ffn_hull(rng, k):
    """A prefix mean w0, then an FFN with random ramps (breakpoints in/out of range, several inputs,
    negative outputs, writes into w0 itself), then a head whose keys read w0/w2 beside token terms."""
    d, tokens, pes = skeleton(rng, k, "ffnh", extra_dims=("w0", "w2", "w1", "out"))
    d["layers"].append({"type": "attention", "heads": [_mean_head(rng, "h0", tokens, "w0", pes)]})
    units = []
    for _ in range(rng.randint(1, 4)):
        ins = {"w0": rng.choice(["1", "2", "4", "-1", "-2", "1/2"])}
        if rng.random() < 0.3:
            ins[rng.choice(pes + tokens)] = rng.choice(["1", "-1", "1/2"])
        units.append({"in": ins, "bias": rng.choice(["0", "-1", "-1/2", "1/2", "-2", "2", "-3/4", "1/4", "-5"]),
                      "out": {rng.choice(["w0", "w0", "w2"]): rng.choice(["1", "-1", "2", "-1/2", "1/2"])}})
    d["layers"].append({"type": "ffn", "hidden": units})
    score = [[rng.choice(["one", "one", rng.choice(tokens)]), rng.choice(["w0", "w2"]), rng.choice(SMALL)]]
    if rng.random() < 0.3:
        score.append(["one", rng.choice(["w0", "w2"]), rng.choice(SMALL)])
    for t in tokens:
        if rng.random() < 0.75:
            score.append(["one", t, rng.choice(COEF)])
    if d["bos"] and "t_bos" in d["dims"] and rng.random() < 0.5:
        score.append(["one", "t_bos", rng.choice(COEF)])
    d["layers"].append({"type": "attention", "heads": [{"name": "h1", "hard": rng.choice(["average", "average", "rightmost", "leftmost"]),
                                                        "visible": rng.choice(VIS), "score": score,
                                                        "value": [["w1", rng.choice(tokens), 1]]}]})
    d["layers"].append(ramp("w1", "out", rng))
    return d


def gen_query_box(rng, k):
    """Query dims that are not finite (a mean w0, PEs) multiplied into key token terms and into w0/PE keys:
    the class intervals move with the query and may meet at one corner."""
    d, tokens, pes = skeleton(rng, k, "qbox", extra_dims=("w0", "w1", "out"), token_pe=rng.random() < 0.3)
    d["layers"].append({"type": "attention", "heads": [_mean_head(rng, "h0", tokens, "w0", pes)]})
    if rng.random() < 0.4:
        d["layers"].append({"type": "ffn", "hidden": [{"in": {"w0": 4}, "bias": "-1", "out": {"w0": 1}},
                                                      {"in": {"w0": 4}, "bias": "-2", "out": {"w0": -1}},
                                                      {"in": {"w0": 1}, "out": {"w0": -1}}]})
    qs = ["w0"] + pes + (["tp"] if "tp" in d["dims"] else [])
    score = []
    for t in tokens:
        if rng.random() < 0.8:
            score.append([rng.choice(qs + ["one"]), t, rng.choice(COEF)])
    if rng.random() < 0.6:
        score.append([rng.choice(qs + ["one"]), rng.choice(["w0"] + pes), rng.choice(SMALL)])
    if rng.random() < 0.4:
        score.append(["one", rng.choice(tokens), rng.choice(COEF)])
    if d["bos"] and "t_bos" in d["dims"] and rng.random() < 0.5:
        score.append([rng.choice(qs + ["one"]), "t_bos", rng.choice(COEF)])
    if not score:
        score = [["w0", tokens[0], 1]]
    d["layers"].append({"type": "attention", "heads": [{"name": "h1", "hard": rng.choice(["average", "average", "leftmost"]),
                                                        "visible": rng.choice(VIS), "score": score,
                                                        "value": [["w1", rng.choice(tokens), 1]]}]})
    d["layers"].append(ramp("w1", "out", rng))
    return d


def gen_own_key(rng, k):
    """Finite scores (token queries x token keys, BOS sharing classes), visible all/j<=i/j>=i, an average head
    whose output set relies on the own-key floor; its output read through a ramp or fed to a second head."""
    d, tokens, pes = skeleton(rng, k, "ownk", extra_dims=("u", "w0", "w1", "out"))
    if rng.random() < 0.5:  # a derived finite dim u from tokens
        d["layers"].append({"type": "ffn", "hidden": [{"in": {rng.choice(tokens): 1, rng.choice(tokens): 1}, "bias": rng.choice(["0", "-1", "-1/2"]),
                                                       "out": {"u": rng.choice(["1", "-1", "2"])}}]})
    fins = tokens + ["u"] + (["t_bos"] if "t_bos" in d["dims"] else [])
    score = []
    for _ in range(rng.randint(1, 4)):
        score.append([rng.choice(["one", "one"] + fins), rng.choice(fins), rng.choice(["1", "-1", "1/2", "-1/2", "2", "3/2"])])
    if rng.random() < 0.3:
        score.append(["one", rng.choice(pes), rng.choice(["1", "-1", "1/2"])])
    heads = [{"name": "h0", "hard": "average", "visible": rng.choice(["all", "j<=i", "j>=i", "j<=i", "j<i"]), "score": score,
              "value": [["w0", rng.choice(fins), rng.choice([1, 1, -1])]]}]
    if rng.random() < 0.3:  # a twin or second head writing the same dim
        heads.append({"name": "h0b", "hard": "average", "visible": rng.choice(["all", "j<=i", "j>=i"]),
                      "score": [list(s) for s in score] if rng.random() < 0.5 else [["one", rng.choice(fins), 1]],
                      "value": [["w0", rng.choice(fins), rng.choice(["1", "1/2", "-1/2"])]]})
    d["layers"].append({"type": "attention", "heads": heads})
    if rng.random() < 0.5:
        sc2 = [[rng.choice(["one"] + fins), "w0", rng.choice(["1", "-1", "2", "1/2"])]]
        for t in tokens:
            if rng.random() < 0.5:
                sc2.append(["one", t, rng.choice(COEF)])
        d["layers"].append({"type": "attention", "heads": [{"name": "h1", "hard": rng.choice(["average", "rightmost"]),
                                                            "visible": rng.choice(VIS), "score": sc2,
                                                            "value": [["w1", rng.choice(tokens + ["w0"]), 1]]}]})
        d["layers"].append(ramp("w1", "out", rng))
    else:
        d["layers"].append(ramp("w0", "out", rng))
    return d


def gen_multi(rng, k):
    """2-3 attention layers, several heads per layer writing the same dims, mixing means, PE keys and
    token keys; leftmost/rightmost; outputs of earlier heads feeding keys and queries later."""
    d, tokens, pes = skeleton(rng, k, "multi", extra_dims=("w0", "w1", "w2", "out"), token_pe=rng.random() < 0.3)
    avail = list(tokens)
    nonfin = pes + (["tp"] if "tp" in d["dims"] else [])
    for L in range(rng.choice([2, 2, 3])):
        heads = []
        for h in range(rng.choice([1, 1, 2, 3])):
            score = []
            for _ in range(rng.randint(1, 3)):
                q = rng.choice(["one", "one"] + tokens + ([x for x in avail if x.startswith("w")] if rng.random() < 0.3 else []))
                kd = rng.choice(avail + nonfin if rng.random() < 0.7 else avail)
                score.append([q, kd, rng.choice(COEF)])
            out = rng.choice(["w0", "w1", "w2"][: L + 1])
            heads.append({"name": f"h{L}{h}", "hard": rng.choice(["average", "average", "leftmost", "rightmost"]),
                          "visible": rng.choice(VIS), "score": score,
                          "value": [[out, rng.choice(tokens + [x for x in avail if x.startswith("w")]), rng.choice([1, 1, -1, "1/2"])]]})
        d["layers"].append({"type": "attention", "heads": heads})
        for hd in heads:
            o = hd["value"][0][0]
            if o not in avail:
                avail.append(o)
        if rng.random() < 0.5:
            w = rng.choice([x for x in avail if x.startswith("w")])
            d["layers"].append({"type": "ffn", "hidden": [{"in": {w: 4}, "bias": "-1", "out": {w: 1}},
                                                          {"in": {w: 4}, "bias": "-2", "out": {w: -1}},
                                                          {"in": {w: 1}, "out": {w: -1}}]})
    w = rng.choice([x for x in avail if x.startswith("w")])
    d["layers"].append(ramp(w, "out", rng))
    return d


def gen_deep(rng, k):
    """2-4 random layers over PE, token, token+PE and head-output dims: heads writing into PE/token dims,
    FFN units reading one or two dims and writing into their own inputs; facts checked without certifying."""
    d, tokens, pes = skeleton(rng, k, "deep", extra_dims=("w0", "w1", "w2", "out"), token_pe=rng.random() < 0.5)
    extra = ["tp"] if "tp" in d["dims"] else []
    written = []
    for L in range(rng.randint(2, 4)):
        pool = tokens + pes + extra + written
        if rng.random() < 0.6:
            heads = []
            for h in range(rng.choice([1, 1, 2, 3])):
                score = [[rng.choice(["one", "one"] + pool), rng.choice(pool), rng.choice(COEF)] for _ in range(rng.randint(1, 3))]
                out = rng.choice(["w0", "w1", "w2", "w0", "w1"] + pes + tokens[:1])
                heads.append({"name": f"h{L}{h}", "hard": rng.choice(["average", "average", "leftmost", "rightmost"]),
                              "visible": rng.choice(VIS), "score": score,
                              "value": [[out, rng.choice(pool), rng.choice(["1", "-1", "1/2", "2"])]]})
            d["layers"].append({"type": "attention", "heads": heads})
            written += [hd["value"][0][0] for hd in heads if hd["value"][0][0] not in written]
        else:
            units = []
            for _ in range(rng.randint(1, 4)):
                ins = {x: rng.choice(["1", "-1", "2", "1/2", "4", "-3"]) for x in rng.sample(pool, min(len(pool), rng.choice([1, 1, 2])))}
                tgt = rng.choice(list(ins) + ["w0", "w1", "w2"])
                units.append({"in": ins, "bias": rng.choice(["0", "-1", "1", "-1/2", "1/3", "-2", "3", "-1/7"]),
                              "out": {tgt: rng.choice(["1", "-1", "2", "-1/2"])}})
            d["layers"].append({"type": "ffn", "hidden": units})
            written += [x for u in units for x in u["out"] if x not in written]
    d["layers"].append(ramp(rng.choice(written or ["w0"]), "out", rng))
    return d


GENERATORS = {"pe_classes": gen_pe_classes, "ffn_hull": gen_ffn_hull, "query_box": gen_query_box,
              "own_key": gen_own_key, "multi": gen_multi, "deep": gen_deep}
