//===- Machine.h - one rank's interpreter -----------------------*- C++ -*-===//

#ifndef TP_LIB_RUNTIME_INTERPRETER_MACHINE_H
#define TP_LIB_RUNTIME_INTERPRETER_MACHINE_H

#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Interpreter.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <map>

namespace mlir::tp::exec {

/// A scalar: integers (and index, i1) in `i`, floats in `f`.
struct Scalar {
  int64_t i = 0;
  double f = 0;
};

/// An SSA value during interpretation: a tensor or a scalar.
struct Value {
  bool isTensor = false;
  rt::Tensor tensor;
  Scalar scalar;

  static Value ofTensor(rt::Tensor t) {
    Value v;
    v.isTensor = true;
    v.tensor = std::move(t);
    return v;
  }
  static Value ofScalar(Scalar s) {
    Value v;
    v.scalar = s;
    return v;
  }
};

/// "'op.name' at file:line:col", for messages and signatures.
std::string siteOf(Operation *op);

/// Rounds a float scalar to `type` (f32, bf16, ...); integers to their width.
Scalar roundScalar(Scalar value, Type type);

/// Evaluates an arith or math op on scalars. Fails with a message for an op
/// it does not know.
rt::Status evalScalarOp(Operation *op, ArrayRef<Scalar> operands,
                        Scalar &result);

class Machine {
public:
  Machine(rt::Backend &backend, rt::World &world, int rank)
      : backend(backend), world(world), rank(rank) {}

  /// Calls `func` with `args`; fills `results`.
  rt::Status call(func::FuncOp func, ArrayRef<Value> args,
                  SmallVectorImpl<Value> &results);

private:
  using Env = llvm::DenseMap<mlir::Value, Value>;

  /// Runs the ops of `block` up to its terminator, whose operands are
  /// returned in `yielded`.
  rt::Status runBlock(Block &block, ArrayRef<Value> args, Env &env,
                      SmallVectorImpl<Value> &yielded);
  rt::Status execute(Operation *op, Env &env);

  rt::Status executeElementwise(Operation *op, Env &env);
  rt::Status executeGeneric(Operation *op, Env &env);
  rt::Status executeTensorOp(Operation *op, Env &env, bool &handled);
  rt::Status executeControlFlow(Operation *op, Env &env, bool &handled);
  rt::Status executeTP(Operation *op, Env &env, bool &handled);

  /// The group of a tp op, cached per grid and axes.
  rt::Status groupOf(Operation *op, rt::Group &group);

  const Value &lookup(Env &env, mlir::Value v) { return env[v]; }
  rt::Status tensorOperand(Env &env, mlir::Value v, Operation *op,
                           const rt::Tensor *&out);

  rt::Backend &backend;
  rt::World &world;
  int rank;
  std::map<std::pair<std::string, std::vector<int>>, rt::Group> groups;
};

} // namespace mlir::tp::exec

#endif // TP_LIB_RUNTIME_INTERPRETER_MACHINE_H
