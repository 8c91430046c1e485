"""The Llama-style training step (model.Program), its inputs, and an
independent numpy forward that checks the step's loss.

    python3 llama.py [--layers 4] [--hidden 256] ... [--dtype f32] [--ranks 8]
        prints the unsharded, annotated step as MLIR
    python3 llama.py --check-gradients
        checks the step's gradients against finite differences of its loss,
        and its loss against the independent forward (float64, numpy)
"""
import argparse
import sys
from dataclasses import dataclass

import numpy as np

from model import EPS, MathOps, Program, Value, silu, silu_grad, tensor_type


@dataclass
class Config:
    layers: int = 4
    seq: int = 32
    hidden: int = 256     # D
    kv_heads: int = 8     # Hkv: the heads sharded across ranks
    group: int = 2        # G: query heads per kv head
    head_dim: int = 16    # E, stored as (2, E/2)
    ffn: int = 512        # F

    @property
    def weights(self):
        """Each layer's weights: name, shape, the dim Megatron splits."""
        d, h, g, e2, f = self.hidden, self.kv_heads, self.group, self.head_dim // 2, self.ffn
        return [("n1", [d], None), ("wq", [d, h, g, 2, e2], 1), ("wk", [d, h, 2, e2], 1),
                ("wv", [d, h, 2, e2], 1), ("wo", [h, g, 2, e2, d], 0), ("n2", [d], None),
                ("wg", [d, f], 1), ("wu", [d, f], 1), ("wd", [f, d], 0)]


def rms_norm(p, x, w, hidden):
    """y = x * rsqrt(mean(x^2) + eps) * w; returns y and the row scale."""
    sq = p.reduce("sd->s", "sum", p.pointwise("sd->sd", lambda a: a * a, x))
    scale = p.pointwise("s->s", lambda r: MathOps.rsqrt(r / hidden + EPS), sq, dtype="f32")
    return p.pointwise("sd,s,d->sd", lambda a, r, b: a * r * b, x, scale, w), scale


def rms_norm_backward(p, dy, x, w, scale, hidden):
    """dx and dw of rms_norm, with r = scale:
    dx = r w dy - x r^3 / D * sum_d(w dy x); dw = sum_s(dy x r)."""
    dw = p.cast(p.reduce("sd->d", "sum", p.pointwise("sd,sd,s->sd", lambda g, a, r: g * a * r,
                                                       dy, x, scale)), "d", p.dtype)
    dot = p.reduce("sd->s", "sum", p.pointwise("sd,d,sd->sd", lambda g, b, a: g * b * a,
                                                 dy, w, x))
    dx = p.pointwise("sd,d,sd,s,s->sd",
                     lambda g, b, a, r, t: r * b * g - a * r * r * r * t / hidden,
                     dy, w, x, scale, dot)
    return dx, dw


def add(p, a, b):
    return p.pointwise("sd,sd->sd", lambda u, v: u + v, a, b)


# What each layer's forward keeps for its backward, and the dim Megatron's
# sharding splits (None: replicated): heads for the attention's, the FFN
# width for the MLP's.
SAVED = [("x", None), ("xn1", None), ("r1", None), ("qr", 1), ("kr", 1), ("v", 1),
         ("probs", 0), ("o", 1), ("x1", None), ("xn2", None), ("r2", None), ("a", 1),
         ("b", 1), ("m", 1)]


# The values on the residual stream's rows: the layer's input, the norms'
# outputs and row scales, and the attention block's output.
ROW_VALUES = ("x", "xn1", "r1", "x1", "xn2", "r2")


