//===- TPExec.cpp - tp ops on the runtime backend -------------------------===//

#include "Machine.h"
#include "tp/Dialect/TP/IR/TPOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::exec;

static rt::Reduction toReduction(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return rt::Reduction::Sum;
  case ReductionKind::Avg:
    return rt::Reduction::Avg;
  case ReductionKind::Max:
    return rt::Reduction::Max;
  case ReductionKind::Min:
    return rt::Reduction::Min;
  }
  return rt::Reduction::Sum;
}

static rt::Scaling toScaling(ScalingMode mode) {
  switch (mode) {
  case ScalingMode::PerTensor:
    return rt::Scaling::PerTensor;
  case ScalingMode::RowWise:
    return rt::Scaling::RowWise;
  case ScalingMode::MXFP8:
    return rt::Scaling::MXFP8;
  case ScalingMode::NVFP4:
    return rt::Scaling::NVFP4;
  }
  return rt::Scaling::PerTensor;
}

template <typename FusedOp> static rt::Schedule scheduleOf(FusedOp op) {
  rt::Schedule schedule;
  if (auto algorithm = op.getAlgorithm())
    schedule.algorithm = *algorithm == Algorithm::Ring
                             ? rt::Schedule::Algorithm::Ring
                             : rt::Schedule::Algorithm::PerPeer;
  if (auto chunks = op.getChunks())
    schedule.chunks = static_cast<int>(*chunks);
  return schedule;
}

rt::Status Machine::groupOf(Operation *op, rt::Group &group) {
  auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto axesAttr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
  std::vector<int> axes(axesAttr.asArrayRef().begin(),
                        axesAttr.asArrayRef().end());
  auto key = std::make_pair(gridRef.getValue().str(), axes);
  auto it = groups.find(key);
  if (it != groups.end()) {
    group = it->second;
    return rt::Status::ok();
  }
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
  if (!grid)
    return rt::Status::error(siteOf(op) + ": unknown grid");
  std::vector<int64_t> shape(grid.getShape().begin(), grid.getShape().end());
  int64_t total = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      return rt::Status::error(
          siteOf(op) + ": grid @" + gridRef.getValue().str() +
          " has a dynamic size; tp-run needs static grids");
    total *= d;
  }
  if (total != world.numRanks())
    return rt::Status::error(
        siteOf(op) + ": grid @" + gridRef.getValue().str() + " has " +
        std::to_string(total) + " ranks but the run has " +
        std::to_string(world.numRanks()) + " (set --ranks)");
  group = rt::makeGroup(shape, axes, rank);
  groups[key] = group;
  return rt::Status::ok();
}

