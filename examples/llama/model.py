"""A Llama-style decoder's training step, written once as a list of einsum,
elementwise and reduction ops, which this module prints as upstream MLIR
(linalg.generic, tensor, arith, math, with `shard` annotations on the
weights) and evaluates with numpy.

The step is the forward of L decoder layers (RMSNorm, grouped-query attention
with rotary embeddings and a causal softmax, SwiGLU MLP, residual adds), the
loss mean(x_L^2), and the backward, written out as autograd would emit it.
It returns the loss and every weight's gradient.

Weights are laid out per head, as scan-over-layers frameworks keep them
(Flax's DenseGeneral): Wq [D, Hkv, G, 2, E/2], Wk and Wv [D, Hkv, 2, E/2],
Wo [Hkv, G, 2, E/2, D]. The head dim is stored as (half, index) so that the
rotary embedding's rotate-half is a 2x2 rotation per index. Megatron's
sharding splits the kv heads of the attention weights and the FFN width of
the MLP; everything else is replicated.
"""
import re

import numpy as np

EPS = 1e-5


class Value:
    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype


def tensor_type(shape, dtype):
    return "tensor<" + "".join(f"{n}x" for n in shape) + dtype + ">"


class Scalar:
    """A scalar inside a linalg.generic body: arithmetic on it prints f32 ops
    into the body, so one Python expression is both the MLIR body and, on
    numpy arrays, the reference."""

    def __init__(self, body, name):
        self.body, self.name = body, name

    def _op(self, op, other, swap=False):
        other = self.body.lift(other)
        a, b = (other, self) if swap else (self, other)
        return self.body.emit(f"arith.{op} {a.name}, {b.name} : f32")

    def __add__(self, o): return self._op("addf", o)
    def __radd__(self, o): return self._op("addf", o, True)
    def __sub__(self, o): return self._op("subf", o)
    def __rsub__(self, o): return self._op("subf", o, True)
    def __mul__(self, o): return self._op("mulf", o)
    def __rmul__(self, o): return self._op("mulf", o, True)
    def __truediv__(self, o): return self._op("divf", o)
    def __rtruediv__(self, o): return self._op("divf", o, True)
    def __neg__(self): return self.body.emit(f"arith.negf {self.name} : f32")


class Body:
    def __init__(self):
        self.lines, self.count = [], 0

    def emit(self, text):
        self.count += 1
        name = f"%_b{self.count}"
        self.lines.append(f"    {name} = {text}")
        return Scalar(self, name)

    def lift(self, x):
        if isinstance(x, Scalar):
            return x
        return self.emit(f"arith.constant {float(x):.9e} : f32")


class MathOps:
    """exp and rsqrt for bodies (on Scalar) and for numpy (on arrays)."""

    @staticmethod
    def exp(x):
        return x.body.emit(f"math.exp {x.name} : f32") if isinstance(x, Scalar) else np.exp(x)

    @staticmethod
    def rsqrt(x):
        return (x.body.emit(f"math.rsqrt {x.name} : f32") if isinstance(x, Scalar)
                else 1.0 / np.sqrt(x))


def silu(a):
    return a / (1.0 + MathOps.exp(-a))


def silu_grad(a):
    """d silu / da = s (1 + a (1 - s)), s = sigmoid(a)."""
    s = 1.0 / (1.0 + MathOps.exp(-a))
    return s * (1.0 + a * (1.0 - s))