def layer_forward(p, cfg, x, rot, mask, w):
    """One decoder layer; returns its output and what the backward keeps."""
    D = cfg.hidden
    scale = 1.0 / np.sqrt(cfg.head_dim)
    # Attention.
    xn1, r1 = rms_norm(p, x, w["n1"], D)
    rows = p.gathered(xn1)
    q = p.einsum("sk,khgci->shgci", rows, w["wq"])
    k = p.einsum("sk,khci->shci", rows, w["wk"])
    v = p.einsum("sk,khci->shci", rows, w["wv"])
    # The attention core runs in f32 (mixed precision); what a matmul reads
    # is stored in the step's type.
    qr = p.einsum("shgxi,scxi->shgci", q, rot, dtype="f32")
    kr = p.einsum("shxi,scxi->shci", k, rot, dtype="f32")
    scores = p.einsum("shgci,thci->hgst", qr, kr, dtype="f32")
    z = p.pointwise("hgst,st->hgst", lambda a, m: a * scale + m, scores, mask, dtype="f32")
    zmax = p.reduce("hgst->hgs", "max", z)
    e = p.pointwise("hgst,hgs->hgst", lambda a, m: MathOps.exp(a - m), z, zmax, dtype="f32")
    total = p.reduce("hgst->hgs", "sum", e)
    probs = p.pointwise("hgst,hgs->hgst", lambda a, t: a / t, e, total, dtype="f32")
    o = p.cast(p.einsum("hgst,thci->shgci", probs, v, dtype="f32"), "shgci", p.dtype)
    x1 = add(p, x, p.einsum("shgci,hgcin->sn", o, w["wo"]))
    # MLP.
    xn2, r2 = rms_norm(p, x1, w["n2"], D)
    rows = p.gathered(xn2)
    a = p.einsum("sk,kf->sf", rows, w["wg"])
    b = p.einsum("sk,kf->sf", rows, w["wu"])
    m = p.pointwise("sf,sf->sf", lambda u, v: silu(u) * v, a, b)
    x2 = add(p, x1, p.einsum("sf,fn->sn", m, w["wd"]))
    return x2, dict(x=x, xn1=xn1, r1=r1, qr=qr, kr=kr, v=v, probs=probs, o=o,
                    x1=x1, xn2=xn2, r2=r2, a=a, b=b, m=m)


def layer_backward(p, cfg, dx, rot, w, f):
    """The layer's backward from its output's gradient `dx` and what its
    forward kept (`f`); returns the input's gradient and the weights'."""
    D = cfg.hidden
    scale = 1.0 / np.sqrt(cfg.head_dim)
    g = {}
    # MLP.
    rows = p.gathered(dx)
    dm = p.einsum("sn,fn->sf", rows, w["wd"])
    g["wd"] = p.einsum("sf,sn->fn", f["m"], rows)
    da = p.pointwise("sf,sf,sf->sf", lambda d, u, v: d * v * silu_grad(u), dm, f["a"], f["b"])
    db = p.pointwise("sf,sf->sf", lambda d, u: d * silu(u), dm, f["a"])
    rows = p.gathered(f["xn2"])
    g["wg"] = p.einsum("sk,sf->kf", rows, da)
    g["wu"] = p.einsum("sk,sf->kf", rows, db)
    dxn2 = add(p, p.einsum("sf,kf->sk", da, w["wg"]), p.einsum("sf,kf->sk", db, w["wu"]))
    dnorm, g["n2"] = rms_norm_backward(p, dxn2, f["x1"], w["n2"], f["r2"], D)
    dx1 = add(p, dx, dnorm)
    # Attention.
    rows = p.gathered(dx1)
    do = p.einsum("sn,hgcin->shgci", rows, w["wo"])
    g["wo"] = p.einsum("shgci,sn->hgcin", f["o"], rows)
    dprobs = p.einsum("shgci,thci->hgst", do, f["v"], dtype="f32")
    dv = p.cast(p.einsum("hgst,shgci->thci", f["probs"], do, dtype="f32"), "thci", p.dtype)
    rowdot = p.reduce("hgst->hgs", "sum",
                      p.pointwise("hgst,hgst->hgst", lambda d, q: d * q, dprobs, f["probs"],
                                  dtype="f32"))
    dscores = p.pointwise("hgst,hgst,hgs->hgst", lambda q, d, r: q * (d - r) * scale,
                          f["probs"], dprobs, rowdot, dtype="f32")
    dqr = p.einsum("hgst,thci->shgci", dscores, f["kr"], dtype="f32")
    dkr = p.einsum("hgst,shgci->thci", dscores, f["qr"], dtype="f32")
    dq = p.cast(p.einsum("shgci,scxi->shgxi", dqr, rot, dtype="f32"), "shgxi", p.dtype)
    dk = p.cast(p.einsum("shci,scxi->shxi", dkr, rot, dtype="f32"), "shci", p.dtype)
    rows = p.gathered(f["xn1"])
    g["wq"] = p.einsum("sk,shgci->khgci", rows, dq)
    g["wk"] = p.einsum("sk,shci->khci", rows, dk)
    g["wv"] = p.einsum("sk,shci->khci", rows, dv)
    dxn1 = add(p, add(p, p.einsum("shgci,khgci->sk", dq, w["wq"]),
                      p.einsum("shci,khci->sk", dk, w["wk"])),
               p.einsum("shci,khci->sk", dv, w["wv"]))
    dnorm, g["n1"] = rms_norm_backward(p, dxn1, f["x"], w["n1"], f["r1"], D)
    return add(p, dx1, dnorm), g


