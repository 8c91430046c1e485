//===- TPDialect.h - tp dialect ----------------------------------*- C++
//-*-===//
#ifndef TP_DIALECT_TP_IR_TPDIALECT_H
#define TP_DIALECT_TP_IR_TPDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "tp/Dialect/TP/IR/TPDialect.h.inc"

#endif // TP_DIALECT_TP_IR_TPDIALECT_H
