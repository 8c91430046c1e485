//===- OperandChecks.cpp - run-time shapes against the ops' rules ---------===//

#include "OperandChecks.h"
#include "tp/Runtime/Quantize.h"

using namespace mlir::tp::rt;

/// Why a scaled operand's scales do not fit its data, or "".
static std::string checkScales(const char *name, const Operand &op) {
  if (!op.isScaled())
    return "";
  std::string error;
  if (!checkScaled(*op.data, *op.scale, op.globalScale, *op.scaling, error))
    return std::string(name) + " " + op.data->typeString() + ": " + error;
  return "";
}

/// K and N of a 2-D B, or why B is not 2-D.
static std::string kAndN(const char *name, const Tensor &b, bool transposeB,
                         int64_t &k, int64_t &n) {
  if (b.rank() != 2)
    return std::string(name) + " must be 2-D, got " + b.typeString();
  k = b.dim(transposeB ? 1 : 0);
  n = b.dim(transposeB ? 0 : 1);
  return "";
}

static std::string contractionMismatch(const std::string &a, int64_t ak,
                                       const Tensor &b, int64_t bk) {
  return "contraction dims differ: " + a + " has K = " + std::to_string(ak) +
         ", " + b.typeString() + " has K = " + std::to_string(bk);
}

std::string abi::checkMatmulBias(const Tensor *bias, int64_t n) {
  if (!bias || (bias->rank() == 1 && bias->dim(0) == n))
    return "";
  return "bias " + bias->typeString() + " does not have the product's " +
         std::to_string(n) + " columns";
}

std::string abi::checkMatmul(const Tensor &a, const Tensor &b,
                             bool transposeB) {
  if (a.rank() < 1)
    return "A must have at least one dim, got " + a.typeString();
  if (b.rank() != 2 && b.rank() != a.rank())
    return "cannot multiply " + a.typeString() + " by " + b.typeString() +
           ": B is 2-D or batched like A";
  if (b.rank() < 2)
    return "B must have at least 2 dims, got " + b.typeString();
  for (int64_t d = 0; b.rank() > 2 && d + 2 < b.rank(); ++d)
    if (a.dim(d) != b.dim(d))
      return "batch dim " + std::to_string(d) + " differs: " + a.typeString() +
             " and " + b.typeString();
  int64_t k = a.dim(a.rank() - 1);
  int64_t bk = b.dim(b.rank() - (transposeB ? 1 : 2));
  if (k != bk)
    return contractionMismatch(a.typeString(), k, b, bk);
  return "";
}

std::string abi::checkScaledMatmul(const Operand &a, const Operand &b) {
  for (auto [name, op] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    std::string why = checkScales(name, *op);
    if (!why.empty())
      return why;
  }
  int64_t k = 0, n = 0;
  std::string why = kAndN("B", *b.data, /*transposeB=*/true, k, n);
  if (!why.empty())
    return why;
  const Tensor &data = *a.data;
  if (data.rank() < 1 || data.dim(data.rank() - 1) != k)
    return contractionMismatch(data.typeString(),
                               data.rank() ? data.dim(data.rank() - 1) : 0,
                               *b.data, k);
  return "";
}

std::string abi::checkAllToAll(const Tensor &input, int64_t split,
                               int64_t concat, int groupSize) {
  for (auto [name, dim] : {std::pair{"split", split}, {"concat", concat}})
    if (dim < 0 || dim >= input.rank())
      return std::string(name) + " dim " + std::to_string(dim) +
             " is out of range for " + input.typeString();
  if (groupSize < 1 || input.dim(split) % groupSize != 0)
    return "the split dim " + std::to_string(split) + " of " +
           input.typeString() + " (" + std::to_string(input.dim(split)) +
           ") is not divisible by the group size " + std::to_string(groupSize);
  int64_t scaled;
  if (split != concat &&
      __builtin_mul_overflow(input.dim(concat), int64_t(groupSize), &scaled))
    return "the concat dim " + std::to_string(concat) + " of " +
           input.typeString() + " times the group size " +
           std::to_string(groupSize) + " overflows int64";
  return "";
}

