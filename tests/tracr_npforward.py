"""tracr's forward pass in plain numpy, from the export alone (copied from the fixtures'
``npforward.py``, which was checked against tracr on the stored samples), with one
addition: ``hard=True`` replaces the softmax by hardmax (uniform over tied maxima) so
that the imported hard model can be compared with the same weights at τ → 0."""
import numpy as np


def forward(spec, P, tokens, dtype=np.float64, hard=False):
    """Decoded outputs (BOS position dropped) on ``tokens`` (without the BOS)."""
    inp = spec["input"]
    arch = spec["architecture"]
    ids = [inp["bos_id"]] + [inp["token_ids"][str(t)] for t in tokens]
    T = len(ids)
    g = lambda k: P[k].astype(dtype)  # noqa: E731
    x = g(spec["embedding"]["token_embed_param"])[ids] + g(spec["embedding"]["pos_embed_param"])[np.arange(T)]
    H, ks = arch["num_heads"], arch["key_size"]
    for layer in range(arch["num_layers"]):
        m = f"transformer/layer_{layer}/attn"
        q = (x @ g(m + "/query/w") + g(m + "/query/b")).reshape(T, H, ks)
        k = (x @ g(m + "/key/w") + g(m + "/key/b")).reshape(T, H, ks)
        v = (x @ g(m + "/value/w") + g(m + "/value/b")).reshape(T, H, ks)
        logits = np.einsum("thd,Thd->htT", q, k) / np.sqrt(ks).astype(dtype)
        if hard:
            top = logits.max(-1, keepdims=True)
            # ties up to float64 rounding of the rational weights: scores differ by ≥ 1/2·coldness/sqrt(K)
            w = (logits >= top - 1e-6).astype(dtype)
        else:
            w = np.exp(logits - logits.max(-1, keepdims=True))
        w = w / w.sum(-1, keepdims=True)
        a = np.einsum("htT,Thd->thd", w, v).reshape(T, H * ks)
        x = x + (a @ g(m + "/linear/w") + g(m + "/linear/b"))
        m = f"transformer/layer_{layer}/mlp"
        h = np.maximum(x @ g(m + "/linear_1/w") + g(m + "/linear_1/b"), 0)
        x = x + (h @ g(m + "/linear_2/w") + g(m + "/linear_2/b"))
    o = spec["output"]
    y = x[:, [s["residual_index"] for s in o["space"]]]
    if o["encoding"] == "categorical":
        return [int(j) for j in np.argmax(y, axis=-1)][1:], y[1:]
    return [float(z) for z in y[1:, 0]], y[1:]