rt::Status Machine::executeTP(Operation *op, Env &env, bool &handled) {
  handled = isa<TPDialect>(op->getDialect());
  if (!handled)
    return rt::Status::ok();
  std::string site = siteOf(op);
  auto tensor = [&](mlir::Value v) -> const rt::Tensor * {
    return v ? &env[v].tensor : nullptr;
  };
  auto operand = [&](mlir::Value data, mlir::Value scale, mlir::Value global,
                     std::optional<ScalingMode> mode) {
    rt::Operand result = rt::Operand::plain(tensor(data));
    result.scale = tensor(scale);
    result.globalScale = tensor(global);
    if (mode)
      result.scaling = toScaling(*mode);
    return result;
  };
  auto dtypeOf = [&](Type type) { return *toDType(type); };
  auto setResults = [&](std::vector<rt::Tensor> &values) {
    for (auto [result, value] : llvm::zip_equal(op->getResults(), values))
      env[result] = Value::ofTensor(std::move(value));
  };
  auto setResult = [&](rt::Tensor value) {
    env[op->getResult(0)] = Value::ofTensor(std::move(value));
  };
  rt::Group group;
  bool needsGroup = op->hasAttr("grid");
  if (needsGroup)
    TP_RETURN_IF_ERROR(groupOf(op, group));
  for (mlir::Value v : op->getOperands())
    if (isa<TensorType>(v.getType()) && !env[v].isTensor)
      return rt::Status::error(site + ": an operand has no value");

  // Dynamic shapes pass the verifier; a bias must still cover N at run time.
  auto checkBias = [&](const rt::Tensor *bias, int64_t n) -> rt::Status {
    if (!bias || bias->numElements() == n)
      return rt::Status::ok();
    return rt::Status::error(site + ": bias " + bias->typeString() +
                             " does not have the product's " +
                             std::to_string(n) + " columns");
  };

  rt::Tensor result;
  std::vector<rt::Tensor> results;
  rt::Status status = rt::Status::ok();
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](AllGatherOp o) {
        status = backend.allGather(group, *tensor(o.getInput()), o.getDim(),
                                   site, result);
        if (status)
          setResult(result);
      })
      .Case([&](ReduceScatterOp o) {
        status =
            backend.reduceScatter(group, *tensor(o.getInput()), o.getDim(),
                                  toReduction(o.getReduce()), site, result);
        if (status)
          setResult(result);
      })
      .Case([&](AllReduceOp o) {
        status = backend.allReduce(group, *tensor(o.getInput()),
                                   toReduction(o.getReduce()), site, result);
        if (status)
          setResult(result);
      })
      .Case([&](GroupRankOp o) {
        env[o.getResult()] = Value::ofScalar(Scalar{group.index, 0});
      })
      .Case<MatmulOp, BatchMatmulOp>([&](Operation *) {
        bool transposeB = op->hasAttr("transpose_b");
        status = backend.matmul(*tensor(op->getOperand(0)),
                                *tensor(op->getOperand(1)), transposeB, site,
                                result);
        if (status)
          setResult(result);
      })
      .Case([&](BiasAddOp o) {
        const rt::Tensor &in = *tensor(o.getInput());
        const rt::Tensor &bias = *tensor(o.getBias());
        int64_t n = bias.numElements();
        if (in.rank() == 0 || n != in.shape().back()) {
          status = rt::Status::error(site + ": bias " + bias.typeString() +
                                     " does not match the last dim of " +
                                     in.typeString());
          return;
        }
        rt::Tensor out(in.dtype(), in.shape());
        for (int64_t k = 0, e = in.numElements(); k < e; ++k)
          out.set(k, in.get(k) + bias.get(k % n));
        setResult(std::move(out));
      })
      .Case([&](QuantizeOp o) {
        rt::Quantized q;
        std::string error;
        if (!rt::quantize(*tensor(o.getInput()), toScaling(o.getMode()),
                          dtypeOf(o.getResult().getType()), q, error)) {
          status = rt::Status::error(site + ": " + error);
          return;
        }
        results = {q.data, q.scale};
        if (o.getGlobalScale())
          results.push_back(q.globalScale);
        setResults(results);
      })
      .Case([&](DequantizeOp o) {
        std::string error;
        if (!rt::dequantize(*tensor(o.getInput()), *tensor(o.getScale()),
                            tensor(o.getGlobalScale()), toScaling(o.getMode()),
                            dtypeOf(o.getResult().getType()), result, error)) {
          status = rt::Status::error(site + ": " + error);
          return;
        }
        setResult(result);
      })
      .Case([&](ScaledMatmulOp o) {
        status = backend.scaledMatmul(
            operand(o.getA(), o.getAScale(), o.getAGlobalScale(), o.getMode()),
            operand(o.getB(), o.getBScale(), o.getBGlobalScale(), o.getMode()),
            tensor(o.getBias()), dtypeOf(o.getType()), site, result);
        if (status)
          setResult(result);
      })
      .Case([&](AllGatherMatmulOp o) {
        rt::AllGatherMatmulArgs args;
        args.a = operand(o.getA(), {}, {}, std::nullopt);
        for (auto [i, b] : llvm::enumerate(o.getBs())) {
          args.bs.push_back(operand(b, {}, {}, std::nullopt));
          args.biases.push_back(tensor(o.getBiasOf(i)));
          args.outTypes.push_back(dtypeOf(o.getProducts()[i].getType()));
          const rt::Tensor &w = env[b].tensor;
          if (status.isOk())
            status =
                checkBias(args.biases.back(), w.dim(o.getTransposeB() ? 0 : 1));
        }
        if (!status.isOk())
          return;
        args.dim = o.getDim();
        args.transposeB = o.getTransposeB();
        args.returnGathered = o.getReturnGathered();
        args.schedule = scheduleOf(o);
        args.site = site;
        status = backend.allGatherMatmul(group, args, results);
        if (status)
          setResults(results);
      })
      .Case([&](AllGatherScaledMatmulOp o) {
        rt::AllGatherMatmulArgs args;
        args.a =
            operand(o.getA(), o.getAScale(), o.getAGlobalScale(), o.getMode());
        for (auto [i, b] : llvm::enumerate(o.getBs())) {
          args.bs.push_back(operand(b, o.getBScales()[i],
                                    o.getBGlobalScaleOf(i), o.getMode()));
          args.biases.push_back(tensor(o.getBiasOf(i)));
          args.outTypes.push_back(dtypeOf(o.getProducts()[i].getType()));
          if (status.isOk())
            status = checkBias(args.biases.back(), env[b].tensor.dim(0));
        }
        if (!status.isOk())
          return;
        args.dim = o.getDim();
        args.transposeB = true;
        args.returnGathered = o.getReturnGathered();
        args.schedule = scheduleOf(o);
        args.site = site;
        status = backend.allGatherMatmul(group, args, results);
        if (status)
          setResults(results);
      })
      .Case([&](MatmulReduceScatterOp o) {
        rt::MatmulReduceScatterArgs args;
        args.a = operand(o.getA(), {}, {}, std::nullopt);
        args.b = operand(o.getB(), {}, {}, std::nullopt);
        args.bias = tensor(o.getBias());
        args.addend = tensor(o.getAddend());
        args.outType = dtypeOf(o.getReduced().getType());
        status = checkBias(args.bias,
                           env[o.getB()].tensor.dim(o.getTransposeB() ? 0 : 1));
        if (!status.isOk())
          return;
        args.dim = o.getDim();
        args.reduction = toReduction(o.getReduce());
        args.transposeB = o.getTransposeB();
        args.returnUnreduced = o.getReturnUnreduced();
        args.schedule = scheduleOf(o);
        args.site = site;
        status = backend.matmulReduceScatter(group, args, results);
        if (status)
          setResults(results);
      })
      .Case([&](ScaledMatmulReduceScatterOp o) {
        rt::MatmulReduceScatterArgs args;
        args.a =
            operand(o.getA(), o.getAScale(), o.getAGlobalScale(), o.getMode());
        args.b =
            operand(o.getB(), o.getBScale(), o.getBGlobalScale(), o.getMode());
        args.bias = tensor(o.getBias());
        args.outType = dtypeOf(o.getReduced().getType());
        status = checkBias(args.bias, env[o.getB()].tensor.dim(0));
        if (!status.isOk())
          return;
        args.dim = o.getDim();
        args.reduction = toReduction(o.getReduce());
        args.transposeB = true;
        args.returnUnreduced = o.getReturnUnreduced();
        args.schedule = scheduleOf(o);
        args.site = site;
        status = backend.matmulReduceScatter(group, args, results);
        if (status)
          setResults(results);
      })
      .Default([&](Operation *) {
        status = rt::Status::error(
            site + ": unsupported operation; run tp-lower-linear first");
      });
  return status;
}
