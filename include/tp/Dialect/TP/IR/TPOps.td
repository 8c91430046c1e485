//===- TPOps.td - tp dialect operations -------------------*- tablegen -*-===//
//
// Ops are grouped as collectives, compute, quantization and fused ops. Every
// op verifies its operands; ops that name a grid verify their shapes against
// the group size in verifySymbolUses, where the grid is visible.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPOPS_TD
#define TP_DIALECT_TP_IR_TPOPS_TD

include "tp/Dialect/TP/IR/TPBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Every static tensor type of a tp op has an element count and a byte size
// that fit in int64, so shape rules and the runtime can multiply extents.
def TP_TensorSizesFit : NativeOpTrait<"TensorSizesFit"> {
  let cppNamespace = "::mlir::tp";
}

// Result dims from operand dims (ResultShapes.cpp): bufferization allocates
// results from them, upstream's shape folding sees through the op.
defvar TP_ReifiesShapes =
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                              ["reifyResultShapes"]>;

class TP_Op<string mnemonic, list<Trait> traits = []>
    : Op<TP_Dialect, mnemonic, !listconcat([TP_TensorSizesFit], traits)>;

// An op that runs on the group given by `grid` and `grid_axes`. The group
// size is only known once the grid symbol is resolved, so shape rules that
// involve it live in verifySymbolUses.
class TP_GroupOp<string mnemonic, list<Trait> traits = []>
    : TP_Op<mnemonic, !listconcat(traits,
        [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  dag groupArgs = (ins FlatSymbolRefAttr:$grid, DenseI16ArrayAttr:$grid_axes);
  code groupDecls = [{
    /// The group this op runs on, resolved against the grid symbol.
    ::mlir::FailureOr<::mlir::tp::GroupInfo> resolveGroup(
        ::mlir::SymbolTableCollection &symbolTable);
  }];
}

// Optional schedule knobs of a fused op, set by later passes or by hand: the
// algorithm, its pieces per rank (coalesced: GEMMs for the remote shards),
// and how many GPU compute streams the GEMM steps may run on at once.
defvar TP_ScheduleArgs = (ins OptionalAttr<TP_AlgorithmAttr>:$algorithm,
                             OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$chunks,
                             OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$streams);

def TP_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def TP_LowPrecisionTensor : RankedTensorOf<[F8E4M3FN, F8E5M2, F4E2M1FN]>;
def TP_ScaleTensor : RankedTensorOf<[F32, F8E8M0FNU, F8E4M3FN]>;
def TP_GlobalScaleTensor : 0DTensorOf<[F32]>;
// An f32 scalar the assembly format can build without a written type.
def TP_AmaxTensor : 0DTensorOf<[F32]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def TP_AllGatherOp : TP_GroupOp<"all_gather", [TP_ReifiesShapes]> {
  let summary = "concatenate the shards of a group along one dimension";
  let description = [{
    Every rank of the group receives the concatenation, in group-rank order, of
    all ranks' `input` along dimension `dim`: the result's `dim` is the
    input's times the group size.

    ```mlir
    %x = tp.all_gather %x_shard on @tp axes = [0] dim = 0
        : tensor<32x512xf32> -> tensor<256x512xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim));
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $grid `axes` `=` $grid_axes `dim` `=` $dim attr-dict
    `:` type($input) `->` type($result)
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_ReduceScatterOp : TP_GroupOp<"reduce_scatter", [TP_ReifiesShapes]> {
  let summary = "reduce across a group, then keep this rank's slice";
  let description = [{
    Combines the ranks' `input` element-wise with `reduce`, splits the result
    along `dim` into group-size equal slices and gives rank r the r-th.

    ```mlir
    %y = tp.reduce_scatter %partial on @tp axes = [0] dim = 0 reduce = sum
        : tensor<256x512xf32> -> tensor<32x512xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                            TP_ReductionKindAttr:$reduce));
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $grid `axes` `=` $grid_axes `dim` `=` $dim `reduce` `=` custom<EnumKeyword>($reduce)
    attr-dict `:` type($input) `->` type($result)
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_AllReduceOp : TP_GroupOp<"all_reduce", [TP_ReifiesShapes, AllTypesMatch<["input", "result"]>]> {
  let summary = "reduce across a group; every rank gets the whole result";
  let arguments = !con((ins AnyRankedTensor:$input), groupArgs,
                       (ins TP_ReductionKindAttr:$reduce));
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $grid `axes` `=` $grid_axes `reduce` `=` custom<EnumKeyword>($reduce) attr-dict
    `:` type($input)
  }];
  let extraClassDeclaration = groupDecls;
  let hasFolder = 1;
}