def loss_and_gradient(p, cfg, x):
    """The loss by token, as a result, and its gradient with respect to x.
    Upstream's partitioner cannot shard a reduction into a dim its input
    lacks, so the sum of the S terms is left to the reader."""
    count = float(cfg.seq * cfg.hidden)
    sq = p.pointwise("sd->sd", lambda u: u * u, x)
    p.result(p.reduce("sd->s", "sum", p.pointwise("sd->sd", lambda u: u / count, sq)))
    return p.pointwise("sd->sd", lambda u: 2.0 * u / count, x)


def build_step(cfg, dtype, ranks):
    """The unsharded step, layers unrolled: arguments x [S, D], the rotary
    table R [S, 2, 2, E/2], the causal mask [S, S], then each layer's weights
    (Config.weights); results: the loss by token [S], each layer's weight
    gradients, and the gradient of x."""
    p = Program(dtype, ranks)
    S, D, E2 = cfg.seq, cfg.hidden, cfg.head_dim // 2
    x = p.arg("x", [S, D])
    rot = p.arg("rope", [S, 2, 2, E2])
    mask = p.arg("mask", [S, S])
    layers = [{name: p.arg(f"{name}_{l}", shape, split) for name, shape, split in cfg.weights}
              for l in range(cfg.layers)]
    saved = []
    for w in layers:
        x, kept = layer_forward(p, cfg, x, rot, mask, w)
        saved.append(kept)
    dx = loss_and_gradient(p, cfg, x)
    grads = []
    for w, f in reversed(list(zip(layers, saved))):
        dx, g = layer_backward(p, cfg, dx, rot, w, f)
        grads.append(g)
    for g in reversed(grads):
        for name, _, split in cfg.weights:
            p.result(g[name], split)
    p.result(dx)
    return p


