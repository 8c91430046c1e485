//===- Machine.cpp - one rank's interpreter: dispatch and control flow ----===//

#include "Machine.h"
#include "tp/Runtime/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::exec;

rt::Status Machine::call(func::FuncOp func, ArrayRef<Value> args,
                         SmallVectorImpl<Value> &results) {
  if (func.isDeclaration())
    return rt::Status::error(siteOf(func) + ": cannot call a declaration");
  Env env;
  return runBlock(func.getBody().front(), args, env, results);
}

rt::Status Machine::runBlock(Block &block, ArrayRef<Value> args, Env &env,
                             SmallVectorImpl<Value> &yielded) {
  for (auto [arg, value] : llvm::zip_equal(block.getArguments(), args))
    env[arg] = value;
  for (Operation &op : block.without_terminator()) {
    if (world.failed())
      return rt::Status::error(siteOf(&op) + ": stopped, another rank failed");
    TP_RETURN_IF_ERROR(execute(&op, env));
  }
  yielded.clear();
  for (mlir::Value v : block.getTerminator()->getOperands())
    yielded.push_back(env[v]);
  return rt::Status::ok();
}

rt::Status Machine::tensorOperand(Env &env, mlir::Value v, Operation *op,
                                  const rt::Tensor *&out) {
  const Value &value = env[v];
  if (!value.isTensor)
    return rt::Status::error(siteOf(op) + ": expected a tensor operand");
  out = &value.tensor;
  return rt::Status::ok();
}

rt::Status Machine::execute(Operation *op, Env &env) {
  bool handled = false;
  TP_RETURN_IF_ERROR(executeTP(op, env, handled));
  if (handled)
    return rt::Status::ok();
  TP_RETURN_IF_ERROR(executeControlFlow(op, env, handled));
  if (handled)
    return rt::Status::ok();
  TP_RETURN_IF_ERROR(executeTensorOp(op, env, handled));
  if (handled)
    return rt::Status::ok();
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return executeElementwise(op, env);
  return rt::Status::error(siteOf(op) +
                           ": unsupported operation; tp-run "
                           "executes tp, arith, math, element-wise linalg, "
                           "tensor reshapes and slices, scf and func");
}

rt::Status Machine::executeElementwise(Operation *op, Env &env) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = constant.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      auto type = cast<RankedTensorType>(dense.getType());
      std::optional<rt::DType> dtype = toDType(type);
      if (!dtype)
        return rt::Status::error(siteOf(op) + ": unsupported element type");
      rt::Tensor t(*dtype, std::vector<int64_t>(type.getShape()));
      int64_t n = t.numElements();
      bool isFloat = isa<FloatType>(type.getElementType());
      for (int64_t k = 0; k < n; ++k) {
        int64_t src = dense.isSplat() ? 0 : k;
        double v = isFloat ? (dense.getValues<APFloat>()[src]).convertToDouble()
                           : static_cast<double>(
                                 dense.getValues<APInt>()[src].getSExtValue());
        t.set(k, v);
      }
      env[op->getResult(0)] = Value::ofTensor(std::move(t));
      return rt::Status::ok();
    }
    Scalar s;
    if (auto f = dyn_cast<FloatAttr>(value))
      s.f = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(value))
      s.i = i.getType().isInteger(1) ? i.getValue().getZExtValue()
                                     : i.getValue().getSExtValue();
    else
      return rt::Status::error(siteOf(op) + ": unsupported constant");
    env[op->getResult(0)] = Value::ofScalar(s);
    return rt::Status::ok();
  }
  if (op->getNumResults() != 1)
    return rt::Status::error(siteOf(op) + ": unsupported operation");
  // Scalars, or the same op element by element on equally shaped tensors.
  SmallVector<const Value *> operands;
  const rt::Tensor *shape = nullptr;
  for (mlir::Value v : op->getOperands()) {
    operands.push_back(&env[v]);
    if (operands.back()->isTensor) {
      if (shape && shape->shape() != operands.back()->tensor.shape())
        return rt::Status::error(
            siteOf(op) + ": operand shapes differ: " + shape->typeString() +
            " and " + operands.back()->tensor.typeString());
      shape = &operands.back()->tensor;
    }
  }
  SmallVector<Scalar> in(operands.size());
  auto load = [&](int64_t k) {
    for (auto [slot, value, operand] :
         llvm::zip_equal(in, operands, op->getOperands())) {
      if (!value->isTensor) {
        slot = value->scalar;
        continue;
      }
      double v = value->tensor.get(k);
      if (isa<FloatType>(getElementTypeOrSelf(operand.getType())))
        slot.f = v;
      else
        slot.i = static_cast<int64_t>(v);
    }
  };
  if (!shape) {
    Scalar out;
    load(0);
    TP_RETURN_IF_ERROR(evalScalarOp(op, in, out));
    env[op->getResult(0)] = Value::ofScalar(out);
    return rt::Status::ok();
  }
  Type resultType = op->getResult(0).getType();
  std::optional<rt::DType> dtype = toDType(resultType);
  if (!dtype)
    return rt::Status::error(siteOf(op) + ": unsupported element type");
  rt::Tensor result(*dtype, shape->shape());
  bool floatResult = isa<FloatType>(getElementTypeOrSelf(resultType));
  for (int64_t k = 0, n = result.numElements(); k < n; ++k) {
    load(k);
    Scalar out;
    TP_RETURN_IF_ERROR(evalScalarOp(op, in, out));
    result.set(k, floatResult ? out.f : static_cast<double>(out.i));
  }
  env[op->getResult(0)] = Value::ofTensor(std::move(result));
  return rt::Status::ok();
}

rt::Status Machine::executeControlFlow(Operation *op, Env &env, bool &handled) {
  handled = true;
  SmallVector<Value> results;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool cond = env[ifOp.getCondition()].scalar.i != 0;
    Region &region = cond ? ifOp.getThenRegion() : ifOp.getElseRegion();
    // SSA values are unique, so nested blocks share the environment.
    if (!region.empty())
      TP_RETURN_IF_ERROR(runBlock(region.front(), {}, env, results));
  } else if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = env[forOp.getLowerBound()].scalar.i;
    int64_t ub = env[forOp.getUpperBound()].scalar.i;
    int64_t step = env[forOp.getStep()].scalar.i;
    if (step <= 0)
      return rt::Status::error(siteOf(op) + ": step must be positive, got " +
                               std::to_string(step));
    for (mlir::Value init : forOp.getInitArgs())
      results.push_back(env[init]);
    for (int64_t iv = lb; iv < ub; iv += step) {
      SmallVector<Value> args = {Value::ofScalar(Scalar{iv, 0})};
      args.append(results.begin(), results.end());
      TP_RETURN_IF_ERROR(runBlock(*forOp.getBody(), args, env, results));
    }
  } else if (auto callOp = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, callOp.getCalleeAttr());
    if (!callee)
      return rt::Status::error(siteOf(op) + ": unknown callee");
    SmallVector<Value> args;
    for (mlir::Value v : callOp.getOperands())
      args.push_back(env[v]);
    TP_RETURN_IF_ERROR(call(callee, args, results));
  } else {
    handled = false;
    return rt::Status::ok();
  }
  for (auto [result, value] : llvm::zip_equal(op->getResults(), results))
    env[result] = value;
  return rt::Status::ok();
}
