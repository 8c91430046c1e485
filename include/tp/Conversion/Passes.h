//===- Passes.h - conversions into the tp dialect ---------------*- C++ -*-===//
#ifndef TP_CONVERSION_PASSES_H
#define TP_CONVERSION_PASSES_H

#include "tp/Conversion/ShardToTP/ShardToTP.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {

#define GEN_PASS_DECL
#include "tp/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tp/Conversion/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_CONVERSION_PASSES_H
