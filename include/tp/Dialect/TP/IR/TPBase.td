//===- TPBase.td - tp dialect, enums and attributes -------*- tablegen -*-===//
//
// The `tp` dialect models tensor-parallel programs as each rank runs them.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPBASE_TD
#define TP_DIALECT_TP_IR_TPBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def TP_Dialect : Dialect {
  let name = "tp";
  let cppNamespace = "::mlir::tp";
  let summary = "Per-rank tensor-parallel programs: collectives, matmuls, "
                "quantization and fused collective-matmul ops";
  let description = [{
    Every value of a `tp` program is the tensor that ONE rank holds (SPMD: every
    rank runs the same program on its own shard). Collectives name the ranks
    they span with a `shard.grid` symbol and a list of grid axes; the group is
    every rank that differs from this one only along those axes, ordered
    row-major (last axis fastest), like upstream's process linear index.

    See docs/Semantics.md for how shapes relate across ranks.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::shard::ShardDialect",
                           "::mlir::tensor::TensorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // `tp.replicated` on function arguments.
  let hasRegionArgAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def TP_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a collective combines the values of the ranks of a group", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Avg", 1, "avg">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tp";
}
def TP_ReductionKindAttr : EnumAttr<TP_Dialect, TP_ReductionKind, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def TP_ScalingMode : I32EnumAttr<"ScalingMode",
    "how low-precision data is scaled; blocks always run along the last dim", [
  // One fp32 scale for the whole tensor.
  I32EnumAttrCase<"PerTensor", 0, "per_tensor">,
  // One fp32 scale per row (per element of every dim but the last).
  I32EnumAttrCase<"RowWise", 1, "row_wise">,
  // OCP MX: one f8E8M0FNU scale per 32 consecutive elements of the last dim.
  I32EnumAttrCase<"MXFP8", 2, "mxfp8">,
  // NVFP4: one f8E4M3FN scale per 16 elements of the last dim, plus one fp32
  // global scale for the tensor.
  I32EnumAttrCase<"NVFP4", 3, "nvfp4">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tp";
}
def TP_ScalingModeAttr : EnumAttr<TP_Dialect, TP_ScalingMode, "scaling"> {
  let assemblyFormat = "`<` $value `>`";
}

def TP_WeightSharding : I32EnumAttr<"WeightSharding",
    "how the weight W[N, K] of a tensor-parallel linear layer is split", [
  // Split along N (output features): Megatron's column-parallel linear.
  I32EnumAttrCase<"Column", 0, "column">,
  // Split along K (input features): Megatron's row-parallel linear.
  I32EnumAttrCase<"Row", 1, "row">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tp";
}
def TP_WeightShardingAttr : EnumAttr<TP_Dialect, TP_WeightSharding, "weight_sharding"> {
  let assemblyFormat = "`<` $value `>`";
}

def TP_Algorithm : I32EnumAttr<"Algorithm",
    "schedule a fused collective-matmul runs", [
  // Ring: at each of the group-size steps a chunk moves to the next rank while
  // the previous one is multiplied.
  I32EnumAttrCase<"Ring", 0, "ring">,
  // One chunk per peer: the local chunk first, then each peer's chunk
  // (rank+1, rank+2, ...) as it arrives.
  I32EnumAttrCase<"PerPeer", 1, "per_peer">,
  // Shards move as per_peer moves them; the local shard's GEMM runs first,
  // then the remote shards merge, in arrival order, into `chunks` GEMMs
  // (reduce-scatter: the remote slices first, in `chunks` GEMMs, then the
  // local one). Fewer, larger GEMMs fill a GPU's waves.
  I32EnumAttrCase<"Coalesced", 2, "coalesced">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tp";
}
def TP_AlgorithmAttr : EnumAttr<TP_Dialect, TP_Algorithm, "algorithm"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def TP_PlacementAttr : AttrDef<TP_Dialect, "Placement"> {
  let mnemonic = "placement";
  let summary = "how a global tensor is laid out across the ranks of a group";
  let description = [{
    `#tp.placement<replicated>`: every rank holds the whole tensor.
    `#tp.placement<shard(D)>`: rank r holds the r-th of group-size equal slices
    of dimension D.
  }];
  let parameters = (ins "int64_t":$shardDim);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    static constexpr int64_t kReplicated = -1;
    static PlacementAttr getReplicated(::mlir::MLIRContext *context) {
      return get(context, kReplicated);
    }
    bool isReplicated() const { return getShardDim() == kReplicated; }
    bool isShardedOn(int64_t dim) const { return getShardDim() == dim; }
  }];
  let genVerifyDecl = 1;
}

#endif // TP_DIALECT_TP_IR_TPBASE_TD