std::string abi::checkAllGather(const Tensor &input, int64_t dim,
                                int groupSize) {
  if (dim < 0 || dim >= input.rank())
    return "dim " + std::to_string(dim) + " is out of range for " +
           input.typeString();
  int64_t gathered;
  if (__builtin_mul_overflow(input.dim(dim), int64_t(groupSize), &gathered))
    return "the gathered dim " + std::to_string(dim) + " of " +
           input.typeString() + " times the group size " +
           std::to_string(groupSize) + " overflows int64";
  return "";
}

std::string abi::checkAllGatherMatmul(const AllGatherMatmulArgs &args,
                                      int groupSize) {
  const Tensor &a = *args.a.data;
  if (a.rank() < 2)
    return "A must have at least 2 dims, got " + a.typeString();
  std::string why = checkAllGather(a, args.dim, groupSize);
  if (!why.empty())
    return why;
  why = checkScales("A", args.a);
  if (!why.empty())
    return why;
  // A gather along the last dim gathers K.
  int64_t k = a.dim(a.rank() - 1) * (args.dim == a.rank() - 1 ? groupSize : 1);
  for (size_t i = 0; i < args.bs.size(); ++i) {
    const Operand &b = args.bs[i];
    std::string name = "B #" + std::to_string(i);
    int64_t bk = 0, n = 0;
    why = checkScales(name.c_str(), b);
    if (why.empty())
      why = kAndN(name.c_str(), *b.data, args.transposeB || b.isScaled(), bk,
                  n);
    if (why.empty() && bk != k)
      why = contractionMismatch("the gathered A", k, *b.data, bk);
    if (why.empty())
      why = checkMatmulBias(i < args.biases.size() ? args.biases[i] : nullptr, n);
    if (!why.empty())
      return why;
  }
  return "";
}

std::string abi::checkAllToAllMatmul(const AllGatherMatmulArgs &args,
                                     int groupSize) {
  const Tensor &a = *args.a.data;
  if (a.rank() < 2)
    return "A must have at least 2 dims, got " + a.typeString();
  if (args.a.isScaled())
    return "an all-to-all exchanges plain A only";
  const int64_t split = *args.exchangeSplit, concat = args.dim;
  for (auto [name, dim] : {std::pair{"split", split}, {"concat", concat}})
    if (dim < 0 || dim >= a.rank())
      return std::string(name) + " dim " + std::to_string(dim) +
             " is out of range for " + a.typeString();
  if (args.schedule.ring())
    return "an all-to-all exchange cannot run the ring schedule: each member "
           "takes a different block (use per_peer or coalesced)";
  if (a.dim(split) % groupSize != 0)
    return "the split dim " + std::to_string(split) + " (" +
           std::to_string(a.dim(split)) +
           ") is not divisible by the group "
           "size " +
           std::to_string(groupSize);
  std::vector<int64_t> exchanged = a.shape();
  exchanged[split] /= groupSize;
  if (__builtin_mul_overflow(exchanged[concat], int64_t(groupSize),
                             &exchanged[concat]))
    return "the concat dim of " + a.typeString() + " times the group size " +
           "overflows int64";
  for (size_t i = 0; i < args.bs.size(); ++i) {
    std::string name = "B #" + std::to_string(i);
    const Tensor &b = *args.bs[i].data;
    int64_t bk = 0, n = 0;
    std::string why;
    if (b.rank() > 2) {
      // One B per leading block: B's leading dims are A's, and the blocks
      // stack along the rows.
      std::vector<int64_t> leading(exchanged.begin(), exchanged.end() - 2);
      if (concat != a.rank() - 2 || b.rank() != a.rank() ||
          std::vector<int64_t>(b.shape().begin(), b.shape().end() - 2) !=
              leading)
        return name + " " + b.typeString() +
               " is per batch, which needs the blocks stacked along the rows "
               "(concat " +
               std::to_string(a.rank() - 2) +
               ") and B's leading dims equal to the exchanged A's";
      bk = b.dim(b.rank() - (args.transposeB ? 1 : 2));
      n = b.dim(b.rank() - (args.transposeB ? 2 : 1));
    } else {
      why = kAndN(name.c_str(), b, args.transposeB, bk, n);
    }
    if (why.empty() && bk != exchanged.back())
      why = contractionMismatch("the exchanged A", exchanged.back(),
                                *args.bs[i].data, bk);
    if (why.empty())
      why =
          checkMatmulBias(i < args.biases.size() ? args.biases[i] : nullptr, n);
    if (!why.empty())
      return why;
  }
  return "";
}

