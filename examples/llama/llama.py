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

from model import EPS, MathOps, Program, silu, silu_grad


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


def build_step(cfg, dtype, ranks):
    """The unsharded step: arguments x [S, D], the rotary table R [S, 2, 2,
    E/2], the causal mask [S, S], then each layer's weights (Config.weights);
    results: the loss by token [S], each layer's weight gradients, and the
    gradient of x."""
    p = Program(dtype, ranks)
    S, D, E2 = cfg.seq, cfg.hidden, cfg.head_dim // 2
    scale = 1.0 / np.sqrt(cfg.head_dim)
    x = p.arg("x", [S, D])
    rot = p.arg("rope", [S, 2, 2, E2])
    mask = p.arg("mask", [S, S])
    layers = [{name: p.arg(f"{name}_{l}", shape, split) for name, shape, split in cfg.weights}
              for l in range(cfg.layers)]

    saved = []
    for w in layers:
        # Attention.
        xn1, r1 = rms_norm(p, x, w["n1"], D)
        q = p.einsum("sk,khgci->shgci", xn1, w["wq"])
        k = p.einsum("sk,khci->shci", xn1, w["wk"])
        v = p.einsum("sk,khci->shci", xn1, w["wv"])
        # The attention core runs in f32 (mixed precision); what a matmul
        # reads is stored in the step's type.
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
        a = p.einsum("sk,kf->sf", xn2, w["wg"])
        b = p.einsum("sk,kf->sf", xn2, w["wu"])
        m = p.pointwise("sf,sf->sf", lambda u, v: silu(u) * v, a, b)
        x2 = add(p, x1, p.einsum("sf,fn->sn", m, w["wd"]))
        saved.append(dict(x=x, xn1=xn1, r1=r1, qr=qr, kr=kr, v=v, probs=probs, o=o,
                          x1=x1, xn2=xn2, r2=r2, a=a, b=b, m=m))
        x = x2

    count = float(S * D)
    sq = p.pointwise("sd->sd", lambda u: u * u, x)
    # The loss by token: upstream's partitioner cannot shard a reduction into
    # a dim its input lacks, so the sum of these S terms is left to the reader.
    p.result(p.reduce("sd->s", "sum", p.pointwise("sd->sd", lambda u: u / count, sq)))
    dx = p.pointwise("sd->sd", lambda u: 2.0 * u / count, x)

    grads = []
    for w, f in reversed(list(zip(layers, saved))):
        g = {}
        # MLP.
        dm = p.einsum("sn,fn->sf", dx, w["wd"])
        g["wd"] = p.einsum("sf,sn->fn", f["m"], dx)
        da = p.pointwise("sf,sf,sf->sf", lambda d, u, v: d * v * silu_grad(u), dm, f["a"], f["b"])
        db = p.pointwise("sf,sf->sf", lambda d, u: d * silu(u), dm, f["a"])
        g["wg"] = p.einsum("sk,sf->kf", f["xn2"], da)
        g["wu"] = p.einsum("sk,sf->kf", f["xn2"], db)
        dxn2 = add(p, p.einsum("sf,kf->sk", da, w["wg"]), p.einsum("sf,kf->sk", db, w["wu"]))
        dnorm, g["n2"] = rms_norm_backward(p, dxn2, f["x1"], w["n2"], f["r2"], D)
        dx1 = add(p, dx, dnorm)
        # Attention.
        do = p.einsum("sn,hgcin->shgci", dx1, w["wo"])
        g["wo"] = p.einsum("shgci,sn->hgcin", f["o"], dx1)
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
        g["wq"] = p.einsum("sk,shgci->khgci", f["xn1"], dq)
        g["wk"] = p.einsum("sk,shci->khci", f["xn1"], dk)
        g["wv"] = p.einsum("sk,shci->khci", f["xn1"], dv)
        dxn1 = add(p, add(p, p.einsum("shgci,khgci->sk", dq, w["wq"]),
                          p.einsum("shci,khci->sk", dk, w["wk"])),
                   p.einsum("shci,khci->sk", dv, w["wv"]))
        dnorm, g["n1"] = rms_norm_backward(p, dxn1, f["x"], w["n1"], f["r1"], D)
        dx = add(p, dx1, dnorm)
        grads.append(g)
    for g in reversed(grads):
        for name, _, split in cfg.weights:
            p.result(g[name], split)
    p.result(dx)
    return p


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
    args = parser.parse_args()
    cfg = config_of(args)
    if args.check_gradients:
        loss_error, grad_error = check_gradients(cfg)
        print(f"loss vs independent forward: {loss_error:.1e}; "
              f"gradients vs finite differences: {grad_error:.1e}")
        sys.exit(0 if loss_error < 1e-6 and grad_error < 1e-4 else 1)
    sys.stdout.write(build_step(cfg, args.dtype, args.ranks).text())


if __name__ == "__main__":
    main()
