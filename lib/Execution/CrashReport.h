//===- CrashReport.h - name the rank whose compiled code died ---*- C++ -*-===//

#ifndef TP_LIB_EXECUTION_CRASHREPORT_H
#define TP_LIB_EXECUTION_CRASHREPORT_H

namespace mlir::tp::exec {

/// While alive, a fatal signal on this thread (SIGFPE, SIGSEGV, SIGBUS,
/// SIGILL, SIGABRT) prints "<program>: rank R died running @entry: <signal>"
/// and exits with status 1. Signals elsewhere go to the handlers installed
/// before (a sanitizer's, the default). The handler runs on an alternate
/// stack, so a stack overflow is reported too.
class CrashScope {
public:
  CrashScope(int rank, const char *entry);
  ~CrashScope();
  CrashScope(const CrashScope &) = delete;
  CrashScope &operator=(const CrashScope &) = delete;
};

} // namespace mlir::tp::exec

#endif // TP_LIB_EXECUTION_CRASHREPORT_H
