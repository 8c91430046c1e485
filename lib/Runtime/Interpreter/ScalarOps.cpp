//===- ScalarOps.cpp - arith and math on scalars --------------------------===//
//
// Floats are computed in double and rounded to the op's type after every op,
// which gives the correctly rounded f32/f16/bf16 result for +, -, *, / and
// sqrt; integers wrap to their width.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"
#include "tp/Runtime/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::exec;

std::string exec::siteOf(Operation *op) {
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

Scalar exec::roundScalar(Scalar value, Type type) {
  type = getElementTypeOrSelf(type);
  if (auto floatType = dyn_cast<FloatType>(type)) {
    std::optional<rt::DType> dtype = toDType(floatType);
    if (dtype && *dtype != rt::DType::F64) {
      uint64_t bits = 0;
      rt::storeElement(&bits, *dtype, 0, value.f);
      value.f = rt::loadElement(&bits, *dtype, 0);
    }
    return value;
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (width == 1)
      value.i &= 1;
    else if (width < 64)
      value.i = (value.i << (64 - width)) >> (64 - width);
  }
  return value;
}

static bool compareInt(arith::CmpIPredicate p, int64_t a, int64_t b) {
  uint64_t ua = a, ub = b;
  switch (p) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

static bool compareFloat(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  }
  return false;
}

rt::Status exec::evalScalarOp(Operation *op, ArrayRef<Scalar> in, Scalar &out) {
  auto f = [&](unsigned i) { return in[i].f; };
  auto i = [&](unsigned n) { return in[n].i; };
  // Narrow integers are kept sign-extended; unsigned ops see their bits only.
  auto widthOf = [&](unsigned n) {
    Type type = getElementTypeOrSelf(op->getOperand(n).getType());
    return type.isIntOrIndex() && !type.isIndex() ? type.getIntOrFloatBitWidth()
                                                  : 64u;
  };
  auto u = [&](unsigned n) {
    unsigned width = widthOf(n);
    uint64_t bits = static_cast<uint64_t>(in[n].i);
    return width >= 64 ? bits : bits & ((uint64_t(1) << width) - 1);
  };
  bool known = true;
  bool divByZero = false;
  llvm::TypeSwitch<Operation *>(op)
      // Floats.
      .Case([&](arith::AddFOp) { out.f = f(0) + f(1); })
      .Case([&](arith::SubFOp) { out.f = f(0) - f(1); })
      .Case([&](arith::MulFOp) { out.f = f(0) * f(1); })
      .Case([&](arith::DivFOp) { out.f = f(0) / f(1); })
      .Case([&](arith::RemFOp) { out.f = std::fmod(f(0), f(1)); })
      .Case([&](arith::NegFOp) { out.f = -f(0); })
      .Case([&](arith::MaximumFOp) {
        out.f =
            std::isnan(f(0)) || std::isnan(f(1)) ? NAN : std::max(f(0), f(1));
      })
      .Case([&](arith::MinimumFOp) {
        out.f =
            std::isnan(f(0)) || std::isnan(f(1)) ? NAN : std::min(f(0), f(1));
      })
      .Case([&](arith::MaxNumFOp) { out.f = std::fmax(f(0), f(1)); })
      .Case([&](arith::MinNumFOp) { out.f = std::fmin(f(0), f(1)); })
      .Case([&](math::AbsFOp) { out.f = std::fabs(f(0)); })
      .Case([&](math::SqrtOp) { out.f = std::sqrt(f(0)); })
      .Case([&](math::RsqrtOp) { out.f = 1.0 / std::sqrt(f(0)); })
      .Case([&](math::ExpOp) { out.f = std::exp(f(0)); })
      .Case([&](math::Exp2Op) { out.f = std::exp2(f(0)); })
      .Case([&](math::ExpM1Op) { out.f = std::expm1(f(0)); })
      .Case([&](math::LogOp) { out.f = std::log(f(0)); })
      .Case([&](math::Log2Op) { out.f = std::log2(f(0)); })
      .Case([&](math::Log1pOp) { out.f = std::log1p(f(0)); })
      .Case([&](math::TanhOp) { out.f = std::tanh(f(0)); })
      .Case([&](math::SinOp) { out.f = std::sin(f(0)); })
      .Case([&](math::CosOp) { out.f = std::cos(f(0)); })
      .Case([&](math::ErfOp) { out.f = std::erf(f(0)); })
      .Case([&](math::FloorOp) { out.f = std::floor(f(0)); })
      .Case([&](math::CeilOp) { out.f = std::ceil(f(0)); })
      .Case([&](math::RoundOp) { out.f = std::round(f(0)); })
      .Case([&](math::PowFOp) { out.f = std::pow(f(0), f(1)); })
      .Case([&](math::FmaOp) { out.f = f(0) * f(1) + f(2); })
      .Case([&](math::CopySignOp) { out.f = std::copysign(f(0), f(1)); })
      // Integers and index.
      .Case([&](arith::AddIOp) { out.i = static_cast<int64_t>(u(0) + u(1)); })
      .Case([&](arith::SubIOp) { out.i = static_cast<int64_t>(u(0) - u(1)); })
      .Case([&](arith::MulIOp) { out.i = static_cast<int64_t>(u(0) * u(1)); })
      .Case([&](arith::DivSIOp) {
        divByZero = i(1) == 0;
        // INT64_MIN / -1 overflows: it wraps, as two's complement does.
        out.i = divByZero      ? 0
                : (i(1) == -1) ? static_cast<int64_t>(0 - u(0))
                               : i(0) / i(1);
      })
      .Case([&](arith::DivUIOp) {
        divByZero = i(1) == 0;
        out.i = divByZero ? 0 : static_cast<int64_t>(u(0) / u(1));
      })
      .Case([&](arith::CeilDivSIOp) {
        divByZero = i(1) == 0;
        if (!divByZero)
          out.i =
              i(0) / i(1) + ((i(0) % i(1) != 0) && ((i(0) < 0) == (i(1) < 0)));
      })
      .Case([&](arith::FloorDivSIOp) {
        divByZero = i(1) == 0;
        if (!divByZero)
          out.i =
              i(0) / i(1) - ((i(0) % i(1) != 0) && ((i(0) < 0) != (i(1) < 0)));
      })
      .Case([&](arith::RemSIOp) {
        divByZero = i(1) == 0;
        out.i = divByZero || i(1) == -1 ? 0 : i(0) % i(1);
      })
      .Case([&](arith::RemUIOp) {
        divByZero = i(1) == 0;
        out.i = divByZero ? 0 : static_cast<int64_t>(u(0) % u(1));
      })
      .Case([&](arith::AndIOp) { out.i = i(0) & i(1); })
      .Case([&](arith::OrIOp) { out.i = i(0) | i(1); })
      .Case([&](arith::XOrIOp) { out.i = i(0) ^ i(1); })
      .Case([&](arith::MaxSIOp) { out.i = std::max(i(0), i(1)); })
      .Case([&](arith::MinSIOp) { out.i = std::min(i(0), i(1)); })
      .Case([&](arith::MaxUIOp) {
        out.i = static_cast<int64_t>(std::max(u(0), u(1)));
      })
      .Case([&](arith::MinUIOp) {
        out.i = static_cast<int64_t>(std::min(u(0), u(1)));
      })
      .Case([&](arith::ShLIOp) {
        out.i = static_cast<int64_t>(u(0) << (u(1) & 63));
      })
      .Case([&](arith::ShRSIOp) { out.i = i(0) >> (u(1) & 63); })
      .Case([&](arith::ShRUIOp) {
        out.i = static_cast<int64_t>(u(0) >> (u(1) & 63));
      })
      .Case([&](arith::CmpIOp cmp) {
        out.i = compareInt(cmp.getPredicate(), i(0), i(1));
      })
      .Case([&](arith::CmpFOp cmp) {
        out.i = compareFloat(cmp.getPredicate(), f(0), f(1));
      })
      .Case([&](arith::SelectOp) { out = in[0].i ? in[1] : in[2]; })
      // Casts.
      .Case<arith::IndexCastOp, arith::TruncIOp>(
          [&](Operation *) { out.i = i(0); })
      .Case([&](arith::IndexCastUIOp) { out.i = static_cast<int64_t>(u(0)); })
      .Case([&](arith::ExtSIOp) {
        // Sign-extend from the source width (an i1 `true` becomes -1).
        unsigned width = widthOf(0);
        out.i = width >= 64 ? i(0)
                            : static_cast<int64_t>(u(0) << (64 - width)) >>
                                  (64 - width);
      })
      .Case([&](arith::ExtUIOp) { out.i = static_cast<int64_t>(u(0)); })
      .Case([&](arith::SIToFPOp) { out.f = static_cast<double>(i(0)); })
      .Case([&](arith::UIToFPOp) { out.f = static_cast<double>(u(0)); })
      .Case([&](arith::FPToSIOp) { out.i = static_cast<int64_t>(f(0)); })
      .Case([&](arith::FPToUIOp) {
        out.i = static_cast<int64_t>(static_cast<uint64_t>(f(0)));
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) { out.f = f(0); })
      .Default([&](Operation *) { known = false; });
  if (!known)
    return rt::Status::error(siteOf(op) + ": unsupported operation");
  if (divByZero)
    return rt::Status::error(siteOf(op) + ": integer division by zero");
  out = roundScalar(out, op->getResult(0).getType());
  return rt::Status::ok();
}