class LoopedStep:
    """The step as scan-over-layers frameworks write it: each weight stacked
    [L, ...], one scf.for over the layers forward and one back, each calling
    a layer function on layer l's slices; the activations the backward keeps
    and the weight gradients are stacked [L, ...] by the loops.

    The layer functions carry the weights' annotations, as the unrolled step
    does; the step annotates its arguments and, as JAX asks of a scan's
    carry, the values the loops carry and the results of the calls. It has
    the interface run.py uses: args, results, text(), evaluate(), and
    stacked() to lay out the unrolled step's inputs."""

    def __init__(self, cfg, dtype, ranks, sequence_parallel=False):
        self.cfg, self.dtype, self.ranks = cfg, dtype, ranks
        # The residual stream between layers, and its gradient: replicated,
        # or split on the tokens (Megatron's sequence parallelism).
        self.stream = 0 if sequence_parallel else None
        # With the stream split on the tokens, so is the glue on it (the
        # norms' inputs, scales and outputs), as Megatron keeps them.
        self.saved = [(n, self.stream if n in ROW_VALUES else split) for n, split in SAVED]
        self.unrolled = build_step(cfg, dtype, ranks)  # the same arithmetic
        self.forward, kept = self._layer_forward()
        self.backward, grads = self._layer_backward(kept)

        L, S, D = cfg.layers, cfg.seq, cfg.hidden
        self.step = p = Program(dtype, ranks)
        x = p.arg("x", [S, D], self.stream)
        rot = p.arg("rope", [S, 2, 2, cfg.head_dim // 2])
        mask = p.arg("mask", [S, S])
        weights = [p.arg(name, [L] + shape, None if split is None else split + 1)
                   for name, shape, split in cfg.weights]
        x_last, *stacks = self._loop(
            "fwd", "@layer_forward", carried=[(x, self.stream)], passed=[rot, mask],
            sliced=weights, stacked=[(kept[n], split) for n, split in self.saved])
        dx = loss_and_gradient(p, cfg, x_last)
        dx_first, *stacked_grads = self._loop(
            "bwd", "@layer_backward", carried=[(dx, self.stream)], passed=[rot],
            sliced=stacks + weights,
            stacked=[(grads[n], split) for n, _, split in cfg.weights], reverse=True)
        for v in stacked_grads + [dx_first]:
            p.result(v)
        self.args = p.args
        # The loss by token is split as the stream is; each weight's gradient
        # as the weight is, one dim on.
        self.results = ([(p.results[0][0], self.stream)]
                        + [(v, None if split is None else split + 1)
                           for v, (_, _, split) in zip(stacked_grads, cfg.weights)]
                        + [(dx_first, self.stream)])

    def _layer_program(self):
        p = Program(self.dtype, self.ranks)
        p.annotate_results = True
        p.sequence_parallel = self.stream == 0
        return p

    def _layer_forward(self):
        """@layer_forward: (x, rope, mask, weights) -> (output, kept...)."""
        cfg, p = self.cfg, self._layer_program()
        x = p.arg("x", [cfg.seq, cfg.hidden], self.stream)
        rot = p.arg("rope", [cfg.seq, 2, 2, cfg.head_dim // 2])
        mask = p.arg("mask", [cfg.seq, cfg.seq])
        w = {name: p.arg(name, shape, split) for name, shape, split in cfg.weights}
        out, kept = layer_forward(p, cfg, x, rot, mask, w)
        p.result(out, self.stream)
        for name, split in self.saved:
            p.result(kept[name], split)
        return p, kept

    def _layer_backward(self, kept):
        """@layer_backward: (d output, rope, kept..., weights) -> (d input,
        weight gradients...)."""
        cfg, p = self.cfg, self._layer_program()
        dx = p.arg("dx", [cfg.seq, cfg.hidden], self.stream)
        rot = p.arg("rope", [cfg.seq, 2, 2, cfg.head_dim // 2])
        f = {name: p.arg(name, kept[name].shape, split, kept[name].dtype)
             for name, split in self.saved}
        w = {name: p.arg("w" + name, shape, split) for name, shape, split in cfg.weights}
        din, grads = layer_backward(p, cfg, dx, rot, w, f)
        p.result(din, self.stream)
        for name, _, split in cfg.weights:
            p.result(grads[name], split)
        return p, grads

    def _loop(self, tag, callee, carried, passed, sliced, stacked, reverse=False):
        """Writes one loop over the layers into the step: it carries
        `carried` ([(value, split)]), calls `callee` on the carried values,
        `passed` and layer l's slices of the stacked tensors `sliced`, carries
        the call's first results on and stacks the others into [L, ...]
        tensors (`stacked`: [(one layer's value, split)]). Returns the loop's
        results, annotated: the carried values, then the stacks."""
        p, L = self.step, self.cfg.layers
        lines = p.lines
        layer = f"%{tag}_i"
        inits, loop_values = [], []
        for i, (value, split) in enumerate(carried):
            lines.append(self._annotate(f"%{tag}_at{i}", value, split))
            inits.append(f"%{tag}_in{i}")
            lines.append(self._annotate(inits[-1], Value(f"%{tag}_at{i}", value.shape,
                                                         value.dtype), split, users=True))
            loop_values.append((value, split))
        for j, (one, split) in enumerate(stacked):
            whole = Value(f"%{tag}_e{j}", [L] + list(one.shape), one.dtype)
            split = None if split is None else split + 1
            lines.append(f"  {whole.name} = tensor.empty() : {type_of(whole)}")
            lines.append(self._annotate(f"%{tag}_es{j}", whole, split))
            inits.append(f"%{tag}_eu{j}")
            lines.append(self._annotate(inits[-1], Value(f"%{tag}_es{j}", whole.shape,
                                                         whole.dtype), split, users=True))
            loop_values.append((whole, split))
        iters = [f"%{tag}_it{i}" for i in range(len(inits))]
        types = ", ".join(type_of(v) for v, _ in loop_values)
        lines += [f"  %{tag}_c0 = arith.constant 0 : index",
                  f"  %{tag}_c1 = arith.constant 1 : index",
                  f"  %{tag}_cL = arith.constant {L} : index",
                  f"  %{tag}:{len(inits)} = scf.for %{tag}_i = %{tag}_c0 to %{tag}_cL step "
                  f"%{tag}_c1 iter_args({', '.join(f'{a} = {b}' for a, b in zip(iters, inits))})"
                  f" -> ({types}) {{"]
        if reverse:
            lines += [f"    %{tag}_last = arith.constant {L - 1} : index",
                      f"    %{tag}_l = arith.subi %{tag}_last, %{tag}_i : index"]
            layer = f"%{tag}_l"
        operands = [Value(iters[i], v.shape, v.dtype) for i, (v, _) in enumerate(carried)]
        operands += passed
        for k, whole in enumerate(sliced):
            one = Value(f"%{tag}_s{k}", whole.shape[1:], whole.dtype)
            lines.append(f"    {one.name} = tensor.extract_slice {whole.name}"
                         f"{slice_of(layer, one.shape)} : {type_of(whole)} to {type_of(one)}")
            operands.append(one)
        outs = list(carried) + list(stacked)
        lines.append(f"    %{tag}_r:{len(outs)} = func.call {callee}"
                     f"({', '.join(v.name for v in operands)}) : "
                     f"({', '.join(type_of(v) for v in operands)}) -> "
                     f"({', '.join(type_of(v) for v, _ in outs)})")
        yields = []
        for i, (value, split) in enumerate(outs):
            result = Value(f"%{tag}_o{i}", value.shape, value.dtype)
            lines.append("  " + self._annotate(result.name, Value(f"%{tag}_r#{i}", value.shape,
                                                                  value.dtype), split))
            if i < len(carried):
                yields.append(result.name)
                continue
            whole = loop_values[i][0]
            lines.append(f"    %{tag}_st{i} = tensor.insert_slice {result.name} into {iters[i]}"
                         f"{slice_of(layer, value.shape)} : {type_of(value)} into "
                         f"{type_of(whole)}")
            yields.append(f"%{tag}_st{i}")
        lines += [f"    scf.yield {', '.join(yields)} : {types}", "  }"]
        results = []
        for i, (value, split) in enumerate(loop_values):
            lines.append(self._annotate(f"%{tag}_res{i}", Value(f"%{tag}#{i}", value.shape,
                                                                value.dtype), split))
            lines.append(self._annotate(f"%{tag}_use{i}", Value(f"%{tag}_res{i}", value.shape,
                                                                value.dtype), split, users=True))
            results.append(Value(f"%{tag}_use{i}", value.shape, value.dtype))
        return results

    def _annotate(self, name, value, split, users=False):
        """A line annotating `value` (as `name`) with the sharding splitting
        dim `split`."""
        return (f"  {name} = shard.shard {value.name} to {self.step.sharding_name(split)}"
                f"{' annotate_for_users' if users else ''} : {type_of(value)}")

    def text(self):
        return (self.forward.text("layer_forward", private=True)
                + self.backward.text("layer_backward", grid=False, private=True)
                + self.step.text("step", grid=False))

    def stacked(self, values):
        """The step's inputs from the unrolled step's (weights named
        NAME_LAYER): each weight stacked over the layers."""
        out = {k: values[k] for k in ("x", "rope", "mask")}
        for name, _, _ in self.cfg.weights:
            out[name] = np.stack([values[f"{name}_{l}"] for l in range(self.cfg.layers)])
        return out

    def evaluate(self, values):
        """numpy's results: the unrolled step's, each weight's gradients
        stacked."""
        unrolled = {k: values[k] for k in ("x", "rope", "mask")}
        for name, _, _ in self.cfg.weights:
            for l in range(self.cfg.layers):
                unrolled[f"{name}_{l}"] = values[name][l]
        results = self.unrolled.evaluate(unrolled)
        loss, grads, dx = results[0], results[1:-1], results[-1]
        n = len(self.cfg.weights)
        stacked = [np.stack([grads[l * n + i] for l in range(self.cfg.layers)])
                   for i in range(n)]
        return [loss] + stacked + [dx]


def type_of(value):
    return tensor_type(value.shape, value.dtype)


def slice_of(layer, shape):
    """Offsets, sizes and strides of layer `layer`'s slice, shaped `shape`,
    of a tensor stacked [L, ...]."""
    rank = len(shape) + 1
    return (f"[{layer}{', 0' * (rank - 1)}] [1, {', '.join(map(str, shape))}] "
            f"[{', '.join(['1'] * rank)}]")


def inputs(cfg, rng):
    """{argument name: float32 array}: activations and weights scaled so that
    activations stay of order one through the layers."""
    S, D, E2 = cfg.seq, cfg.hidden, cfg.head_dim // 2
    pos = np.arange(S)[:, None]
    theta = pos / (10000.0 ** (np.arange(E2)[None, :] / E2))
    cos, sin = np.cos(theta), np.sin(theta)
    rot = np.zeros((S, 2, 2, E2))
    # rotate_half: (a, b) -> (a cos - b sin, b cos + a sin).
    rot[:, 0, 0], rot[:, 0, 1], rot[:, 1, 0], rot[:, 1, 1] = cos, -sin, sin, cos
    mask = np.where(np.arange(S)[None, :] > pos, -1e4, 0.0)
    values = {"x": rng.standard_normal((S, D)), "rope": rot, "mask": mask}
    for l in range(cfg.layers):
        for name, shape, _ in cfg.weights:
            if name.startswith("n"):
                values[f"{name}_{l}"] = 1.0 + 0.1 * rng.standard_normal(shape)
            else:
                fan_in = cfg.ffn if name == "wd" else (
                    cfg.kv_heads * cfg.group * cfg.head_dim if name == "wo" else D)
                values[f"{name}_{l}"] = rng.standard_normal(shape) / np.sqrt(fan_in)
    return {k: v.astype(np.float32) for k, v in values.items()}


def independent_loss(cfg, values):
    """The forward and loss written plainly with numpy (heads reshaped,
    rotate_half, a masked softmax), sharing nothing with model.Program."""
    v = {k: a.astype(np.float64) for k, a in values.items()}
    S, D, H, G, E = cfg.seq, cfg.hidden, cfg.kv_heads, cfg.group, cfg.head_dim
    x = v["x"]
    pos = np.arange(S)[:, None]
    theta = pos / (10000.0 ** (np.arange(E // 2)[None, :] / (E // 2)))

    def norm(a, w):
        return a / np.sqrt((a * a).mean(axis=1, keepdims=True) + EPS) * w

    def rope(t):  # [S, heads, E], E stored as (half, index)
        a, b = t[..., :E // 2], t[..., E // 2:]
        cos, sin = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)

    for l in range(cfg.layers):
        h = norm(x, v[f"n1_{l}"])
        q = rope((h @ v[f"wq_{l}"].reshape(D, -1)).reshape(S, H * G, E))
        k = rope((h @ v[f"wk_{l}"].reshape(D, -1)).reshape(S, H, E))
        val = (h @ v[f"wv_{l}"].reshape(D, -1)).reshape(S, H, E)
        k, val = np.repeat(k, G, axis=1), np.repeat(val, G, axis=1)
        scores = np.einsum("shd,thd->hst", q, k) / np.sqrt(E)
        scores = np.where(np.arange(S)[None, None, :] > pos[None], -np.inf, scores)
        probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
        attn = np.einsum("hst,thd->shd", probs, val).reshape(S, -1)
        x = x + attn @ v[f"wo_{l}"].reshape(-1, D)
        h = norm(x, v[f"n2_{l}"])
        a, b = h @ v[f"wg_{l}"], h @ v[f"wu_{l}"]
        x = x + (a / (1 + np.exp(-a)) * b) @ v[f"wd_{l}"]
    return (x * x).mean()


def check_gradients(cfg, seed=0, probes=24):
    """Largest relative error of (a) the step's loss against
    independent_loss, and (b) directional derivatives of the loss, from the
    step's gradients, against central finite differences."""
    step = build_step(cfg, "f32", 1)
    rng = np.random.default_rng(seed)
    values = {k: a.astype(np.float64) for k, a in inputs(cfg, rng).items()}
    results = step.evaluate(values)
    loss, grads = results[0].sum(), results[1:]
    loss_error = abs(loss - independent_loss(cfg, values)) / abs(loss)
    names = [f"{n}_{l}" for l in range(cfg.layers) for n, _, _ in cfg.weights]
    worst = 0.0
    for i in range(probes):
        name = names[i % len(names)]
        direction = rng.standard_normal(values[name].shape)
        h = 1e-5
        plus, minus = dict(values), dict(values)
        plus[name] = values[name] + h * direction
        minus[name] = values[name] - h * direction
        numeric = (independent_loss(cfg, plus) - independent_loss(cfg, minus)) / (2 * h)
        analytic = float((grads[names.index(name)] * direction).sum())
        worst = max(worst, abs(numeric - analytic) / max(abs(numeric), 1e-12))
    return loss_error, worst


def add_config(parser):
    for field, default in vars(Config()).items():
        parser.add_argument("--" + field.replace("_", "-"), type=int, default=default)


def config_of(args):
    return Config(**{f: getattr(args, f) for f in vars(Config())})


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_config(parser)
    parser.add_argument("--dtype", default="f32", choices=["f32", "bf16"])
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--check-gradients", action="store_true")
    parser.add_argument("--looped", action="store_true",
                        help="stack the weights and loop over the layers (scf.for)")
    parser.add_argument("--sequence-parallel", action="store_true",
                        help="with --looped: the residual stream between layers split "
                             "on the tokens, by annotation")
    args = parser.parse_args()
    cfg = config_of(args)
    if args.check_gradients:
        loss_error, grad_error = check_gradients(cfg)
        print(f"loss vs independent forward: {loss_error:.1e}; "
              f"gradients vs finite differences: {grad_error:.1e}")
        sys.exit(0 if loss_error < 1e-6 and grad_error < 1e-4 else 1)
    if args.looped:
        step = LoopedStep(cfg, args.dtype, args.ranks, args.sequence_parallel)
    elif args.sequence_parallel:
        sys.exit("llama.py: --sequence-parallel annotates the loop's carried values: "
                 "add --looped")
    else:
        step = build_step(cfg, args.dtype, args.ranks)
    sys.stdout.write(step.text())


if __name__ == "__main__":
    main()