std::string abi::checkMatmulReduceScatter(const MatmulReduceScatterArgs &args,
                                          int groupSize) {
  const Tensor &a = *args.a.data;
  if (a.rank() < 2)
    return "A must have at least 2 dims, got " + a.typeString();
  std::string why = checkScales("A", args.a);
  if (why.empty())
    why = checkScales("B", args.b);
  int64_t k = 0, n = 0;
  if (why.empty())
    why = kAndN("B", *args.b.data, args.transposeB || args.b.isScaled(), k, n);
  if (why.empty() && a.dim(a.rank() - 1) != k)
    why = contractionMismatch(a.typeString(), a.dim(a.rank() - 1),
                              *args.b.data, k);
  if (!why.empty())
    return why;
  std::vector<int64_t> product = a.shape();
  product.back() = n;
  if (args.dim < 0 || args.dim >= static_cast<int64_t>(product.size()))
    return "dim " + std::to_string(args.dim) + " is out of range for the " +
           "product of " + a.typeString();
  if (product[args.dim] % groupSize != 0)
    return "the product's dim " + std::to_string(args.dim) + " (" +
           std::to_string(product[args.dim]) +
           ") is not divisible by the group size " + std::to_string(groupSize);
  if (args.addend && args.addend->shape() != product)
    return "addend " + args.addend->typeString() +
           " does not have the product's shape " +
           Tensor::typeStringOf(args.addend->dtype(), product);
  return checkMatmulBias(args.bias, n);
}

std::string abi::checkMatmulAllToAll(const MatmulReduceScatterArgs &args,
                                     int groupSize) {
  const Tensor &a = *args.a.data, &b = *args.b.data;
  if (a.rank() < 2)
    return "A must have at least 2 dims, got " + a.typeString();
  if (args.a.isScaled() || args.b.isScaled())
    return "a matmul-all-to-all multiplies plain A and B only";
  const int64_t split = args.dim, concat = *args.exchangeConcat;
  for (auto [name, dim] : {std::pair{"split", split}, {"concat", concat}})
    if (dim < 0 || dim >= a.rank())
      return std::string(name) + " dim " + std::to_string(dim) +
             " is out of range for the product of " + a.typeString();
  if (args.schedule.ring())
    return "an all-to-all exchange cannot run the ring schedule: each member "
           "takes a different block (use per_peer or coalesced)";
  int64_t k = 0, n = 0;
  std::string why;
  if (b.rank() > 2) {
    // One B per batch: B's leading dims are A's, and the blocks are cut
    // along the rows, so each is made by one B.
    if (split != a.rank() - 2 || b.rank() != a.rank() ||
        std::vector<int64_t>(b.shape().begin(), b.shape().end() - 2) !=
            std::vector<int64_t>(a.shape().begin(), a.shape().end() - 2))
      return "B " + b.typeString() +
             " is per batch, which needs the blocks cut along the rows "
             "(split " +
             std::to_string(a.rank() - 2) + ") and B's leading dims equal " +
             "to A's " + a.typeString();
    k = b.dim(b.rank() - (args.transposeB ? 1 : 2));
    n = b.dim(b.rank() - (args.transposeB ? 2 : 1));
  } else {
    why = kAndN("B", b, args.transposeB, k, n);
  }
  if (why.empty() && a.dim(a.rank() - 1) != k)
    why = contractionMismatch(a.typeString(), a.dim(a.rank() - 1), b, k);
  if (!why.empty())
    return why;
  std::vector<int64_t> product = a.shape();
  product.back() = n;
  if (product[split] % groupSize != 0)
    return "the product's split dim " + std::to_string(split) + " (" +
           std::to_string(product[split]) +
           ") is not divisible by the group size " + std::to_string(groupSize);
  int64_t stacked = 0;
  if (__builtin_mul_overflow(product[concat] /
                                 (split == concat ? groupSize : 1),
                             int64_t(groupSize), &stacked))
    return "the concat dim of the product of " + a.typeString() +
           " times the group size overflows int64";
  return "";
}
