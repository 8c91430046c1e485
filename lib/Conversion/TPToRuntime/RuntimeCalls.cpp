//===- RuntimeCalls.cpp - building calls of the runtime ABI ---------------===//

#include "tp/Conversion/TPToRuntime/RuntimeCalls.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tp;

std::string mlir::tp::siteOf(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "' at ";
  // file:line:col when the location has one, as compilers print it.
  FileLineColLoc fileLoc;
  op->getLoc()->walk([&](Location loc) {
    fileLoc = dyn_cast<FileLineColLoc>(loc);
    return fileLoc ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (fileLoc)
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    os << op->getLoc();
  return text;
}

func::CallOp runtime::call(OpBuilder &b, Location loc, Operation *anchor,
                           StringRef name, TypeRange results,
                           ValueRange operands) {
  auto module = anchor->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        b, loc, name, b.getFunctionType(operands.getTypes(), results));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    b.getUnitAttr());
    callee->setAttr(kRuntimeEntryAttrName, b.getUnitAttr());
  }
  return func::CallOp::create(b, loc, callee, operands);
}

/// A private constant memref.global of `value`, shared by equal constants,
/// read and cast to an unranked memref.
static Value constantBuffer(OpBuilder &b, Location loc, Operation *anchor,
                            DenseElementsAttr value, StringRef prefix) {
  auto module = anchor->getParentOfType<ModuleOp>();
  auto type = MemRefType::get(value.getType().getShape(),
                              value.getType().getElementType());
  memref::GlobalOp global;
  for (auto candidate : module.getOps<memref::GlobalOp>())
    if (candidate.getConstant() && candidate.getInitialValueAttr() == value &&
        candidate.getType() == type) {
      global = candidate;
      break;
    }
  if (!global) {
    // Made detached, then inserted: the symbol table renames it if the name
    // is taken.
    OpBuilder detached(b.getContext());
    global = memref::GlobalOp::create(
        detached, loc, prefix, b.getStringAttr("private"), type, value,
        /*constant=*/true, /*alignment=*/IntegerAttr());
    SymbolTable(module).insert(global, module.getBody()->begin());
  }
  Value buffer = memref::GetGlobalOp::create(b, loc, type, global.getSymName());
  auto unranked = UnrankedMemRefType::get(type.getElementType(), 0);
  return memref::CastOp::create(b, loc, unranked, buffer);
}

Value runtime::siteBuffer(OpBuilder &b, Operation *op) {
  std::string text = mlir::tp::siteOf(op);
  SmallVector<int8_t> bytes(text.begin(), text.end());
  auto type = RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                                    b.getI8Type());
  return constantBuffer(b, op->getLoc(), op,
                        DenseElementsAttr::get(type, ArrayRef<int8_t>(bytes)),
                        "__tp_site");
}

Value runtime::integerBuffer(OpBuilder &b, Location loc, Operation *anchor,
                             ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  return constantBuffer(b, loc, anchor, DenseElementsAttr::get(type, values),
                        "__tp_ints");
}

Value runtime::rankContextOf(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func.getNumArguments() == 0 ||
      !func.getArgAttr(0, kRankContextAttrName)) {
    op->emitError("has no rank context to call the runtime with; run "
                  "tp-to-runtime before bufferizing");
    return {};
  }
  return func.getArgument(0);
}

Value runtime::constantI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

Value runtime::constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
