//===- Outlined.h - functions outlined for LLVM's sake ----------*- C++ -*-===//
//
// tp-split-long-functions and tp-outline-loop-nests outline code into
// functions so that LLVM compiles several short functions instead of one
// long one. Both want LLVM to keep them apart and to pass them little.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_PIPELINES_OUTLINED_H
#define TP_LIB_PIPELINES_OUTLINED_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tp {

/// Makes `func` private, never inlined and internal to the module in LLVM:
/// LLVM's inliner would otherwise put the code back where it came from
/// (func-to-llvm carries func.func's no_inline over to nothing; llvm.func's
/// passthrough it does), and, internal, LLVM drops the memref descriptor
/// fields the function does not read (with static shapes, all but the
/// aligned pointers), so that a call passes a few registers.
inline void markOutlined(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  func.setPrivate();
  func.setNoInline(true);
  func->setAttr(
      "passthrough",
      ArrayAttr::get(context, {StringAttr::get(context, "noinline")}));
  func->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
}

} // namespace mlir::tp

#endif // TP_LIB_PIPELINES_OUTLINED_H
