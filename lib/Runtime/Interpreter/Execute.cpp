//===- Execute.cpp - SPMD execution and inputs ----------------------------===//

#include "Machine.h"
#include "tp/Runtime/Numerics.h"
#ifdef TP_HAVE_CUDA
#include "tp/Runtime/CudaBackend.h"
#endif

#include <thread>

using namespace mlir;
using namespace mlir::tp;
using mlir::tp::toDType;

std::optional<rt::DType> mlir::tp::toDType(Type type) {
  type = getElementTypeOrSelf(type);
  if (type.isIndex())
    return rt::DType::I64;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return rt::parseDType(text);
}

std::vector<std::string> mlir::tp::availableBackends() {
#ifdef TP_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

static rt::Status createBackend(const std::string &name, rt::World &world,
                                int rank, std::unique_ptr<rt::Backend> &out) {
  if (name == "cpu") {
    out = rt::createCpuBackend(world, rank);
    return rt::Status::ok();
  }
#ifdef TP_HAVE_CUDA
  if (name == "cuda")
    return rt::createCudaBackend(world, rank, out);
#endif
  return rt::Status::error("unknown backend '" + name + "'");
}

/// Runs `entry` as rank `r` on `backend`, on the calling thread.
static rt::Status runRank(func::FuncOp entry, rt::Backend &backend,
                          rt::World &world, int r, RankValues &values) {
  if (values.args.size() != entry.getNumArguments())
    return rt::Status::error("rank " + std::to_string(r) + " has " +
                             std::to_string(values.args.size()) + " inputs; @" +
                             entry.getName().str() + " takes " +
                             std::to_string(entry.getNumArguments()));
  exec::Machine machine(backend, world, r);
  SmallVector<exec::Value> args, results;
  for (auto [arg, tensor] :
       llvm::zip_equal(entry.getArguments(), values.args)) {
    if (isa<TensorType>(arg.getType())) {
      args.push_back(exec::Value::ofTensor(tensor));
      continue;
    }
    exec::Scalar s;
    if (isa<FloatType>(arg.getType()))
      s.f = tensor.get(0);
    else
      s.i = static_cast<int64_t>(tensor.get(0));
    args.push_back(exec::Value::ofScalar(s));
  }
  TP_RETURN_IF_ERROR(machine.call(entry, args, results));
  values.results.clear();
  for (auto [value, type] : llvm::zip_equal(results, entry.getResultTypes())) {
    if (value.isTensor) {
      values.results.push_back(value.tensor);
      continue;
    }
    rt::Tensor scalar(*toDType(type), {});
    scalar.set(0, isa<FloatType>(type) ? value.scalar.f
                                       : static_cast<double>(value.scalar.i));
    values.results.push_back(std::move(scalar));
  }
  return rt::Status::ok();
}

rt::Status mlir::tp::executeSPMD(func::FuncOp entry,
                                 const ExecutionOptions &options,
                                 std::vector<RankValues> &perRank) {
  if (static_cast<int>(perRank.size()) != options.ranks)
    return rt::Status::error("inputs for " + std::to_string(perRank.size()) +
                             " ranks, but the run has " +
                             std::to_string(options.ranks));
  rt::World world(options.ranks, options.timeout, options.trace);
  rt::configureCpuThreads(options.ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < options.ranks; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<rt::Backend> backend;
      rt::Status status = createBackend(options.backend, world, r, backend);
      if (status.isOk())
        status = runRank(entry, *backend, world, r, perRank[r]);
      if (!status.isOk())
        world.fail(r, status.message());
    });
  for (std::thread &t : threads)
    t.join();
  if (world.failed())
    return rt::Status::error("rank " + std::to_string(world.firstFailedRank()) +
                             " failed first: " + world.firstFailure());
  return rt::Status::ok();
}

rt::Status mlir::tp::executeOneRank(func::FuncOp entry,
                                    const ExecutionOptions &options, int rank,
                                    rt::Backend &backend, RankValues &values) {
  if (rank < 0 || rank >= options.ranks)
    return rt::Status::error("rank " + std::to_string(rank) + " of a run of " +
                             std::to_string(options.ranks));
  // The world only counts ranks and records the trace here: peers are other
  // processes, reached by `backend` itself.
  rt::World world(options.ranks, options.timeout, options.trace);
  rt::configureCpuThreads(1);
  return runRank(entry, backend, world, rank, values);
}

rt::Status mlir::tp::resolveArgumentShapes(
    func::FuncOp entry,
    const std::map<unsigned, std::vector<int64_t>> &argShapes,
    int64_t dynamicSize, std::vector<std::vector<int64_t>> &shapes) {
  shapes.clear();
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType) {
      if (!toDType(type))
        return rt::Status::error("argument " + std::to_string(i) +
                                 " has a type tp-run cannot feed");
      shapes.push_back({});
      continue;
    }
    if (!toDType(tensorType))
      return rt::Status::error("argument " + std::to_string(i) +
                               " has an element type tp-run cannot feed");
    auto given = argShapes.find(i);
    std::vector<int64_t> shape(tensorType.getShape());
    if (given != argShapes.end()) {
      bool matches = given->second.size() == shape.size();
      for (size_t d = 0; matches && d < shape.size(); ++d)
        matches =
            ShapedType::isDynamic(shape[d]) || shape[d] == given->second[d];
      if (!matches)
        return rt::Status::error("--arg-shape for argument " +
                                 std::to_string(i) + " does not fit its type");
      shape = given->second;
    }
    for (int64_t &d : shape) {
      if (!ShapedType::isDynamic(d))
        continue;
      if (dynamicSize <= 0)
        return rt::Status::error(
            "argument " + std::to_string(i) +
            " has dynamic dims; give their sizes with --dim-size N or "
            "--arg-shape " +
            std::to_string(i) + "=AxB...");
      d = dynamicSize;
    }
    shapes.push_back(shape);
  }
  return rt::Status::ok();
}

/// splitmix64: a fast, well-mixed hash of (seed, rank, argument, element).
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

rt::Status mlir::tp::makeRandomInputs(
    func::FuncOp entry, const std::vector<std::vector<int64_t>> &shapes,
    uint64_t seed, int rank, std::vector<rt::Tensor> &args) {
  args.clear();
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    rt::DType dtype = *toDType(type);
    rt::Tensor tensor(dtype, shapes[i]);
    uint64_t stream = mix(seed ^ mix(uint64_t(rank) << 32 ^ i));
    for (int64_t k = 0, n = tensor.numElements(); k < n; ++k) {
      uint64_t bits = mix(stream + k);
      double unit = (bits >> 11) * 0x1.0p-53; // [0, 1)
      switch (dtype) {
      case rt::DType::F8E4M3FN:
      case rt::DType::F8E5M2:
      case rt::DType::F4E2M1FN:
        // Uniform over the representable range, then rounded: finite codes.
        tensor.set(k, (2 * unit - 1) * rt::maxFinite(dtype));
        break;
      case rt::DType::F8E8M0FNU:
        tensor.set(k, std::ldexp(1.0, static_cast<int>(unit * 8) - 4));
        break;
      case rt::DType::I1:
        tensor.set(k, bits & 1);
        break;
      case rt::DType::I32:
      case rt::DType::I64:
        tensor.set(k, static_cast<double>(bits % 4));
        break;
      default:
        tensor.set(k, 2 * unit - 1);
      }
    }
    args.push_back(std::move(tensor));
  }
  return rt::Status::ok();
}
