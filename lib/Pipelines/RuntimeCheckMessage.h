//===- RuntimeCheckMessage.h - messages of tp's runtime checks --*- C++ -*-===//
//
// The tp-check-* passes assert what LLVM would otherwise leave undefined;
// their failures read like upstream's runtime verification, so users see one
// format whichever check fired.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_CONVERSION_TPTORUNTIME_RUNTIMECHECKMESSAGE_H
#define TP_LIB_CONVERSION_TPTORUNTIME_RUNTIMECHECKMESSAGE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::tp {

/// "ERROR: Runtime op verification failed\n'<op>' <what>\nLocation: <loc>".
inline std::string runtimeCheckFailure(Operation *op, const llvm::Twine &what) {
  std::string text = "ERROR: Runtime op verification failed\n'";
  text +=
      op->getName().getStringRef().str() + "' " + what.str() + "\nLocation: ";
  llvm::raw_string_ostream os(text);
  os << op->getLoc();
  return text;
}

} // namespace mlir::tp

#endif // TP_LIB_CONVERSION_TPTORUNTIME_RUNTIMECHECKMESSAGE_H