class Program:
    """The op list, its MLIR text and its numpy evaluation. `dtype` is the
    element type of every stored tensor; bodies compute in f32, and
    reductions accumulate into f32 tensors."""

    def __init__(self, dtype, ranks):
        self.dtype, self.ranks = dtype, ranks
        self.args, self.results, self.ops, self.lines = [], [], [], []
        self.count = 0
        self.sharded = {}  # argument name -> split dim
        self.named_splits = set()  # shardings raw lines refer to by name
        self.sequence_parallel = False  # whether gathered() annotates
        # Annotate replicated results too (a called function's results must
        # be what its callers' annotations say).
        self.annotate_results = False

    def _new(self, shape, dtype=None):
        self.count += 1
        return Value(f"%v{self.count}", shape, dtype or self.dtype)

    def arg(self, name, shape, split=None, dtype=None):
        v = Value(f"%{name}", shape, dtype or self.dtype)
        self.args.append((v, split))
        if split is not None:
            self.sharded[name] = split
        return v

    def _maps(self, loops, operands):
        dims = ", ".join(loops)
        return ", ".join(f"affine_map<({dims}) -> ({', '.join(o)})>" for o in operands)

    def _generic(self, loops, kinds, lettered_ins, out_letters, out, init, body_lines,
                 yield_name):
        maps = self._maps(loops, [letters for letters, _ in lettered_ins] + [out_letters])
        ins = [v for _, v in lettered_ins]
        its = ", ".join(f'"{k}"' for k in kinds)
        self.lines.append(
            f"  {out.name} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
            f"ins({', '.join(v.name for v in ins)} : "
            f"{', '.join(tensor_type(v.shape, v.dtype) for v in ins)}) "
            f"outs({init} : {tensor_type(out.shape, out.dtype)}) {{")
        args = ", ".join(f"%_a{i}: {v.dtype}" for i, v in enumerate(ins))
        self.lines.append(f"  ^bb0({args}, %_acc: {out.dtype}):")
        self.lines += body_lines
        self.lines.append(f"    linalg.yield {yield_name} : {out.dtype}")
        self.lines.append(f"  }} -> {tensor_type(out.shape, out.dtype)}")

    def _filled(self, shape, dtype, value):
        self.count += 1
        empty, const, fill = (f"%v{self.count}e", f"%v{self.count}c", f"%v{self.count}f")
        self.lines += [
            f"  {empty} = tensor.empty() : {tensor_type(shape, dtype)}",
            f"  {const} = arith.constant {value} : {dtype}",
            f"  {fill} = linalg.fill ins({const} : {dtype}) outs({empty} : "
            f"{tensor_type(shape, dtype)}) -> {tensor_type(shape, dtype)}"]
        return fill

    @staticmethod
    def _sizes(letter_lists, values):
        sizes = {}
        for letters, v in zip(letter_lists, values):
            assert len(letters) == len(v.shape), (letters, v.shape)
            sizes.update(zip(letters, v.shape))
        return sizes

    def einsum(self, spec, a, b, dtype=None):
        """A contraction written as np.einsum's `spec`, accumulated in its
        result type: the stored type (as a matmul is), or `dtype` (f32), to
        which bf16 inputs are extended."""
        ins_spec, out_letters = spec.split("->")
        la, lb = ins_spec.split(",")
        sizes = self._sizes([la, lb], [a, b])
        loops = list(out_letters) + [c for c in dict.fromkeys(la + lb) if c not in out_letters]
        out = self._new([sizes[c] for c in out_letters], dtype)
        init = self._filled(out.shape, out.dtype, "0.0")
        body, operands = [], []
        for i, v in enumerate([a, b]):
            if v.dtype == out.dtype:
                operands.append(f"%_a{i}")
            else:
                assert out.dtype == "f32", (v.dtype, out.dtype)
                body.append(f"    %_e{i} = arith.extf %_a{i} : {v.dtype} to f32")
                operands.append(f"%_e{i}")
        body += [f"    %_m = arith.mulf {operands[0]}, {operands[1]} : {out.dtype}",
                 f"    %_s = arith.addf %_acc, %_m : {out.dtype}"]
        self._generic(loops, ["parallel" if c in out_letters else "reduction" for c in loops],
                      [(la, a), (lb, b)], out_letters, out, init, body, "%_s")
        self.ops.append(("einsum", spec, [a, b], out))
        return out

    def cast(self, x, letters, dtype):
        """x stored as `dtype` (nothing when it already is)."""
        if x.dtype == dtype:
            return x
        return self.pointwise(f"{letters}->{letters}", lambda u: u, x, dtype=dtype)

    def pointwise(self, spec, fn, *ins, dtype=None):
        """out = fn(ins...) elementwise, as np.einsum's `spec` names the dims:
        each input is broadcast along the output dims it lacks."""
        ins_spec, out_letters = spec.split("->")
        letters = ins_spec.split(",")
        sizes = self._sizes(letters, ins)
        out = self._new([sizes[c] for c in out_letters], dtype)
        body = Body()
        scalars = []
        for i, v in enumerate(ins):
            if v.dtype == "f32":
                scalars.append(Scalar(body, f"%_a{i}"))
            else:
                scalars.append(body.emit(f"arith.extf %_a{i} : {v.dtype} to f32"))
        result = body.lift(fn(*scalars))
        name = result.name
        if out.dtype != "f32":
            name = body.emit(f"arith.truncf {name} : f32 to {out.dtype}").name
        self.count += 1
        empty = f"%v{self.count}e"
        self.lines.append(f"  {empty} = tensor.empty() : {tensor_type(out.shape, out.dtype)}")
        self._generic(list(out_letters), ["parallel"] * len(out_letters),
                      list(zip(letters, ins)), out_letters, out, empty, body.lines, name)
        self.ops.append(("pointwise", (spec, fn), list(ins), out))
        return out

    def reduce(self, spec, kind, x, extra=None):
        """Sum or max of x over the dims `spec`'s output lacks, into f32.
        `extra` sizes an output dim x lacks (a 1-element result)."""
        lx, out_letters = spec.split("->")
        sizes = self._sizes([lx], [x])
        sizes.update(extra or {})
        out = self._new([sizes[c] for c in out_letters], "f32")
        loops = list(out_letters) + [c for c in lx if c not in out_letters]
        init = self._filled(out.shape, "f32", "0.0" if kind == "sum" else "0xFF800000")
        value = "%_a0" if x.dtype == "f32" else "%_x"
        body = [] if x.dtype == "f32" else [f"    %_x = arith.extf %_a0 : {x.dtype} to f32"]
        op = "addf" if kind == "sum" else "maximumf"
        body.append(f"    %_r = arith.{op} %_acc, {value} : f32")
        self._generic(loops, ["parallel" if c in out_letters else "reduction" for c in loops],
                      [(lx, x)], out_letters, out, init, body, "%_r")
        self.ops.append(("reduce", (spec, kind), [x], out))
        return out

    def gathered(self, x):
        """x, which the sequence-parallel form splits on its rows (dim 0), as
        a replicated operand: the all-gather Megatron puts before a
        column-parallel matmul, written as an annotation for upstream's
        partitioner (whose propagation does not find it by itself). The
        unsplit form reads x as it is."""
        if not self.sequence_parallel:
            return x
        self.count += 1
        out = Value(f"{x.name}_g{self.count}", x.shape, x.dtype)
        rep = self.sharding_name(None)
        self.lines.append(f"  {out.name} = shard.shard ANNOTATED({x.name}) to {rep} "
                          f"annotate_for_users : {tensor_type(x.shape, x.dtype)}")
        self.ops.append(("alias", None, [x], out))
        return out

    def sharding_name(self, split):
        """The name text() gives the sharding that splits dim `split` (None:
        replicated), for lines written by hand."""
        self.named_splits.add(split)
        return "%replicated" if split is None else f"%split{split}"

    def result(self, value, split=None):
        self.results.append((value, split))

    # numpy ------------------------------------------------------------------

    def evaluate(self, inputs):
        """The step in float64 on {argument name: array}; returns the results."""
        env = {v.name: inputs[v.name[1:]].astype(np.float64) for v, _ in self.args}
        for kind, what, ins, out in self.ops:
            vals = [env[v.name] for v in ins]
            if kind == "alias":
                env[out.name] = vals[0]
            elif kind == "einsum":
                env[out.name] = np.einsum(what, *vals)
            elif kind == "pointwise":
                spec, fn = what
                ins_spec, out_letters = spec.split("->")
                env[out.name] = fn(*[broadcast(x, letters, out_letters)
                                     for x, letters in zip(vals, ins_spec.split(","))])
                env[out.name] = np.broadcast_to(env[out.name], out.shape)
            else:
                spec, how = what
                lx, out_letters = spec.split("->")
                axes = tuple(i for i, c in enumerate(lx) if c not in out_letters)
                r = vals[0].sum(axis=axes) if how == "sum" else vals[0].max(axis=axes)
                env[out.name] = np.reshape(r, out.shape)
        return [env[v.name] for v, _ in self.results]

    # MLIR -------------------------------------------------------------------

    def text(self, name="step", grid=True, private=False):
        """The function; `grid` prints the grid it is sharded on first."""
        head = [f"shard.grid @tp(shape = {self.ranks})"] if grid else []
        # A replicated argument is the same on every rank: tp-sequence-parallel
        # may then move the glue reading it onto this rank's rows.
        args = ", ".join(f"{v.name}: {tensor_type(v.shape, v.dtype)}"
                         + (" {tp.replicated}" if split is None else "")
                         for v, split in self.args)
        rets = ", ".join(tensor_type(v.shape, v.dtype) for v, _ in self.results)
        body = []
        splits = {}

        def sharding(rank, split):
            if split not in splits:
                axes = "[]" if split is None else ", ".join(["[]"] * split + ["[0]"])
                name = "%replicated" if split is None else f"%split{split}"
                splits[split] = name
                body.append(f"  {name} = shard.sharding @tp split_axes = [{axes}] "
                            ": !shard.sharding")
            return splits[split]

        for split in sorted(self.named_splits, key=lambda d: -1 if d is None else d):
            sharding(0, split)
        # Every argument is annotated, replicated unless split: upstream's
        # partitioner needs a sharding for each block argument.
        renamed = {}
        for v, split in self.args:
            s = sharding(len(v.shape), split)
            t = tensor_type(v.shape, v.dtype)
            body.append(f"  {v.name}_s = shard.shard {v.name} to {s} : {t}")
            body.append(f"  {v.name}_u = shard.shard {v.name}_s to {s} annotate_for_users : {t}")
            renamed[v.name] = f"{v.name}_u"
        # Renaming is one pass over the lines (a deep model has thousands of
        # names and lines): each line from the first that reads the new name.
        out = [rename_names(line, renamed) for line in self.lines]
        returns = []
        annotated_results = []
        annotations = {}  # the index of a line -> the annotations after it
        renamed_after = {}  # the index of a line -> {name: its new name} below it
        definitions = definition_ends(out)
        for v, split in self.results:
            if v.name in renamed or (split is None and not self.annotate_results):
                # An argument returned keeps the argument's annotation.
                returns.append(renamed.get(v.name, v.name))
                continue
            s = sharding(len(v.shape), split)
            t = tensor_type(v.shape, v.dtype)
            # Annotated as an argument is, right after the value's op, and
            # every later use reads the annotation.
            end = definitions[v.name]
            renamed_after.setdefault(end, {})[v.name] = f"{v.name}_u"
            annotations.setdefault(end, []).extend([
                f"  {v.name}_r = shard.shard {v.name} to {s} : {t}",
                f"  {v.name}_u = shard.shard {v.name}_r to {s} annotate_for_users : {t}"])
            returns.append(f"{v.name}_u")
            annotated_results.append(v)
        if annotations:
            active = {}
            annotated_out = []
            for i, line in enumerate(out):
                annotated_out.append(rename_names(line, active) if active else line)
                annotated_out.extend(annotations.get(i, []))
                active.update(renamed_after.get(i, {}))
            out = annotated_out
        out.append(f"  return {', '.join(returns)} : {rets}")
        # gathered() reshards the value's own annotation: an argument's, or
        # a result's (uses after a result's annotation were renamed _u).
        annotated = {v.name: f"{v.name}_s" for v, _ in self.args}
        annotated.update({v.name: f"{v.name}_r" for v in annotated_results})
        out = [re.sub(r"ANNOTATED\((%[\w]+?)(_u)?\)",
                      lambda m: annotated.get(m.group(1), m.group(1)), line) for line in out]
        visibility = "private " if private else ""
        return "\n".join(head + [f"func.func {visibility}@{name}({args}) -> ({rets}) {{"]
                         + body + out + ["}"]) + "\n"


def definition_ends(lines):
    """For each SSA name a line defines, the index of the last line of its op
    (a linalg.generic ends at its region's closing brace)."""
    ends = {}
    start = None
    for i, line in enumerate(lines):
        if start is not None:
            if line.startswith("  }"):
                ends[start] = i
                start = None
            continue
        m = re.match(r"  (%[\w$.]+) = ", line)
        if not m:
            continue
        if line.rstrip().endswith("{"):
            start = m.group(1)
        else:
            ends[m.group(1)] = i
    return ends


NAME = re.compile(r"%[\w$.]+")


def rename_names(line, renamed):
    """`line` with each SSA name in `renamed` (a whole name, not a longer
    name it starts) replaced by its new name."""
    return NAME.sub(lambda m: renamed.get(m.group(0), m.group(0)), line)


def broadcast(x, letters, out_letters):
    """x (dims `letters`) viewed with the dims of out_letters."""
    order = sorted(range(len(letters)), key=lambda i: out_letters.index(letters[i]))
    x = np.transpose(x, order)
    present = [letters[i] for i in order]
    shape = [x.shape[present.index(c)] if c in present else 1 for c in out_letters]
    return np.reshape(x, shape)
