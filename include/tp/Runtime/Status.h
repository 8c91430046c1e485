//===- Status.h - errors without exceptions ---------------------*- C++ -*-===//
//
// The project builds with LLVM's flags (-fno-exceptions), so runtime calls
// return a Status: success, or a one-line message naming what failed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_STATUS_H
#define TP_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace mlir::tp::rt {

class [[nodiscard]] Status {
public:
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool isOk() const { return !failed; }
  explicit operator bool() const { return !failed; }
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

/// Returns from the enclosing function when `expr` fails.
#define TP_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    ::mlir::tp::rt::Status _tp_status = (expr);                                \
    if (!_tp_status.isOk())                                                    \
      return _tp_status;                                                       \
  } while (false)

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_STATUS_H