def TP_AllToAllOp : TP_GroupOp<"all_to_all", [TP_ReifiesShapes]> {
  let summary = "exchange blocks between the ranks of a group";
  let description = [{
    Every rank cuts its `input` along dimension `split` into group-size equal
    blocks and sends block j to group rank j; it then concatenates, in
    group-rank order, the blocks it received along dimension `concat`. With
    g the group size, the result is the input with dim `split` divided by g
    and dim `concat` multiplied by g (both at once, so unchanged, when
    `split` equals `concat`: then rank r's result is block r of every rank,
    stacked in rank order). This is upstream's `shard.all_to_all`
    (`split_axis`, `concat_axis`): moving a tensor's split from one dim to
    another, as Ulysses-style context parallelism does between sequence and
    heads.

    ```mlir
    // [S/4, H] (split on S) -> [S, H/4] (split on H)
    %y = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0
        : tensor<32x512xf32> -> tensor<128x128xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$split,
                            ConfinedAttr<I64Attr, [IntNonNegative]>:$concat));
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $grid `axes` `=` $grid_axes `split` `=` $split
    `concat` `=` $concat attr-dict `:` type($input) `->` type($result)
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_GroupRankOp : TP_GroupOp<"group_rank"> {
  let summary = "this rank's index within a group";
  let description = [{
    The linear index of this rank along `grid_axes` (row-major, last axis
    fastest), as upstream's `shard.process_linear_index` restricted to axes.
  }];
  let arguments = groupArgs;
  let results = (outs Index:$result);
  let assemblyFormat = "`on` $grid `axes` `=` $grid_axes attr-dict";
  let extraClassDeclaration = groupDecls;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def TP_MatmulOp : TP_Op<"matmul", [TP_ReifiesShapes, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "2-D matrix product, optionally with B given as [N, K]";
  let description = [{
    `result[m, n] = sum_k lhs[m, k] * rhs[k, n]`; with `transpose_b`, `rhs` is
    [N, K] (the layout of `F.linear`'s weight). Accumulates in f32 for f16 and
    bf16 inputs, rounding once to the element type.
  }];
  let arguments = (ins TP_FloatTensor:$lhs, TP_FloatTensor:$rhs,
                       UnitAttr:$transpose_b);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_b` $transpose_b^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  // A `linalg.transpose` of B (its last two dims) folds into `transpose_b`.
  let hasCanonicalizeMethod = 1;
}

def TP_BatchMatmulOp : TP_Op<"batch_matmul", [TP_ReifiesShapes, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "batched matrix product; a 2-D B is broadcast over the batch";
  let description = [{
    `lhs` is [batch, M, K]; `rhs` is [batch, K, N] or, broadcast over the
    batch, [K, N] (or [.., N, K] with `transpose_b`). This is the "bmm path"
    framework code takes for a 3-D activation.
  }];
  let arguments = (ins TP_FloatTensor:$lhs, TP_FloatTensor:$rhs,
                       UnitAttr:$transpose_b);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_b` $transpose_b^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  // A `linalg.transpose` of B (its last two dims) folds into `transpose_b`.
  let hasCanonicalizeMethod = 1;
}

def TP_BiasAddOp : TP_Op<"bias_add", [TP_ReifiesShapes, Pure,
    AllTypesMatch<["input", "result"]>, AllElementTypesMatch<["input", "bias"]>]> {
  let summary = "add a vector along the last dimension";
  let arguments = (ins TP_FloatTensor:$input, TP_FloatTensor:$bias);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $bias attr-dict `:` type($input) `,` type($bias)
  }];
  let hasVerifier = 1;
}

def TP_LinearOp : TP_GroupOp<"linear", [TP_ReifiesShapes]> {
  let summary = "a tensor-parallel linear layer y = x W^T + b";
  let description = [{
    The layer at the global view `y[..., n] = sum_k x[..., k] W[n, k] + b[n]`,
    with every operand given as this rank's local piece:

    - `column`: W is split along N; each rank holds W[N/g, K] and b[N/g].
      `input` is `replicated` or `shard(D)` with D not the last dim (the
      sequence-parallel activation, gathered before the GEMM). The output is
      `shard(R-1)` (R the rank of x): split along N.
    - `row`: W is split along K; each rank holds W[N, K/g] and the whole b.
      `input` is `shard(R-1)` (split along K). The output is `replicated`
      (all-reduce) or `shard(D)` with D not the last dim (reduce-scatter).

    `tp-lower-linear` lowers it to collectives and matmuls.
  }];
  let arguments = !con((ins TP_FloatTensor:$input, TP_FloatTensor:$weight,
                            Optional<TP_FloatTensor>:$bias),
                       groupArgs,
                       (ins TP_WeightShardingAttr:$weight_sharding,
                            TP_PlacementAttr:$input_placement,
                            TP_PlacementAttr:$output_placement));
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? `on` $grid `axes` `=` $grid_axes
    custom<EnumKeyword>($weight_sharding) `input` `=` custom<Placement>($input_placement)
    `output` `=` custom<Placement>($output_placement) attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def TP_QuantizeOp : TP_Op<"quantize", [TP_ReifiesShapes, Pure]> {
  let summary = "quantize to FP8/FP4, computing scales from the data (amax)";
  let description = [{
    Returns the low-precision data and its dequantization scales, so that
    `input ~= result * scale` (and `* global_scale` for NVFP4). Scale shapes
    for an input [..., K]:

    | mode         | data                  | scale                         | global      |
    |--------------|-----------------------|-------------------------------|-------------|
    | `per_tensor` | f8E4M3FN or f8E5M2    | tensor<f32>                   | -           |
    | `row_wise`   | f8E4M3FN or f8E5M2    | tensor<...x1xf32>             | -           |
    | `mxfp8`      | f8E4M3FN or f8E5M2    | tensor<...x(K/32)xf8E8M0FNU>  | -           |
    | `nvfp4`      | f4E2M1FN              | tensor<...x(K/16)xf8E4M3FN>   | tensor<f32> |

    With `amax` (per_tensor and nvfp4 only), the per-tensor scale (NVFP4's
    global scale) comes from that value instead of the input's own amax:
    delayed scaling, or an amax all-reduced (max) over a tensor-parallel
    group so that every rank quantizes its shard with the same scale, which
    a gathered FP8 operand needs. Elements beyond the range saturate.

    ```mlir
    %m = tp.all_reduce %local_amax on @tp axes = [0] reduce = max : tensor<f32>
    %q, %s = tp.quantize %x amax %m per_tensor
        : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<f32>
    ```
  }];
  let arguments = (ins TP_FloatTensor:$input, Optional<TP_AmaxTensor>:$amax,
                       TP_ScalingModeAttr:$mode);
  let results = (outs TP_LowPrecisionTensor:$result, TP_ScaleTensor:$scale,
                      Optional<TP_GlobalScaleTensor>:$global_scale);
  let assemblyFormat = [{
    $input (`amax` $amax^)? custom<EnumKeyword>($mode) attr-dict `:` type($input) `->` type(results)
  }];
  let hasVerifier = 1;
}

def TP_DequantizeOp : TP_Op<"dequantize", [TP_ReifiesShapes, Pure]> {
  let summary = "expand FP8/FP4 data with its scales to a float tensor";
  let arguments = (ins TP_LowPrecisionTensor:$input, TP_ScaleTensor:$scale,
                       Optional<TP_GlobalScaleTensor>:$global_scale,
                       TP_ScalingModeAttr:$mode);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $input `scale` $scale (`global` $global_scale^)? custom<EnumKeyword>($mode) attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TP_ScaledMatmulOp : TP_Op<"scaled_matmul", [TP_ReifiesShapes, Pure, AttrSizedOperandSegments]> {
  let summary = "low-precision matrix product with dequantization scales";
  let description = [{
    `result = (dequantize(a) @ dequantize(b)^T) + bias`, computed with f32
    accumulation and rounded once to the result's element type (f32, bf16 or
    f16). `a` is [M, K] and `b` is [N, K] (the layout FP8 GEMMs require), each
    quantized along K with the scales of `mode` (see `tp.quantize`). K and N
    must be multiples of 16 (FP8 GEMM alignment).
  }];
  let arguments = (ins TP_LowPrecisionTensor:$a, TP_ScaleTensor:$a_scale,
                       Optional<TP_GlobalScaleTensor>:$a_global_scale,
                       TP_LowPrecisionTensor:$b, TP_ScaleTensor:$b_scale,
                       Optional<TP_GlobalScaleTensor>:$b_global_scale,
                       Optional<TP_FloatTensor>:$bias,
                       TP_ScalingModeAttr:$mode);
  let results = (outs TP_FloatTensor:$result);
  let assemblyFormat = [{
    $a `scale` $a_scale (`global` $a_global_scale^)? `,`
    $b `scale` $b_scale (`global` $b_global_scale^)?
    (`bias` $bias^)? custom<EnumKeyword>($mode) attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused collective-matmul ops
//===----------------------------------------------------------------------===//

def TP_AllGatherMatmulOp : TP_GroupOp<"all_gather_matmul", [TP_ReifiesShapes, AttrSizedOperandSegments]> {
  let summary = "all-gather A along `dim`, multiplied by each B as it arrives";
  let description = [{
    Equal in meaning to `g = tp.all_gather a dim` followed by, for each B,
    `g @ B (+ bias)` where the leading dims of `g` act as batch dims and B is
    broadcast (B is [K, N], or [N, K] with `transpose_b`). Results: the
    gathered A first when `return_gathered` is set, then one product per B.
    Gathering the last dim (K) is allowed: each chunk is then a partial sum.

    ```mlir
    %q, %k = tp.all_gather_matmul %x, [%wq bias %bq, %wk] on @tp axes = [0]
        dim = 0 : (tensor<32x512xf32>, tensor<512x64xf32>, tensor<512x64xf32>,
                   tensor<64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>)
    ```
  }];
  let arguments = !con((ins TP_FloatTensor:$a, Variadic<TP_FloatTensor>:$bs,
                            Variadic<TP_FloatTensor>:$biases),
                       groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                            DenseBoolArrayAttr:$bias_mask,
                            UnitAttr:$transpose_b, UnitAttr:$return_gathered),
                       TP_ScheduleArgs);
  let results = (outs Variadic<TP_FloatTensor>:$results);
  let assemblyFormat = [{
    $a `,` custom<WeightList>($bs, $biases, $bias_mask) `on` $grid `axes` `=`
    $grid_axes `dim` `=` $dim (`transpose_b` $transpose_b^)?
    (`return_gathered` $return_gathered^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    /// The gathered A, when requested.
    ::mlir::Value getGathered() {
      return getReturnGathered() ? getResults().front() : ::mlir::Value();
    }
    /// One product per B, in the order of `bs`.
    ::mlir::ResultRange getProducts() {
      return getResults().drop_front(getReturnGathered() ? 1 : 0);
    }
    /// The bias of the i-th B, or null.
    ::mlir::Value getBiasOf(unsigned i);
  }];
  let hasVerifier = 1;
}

def TP_AllToAllMatmulOp : TP_GroupOp<"all_to_all_matmul", [TP_ReifiesShapes, AttrSizedOperandSegments]> {
  let summary = "all-to-all A, each arriving block multiplied by each B";
  let description = [{
    Equal in meaning to `x = tp.all_to_all a split = s concat = c` followed
    by, for each B, `x @ B (+ bias)` where the leading dims of `x` act as
    batch dims and B is broadcast (B is [K, N], or [N, K] with
    `transpose_b`). Results: the exchanged A first when `return_exchanged` is
    set, then one product per B.

    The block from group rank i lands at offset i along `concat`. When that
    is a row or batch dim of the product, each block's GEMM makes its own
    rows as soon as the block arrives (Ulysses attention's heads -> sequence
    exchange feeding a projection, tokens arriving at an expert); when it is
    the last dim (K), each block is a partial sum. Each rank sends each peer a
    different block, so the schedule is `per_peer` or `coalesced`, never
    `ring`.

    ```mlir
    // [S/4, H] split on S -> [S, H/4], times W [H/4, N]
    %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 1 concat = 0
        : (tensor<32x512xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
    ```
  }];
  let arguments = !con((ins TP_FloatTensor:$a, Variadic<TP_FloatTensor>:$bs,
                            Variadic<TP_FloatTensor>:$biases),
                       groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$split,
                            ConfinedAttr<I64Attr, [IntNonNegative]>:$concat,
                            DenseBoolArrayAttr:$bias_mask,
                            UnitAttr:$transpose_b, UnitAttr:$return_exchanged),
                       TP_ScheduleArgs);
  let results = (outs Variadic<TP_FloatTensor>:$results);
  let assemblyFormat = [{
    $a `,` custom<WeightList>($bs, $biases, $bias_mask) `on` $grid `axes` `=`
    $grid_axes `split` `=` $split `concat` `=` $concat
    (`transpose_b` $transpose_b^)? (`return_exchanged` $return_exchanged^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    /// The exchanged A, when requested.
    ::mlir::Value getExchanged() {
      return getReturnExchanged() ? getResults().front() : ::mlir::Value();
    }
    /// One product per B, in the order of `bs`.
    ::mlir::ResultRange getProducts() {
      return getResults().drop_front(getReturnExchanged() ? 1 : 0);
    }
    /// The bias of the i-th B, or null.
    ::mlir::Value getBiasOf(unsigned i);
  }];
  let hasVerifier = 1;
}

def TP_MatmulAllToAllOp : TP_GroupOp<"matmul_all_to_all", [TP_ReifiesShapes]> {
  let summary = "A @ B, each peer's block computed and sent while the next "
                "is computed";
  let description = [{
    Equal in meaning to `p = a @ b` (leading dims of `a` are batch dims; B is
    [K, N], or [N, K] with `transpose_b`, or one B per batch when it has
    `a`'s rank) followed by `tp.all_to_all p split = s concat = c`. Results:
    the product `p` first when `return_product` is set, then the exchanged
    result.

    This is a matmul-reduce-scatter that places instead of sums: this rank
    computes the block of `p` that group rank j receives (block j along
    `split`) and sends it while it computes the next, and the block from
    group rank i lands at offset i along `concat`, in place. Expert outputs
    going back to their tokens' ranks and Ulysses attention's sequence ->
    heads exchange are this form. Each rank sends each peer a different
    block, so the schedule is `per_peer` or `coalesced`, never `ring`. A
    per-batch B (expert weights) needs the blocks cut along the rows
    (`split` = rank - 2), so that each block is made by its own batch's B.

    ```mlir
    // Expert outputs [E/4, 4C, H], the rows cut by destination rank, sent
    // back to stack along the experts: [E, C, H].
    %y = tp.matmul_all_to_all %h, %w2 on @ep axes = [0] split = 1 concat = 0
        : (tensor<2x64x256xf32>, tensor<2x256x128xf32>) -> tensor<8x16x128xf32>
    ```
  }];
  let arguments = !con((ins TP_FloatTensor:$a, TP_FloatTensor:$b), groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$split,
                            ConfinedAttr<I64Attr, [IntNonNegative]>:$concat,
                            UnitAttr:$transpose_b, UnitAttr:$return_product),
                       TP_ScheduleArgs);
  let results = (outs Variadic<TP_FloatTensor>:$results);
  let assemblyFormat = [{
    $a `,` $b `on` $grid `axes` `=` $grid_axes `split` `=` $split
    `concat` `=` $concat (`transpose_b` $transpose_b^)?
    (`return_product` $return_product^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    /// The product before the exchange, when requested.
    ::mlir::Value getProduct() {
      return getReturnProduct() ? getResults().front() : ::mlir::Value();
    }
    /// This rank's exchanged result.
    ::mlir::Value getExchanged() { return getResults().back(); }
  }];
  let hasVerifier = 1;
}

def TP_MatmulReduceScatterOp : TP_GroupOp<"matmul_reduce_scatter",
    [TP_ReifiesShapes, AttrSizedOperandSegments]> {
  let summary = "A @ B reduce-scattered along `dim`, chunk by chunk";
  let description = [{
    Equal in meaning to `p = a @ b (+ addend)` (leading dims of `a` are batch
    dims, B is [K, N] or [N, K] with `transpose_b`), then
    `tp.reduce_scatter p dim reduce`, then `+ bias` (the bias is over the
    global N, added once after the reduction). Only `sum` and `avg` are
    allowed. The `addend` has the shape of `p` and is added on this rank
    before the reduction (a GEMM's C operand). Results: the unreduced `p`
    first when `return_unreduced` is set, then the reduced slice.
  }];
  let arguments = !con((ins TP_FloatTensor:$a, TP_FloatTensor:$b,
                            Optional<TP_FloatTensor>:$bias,
                            Optional<TP_FloatTensor>:$addend),
                       groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                            TP_ReductionKindAttr:$reduce,
                            UnitAttr:$transpose_b, UnitAttr:$return_unreduced),
                       TP_ScheduleArgs);
  let results = (outs Variadic<TP_FloatTensor>:$results);
  let assemblyFormat = [{
    $a `,` $b (`bias` $bias^)? (`addend` $addend^)? `on` $grid `axes` `=`
    $grid_axes `dim` `=` $dim `reduce` `=` custom<EnumKeyword>($reduce)
    (`transpose_b` $transpose_b^)? (`return_unreduced` $return_unreduced^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    ::mlir::Value getUnreduced() {
      return getReturnUnreduced() ? getResults().front() : ::mlir::Value();
    }
    ::mlir::Value getReduced() { return getResults().back(); }
  }];
  let hasVerifier = 1;
}

def TP_AllGatherContractOp : TP_GroupOp<"all_gather_contract", [TP_ReifiesShapes]> {
  let summary = "all-gather a matmul operand along its contraction dim; "
                "each shard's product accumulates";
  let description = [{
    Equal in meaning to `g = tp.all_gather x dim`, then for each `other`
    the product `op_a(L) @ op_b(R)`, where `(L, R) = (g, other)` with
    `gathered_lhs` and `(other, g)` without, `op_a` transposes L when
    `transpose_a` is set and `op_b` transposes R when `transpose_b` is set.
    An operand whose contraction dim comes first (L with `transpose_a`, R
    without `transpose_b`) may be 3-D: its two leading dims are flattened
    (row-major) into K, e.g. a [batch, seq, hidden] activation. `dim` must be
    one of x's contraction dims, so each rank's shard adds a partial sum: the
    weight gradient of a sequence-parallel layer, `dW = dY^T . X_gathered`.
    Results: the gathered x first when `return_gathered` is set, then one
    [M, N] product per `other`.

    ```mlir
    // dW1 = dH^T . all_gather(x) over the sequence dim.
    %dw = tp.all_gather_contract %x, [%dh] on @tp axes = [0] dim = 0
        transpose_a : (tensor<64x512xf32>, tensor<256x128xf32>)
        -> tensor<128x512xf32>
    ```
  }];
  let arguments = !con((ins TP_FloatTensor:$x, Variadic<TP_FloatTensor>:$others),
                       groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                            UnitAttr:$gathered_lhs, UnitAttr:$transpose_a,
                            UnitAttr:$transpose_b, UnitAttr:$return_gathered),
                       TP_ScheduleArgs);
  let results = (outs Variadic<TP_FloatTensor>:$results);
  let assemblyFormat = [{
    $x `,` `[` $others `]` `on` $grid `axes` `=` $grid_axes `dim` `=` $dim
    (`gathered_lhs` $gathered_lhs^)? (`transpose_a` $transpose_a^)?
    (`transpose_b` $transpose_b^)? (`return_gathered` $return_gathered^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    ::mlir::Value getGathered() {
      return getReturnGathered() ? getResults().front() : ::mlir::Value();
    }
    /// One product per other operand, in order.
    ::mlir::ResultRange getProducts() {
      return getResults().drop_front(getReturnGathered() ? 1 : 0);
    }
    /// Whether x's contraction dims lead (x is [K..., free]) rather than
    /// trail (x is [free, K]).
    bool isXKLeading() {
      return getGatheredLhs() ? getTransposeA() : !getTransposeB();
    }
    bool isOtherKLeading() {
      return getGatheredLhs() ? !getTransposeB() : getTransposeA();
    }
  }];
  let hasVerifier = 1;
}

def TP_AllGatherScaledMatmulOp : TP_GroupOp<"all_gather_scaled_matmul",
    [TP_ReifiesShapes, AttrSizedOperandSegments]> {
  let summary = "all-gather low-precision A (and its scales), scaled matmul per B";
  let description = [{
    Equal in meaning to gathering `a` along `dim` (and `a_scale` along the
    same dim when it is row-wise or block-wise; a per-tensor scale and the
    NVFP4 global scale are shared by the group and not gathered), then one
    `tp.scaled_matmul` per B ([N, K]) with its own scales and bias. `dim` must
    not be the last (K) dim. Every B shares A's scale: consumers with
    different A scales cannot be one fused op.
  }];
  let arguments = !con((ins TP_LowPrecisionTensor:$a, TP_ScaleTensor:$a_scale,
                            Optional<TP_GlobalScaleTensor>:$a_global_scale,
                            Variadic<TP_LowPrecisionTensor>:$bs,
                            Variadic<TP_ScaleTensor>:$b_scales,
                            Variadic<TP_GlobalScaleTensor>:$b_global_scales,
                            Variadic<TP_FloatTensor>:$biases),
                       groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                            TP_ScalingModeAttr:$mode,
                            DenseBoolArrayAttr:$bias_mask,
                            UnitAttr:$return_gathered),
                       TP_ScheduleArgs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $a `scale` $a_scale (`global` $a_global_scale^)? `,`
    custom<ScaledWeightList>($bs, $b_scales, $b_global_scales, $biases, $bias_mask)
    `on` $grid `axes` `=` $grid_axes `dim` `=` $dim custom<EnumKeyword>($mode)
    (`return_gathered` $return_gathered^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    /// The gathered A and its gathered scale, when requested.
    ::mlir::Value getGathered() {
      return getReturnGathered() ? getResults()[0] : ::mlir::Value();
    }
    ::mlir::Value getGatheredScale() {
      return getReturnGathered() ? getResults()[1] : ::mlir::Value();
    }
    ::mlir::ResultRange getProducts() {
      return getResults().drop_front(getReturnGathered() ? 2 : 0);
    }
    ::mlir::Value getBiasOf(unsigned i);
    ::mlir::Value getBGlobalScaleOf(unsigned i) {
      return getBGlobalScales().empty() ? ::mlir::Value() : getBGlobalScales()[i];
    }
  }];
  let hasVerifier = 1;
}

def TP_ScaledMatmulReduceScatterOp : TP_GroupOp<"scaled_matmul_reduce_scatter",
    [TP_ReifiesShapes, AttrSizedOperandSegments]> {
  let summary = "low-precision A @ B^T reduce-scattered along `dim`";
  let description = [{
    Equal in meaning to `tp.scaled_matmul` (A [..., M, K], B [N, K]; leading
    dims of A are batch dims and its scales follow its shape) followed by
    `tp.reduce_scatter` (`sum` or `avg`) and then `+ bias`. Partials are
    accumulated in f32 and rounded once to the result element type.
  }];
  let arguments = !con((ins TP_LowPrecisionTensor:$a, TP_ScaleTensor:$a_scale,
                            Optional<TP_GlobalScaleTensor>:$a_global_scale,
                            TP_LowPrecisionTensor:$b, TP_ScaleTensor:$b_scale,
                            Optional<TP_GlobalScaleTensor>:$b_global_scale,
                            Optional<TP_FloatTensor>:$bias),
                       groupArgs,
                       (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                            TP_ReductionKindAttr:$reduce,
                            TP_ScalingModeAttr:$mode,
                            UnitAttr:$return_unreduced),
                       TP_ScheduleArgs);
  let results = (outs Variadic<TP_FloatTensor>:$results);
  let assemblyFormat = [{
    $a `scale` $a_scale (`global` $a_global_scale^)? `,`
    $b `scale` $b_scale (`global` $b_global_scale^)? (`bias` $bias^)?
    `on` $grid `axes` `=` $grid_axes `dim` `=` $dim `reduce` `=` custom<EnumKeyword>($reduce)
    custom<EnumKeyword>($mode)
    (`return_unreduced` $return_unreduced^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = groupDecls # [{
    ::mlir::Value getUnreduced() {
      return getReturnUnreduced() ? getResults().front() : ::mlir::Value();
    }
    ::mlir::Value getReduced() { return getResults().back(); }
  }];
  let hasVerifier = 1;
}

#endif // TP_DIALECT_TP_IR_TPOPS_TD
