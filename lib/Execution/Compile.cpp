//===- Compile.cpp - lower a per-rank program and JIT it ------------------===//
//
// The entry is given arguments and results that are all unranked
// (scalars as rank-0 tensors), so one calling convention serves every
// signature: the driver passes (context, rank and descriptor per argument)
// and reads back a {rank, descriptor} pair per result.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Pipelines/LowerToLLVM.h"
#include "tp/Pipelines/Passes.h"
#include "tp/Pipelines/Pipelines.h"
#include "tp/Runtime/ABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string_view>

using namespace mlir;
using namespace mlir::tp;

const char *const exec::kExposedEntryName = "__tp_entry";

/// memref<*xT> for a memref of T or a scalar T.
static Type unrankedOf(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return UnrankedMemRefType::get(memref.getElementType(), 0);
  return UnrankedMemRefType::get(type, 0);
}

/// Makes the bufferized `entry` `__tp_entry`: (context, unranked buffers)
/// -> unranked buffers, scalars as rank-0 buffers. Arguments are the
/// caller's buffers, cast without a copy (the driver checks their shapes; the
/// entry never writes them), results are the entry's own. The casts go into
/// the entry itself rather than into a wrapper that calls it: such a call
/// passes every argument's expanded descriptor and returns every result's
/// (over a thousand scalars for a deep training step), one block of stack
/// traffic that LLVM's schedulers take superlinear time over. An entry the
/// program also calls keeps its name and body for those calls, and the
/// exposed function is a copy.
static void exposeEntry(func::FuncOp entry) {
  auto module = entry->getParentOfType<ModuleOp>();
  if (!SymbolTable::symbolKnownUseEmpty(entry, module)) {
    auto copy = entry.clone();
    module.insert(std::next(Block::iterator(entry)), copy);
    entry = copy;
  }
  entry.setName(exec::kExposedEntryName);
  entry.setPublic();
  // The driver calls the packed form of __tp_entry, never the C interface.
  entry->removeAttr("llvm.emit_c_interface");
  OpBuilder b(entry->getContext());
  Location loc = entry.getLoc();
  Block &body = entry.front();
  b.setInsertionPointToStart(&body);
  // Argument 0 is the rank context.
  for (BlockArgument arg : body.getArguments().drop_front()) {
    Type type = arg.getType();
    arg.setType(unrankedOf(type));
    if (isa<MemRefType>(type)) {
      auto cast = memref::CastOp::create(b, loc, type, arg);
      arg.replaceAllUsesExcept(cast, cast);
      continue;
    }
    auto cast = memref::CastOp::create(b, loc, MemRefType::get({}, type), arg);
    Value scalar = memref::LoadOp::create(b, loc, cast, ValueRange{});
    arg.replaceAllUsesExcept(scalar, cast);
  }
  entry.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value value = operand.get();
      if (!isa<MemRefType>(value.getType())) {
        Value buffer = memref::AllocOp::create(
            b, loc, MemRefType::get({}, value.getType()));
        memref::StoreOp::create(b, loc, value, buffer, ValueRange{});
        value = buffer;
      }
      operand.set(memref::CastOp::create(
          b, loc, unrankedOf(operand.get().getType()), value));
    }
  });
  SmallVector<Type> results;
  for (Type t : entry.getFunctionType().getResults())
    results.push_back(unrankedOf(t));
  entry.setType(b.getFunctionType(body.getArgumentTypes(), results));
}

/// Runs `build`'s passes on `module`; the errors they report become the
/// returned message. The module is verified once, after the last pass,
/// unless `verifyEachPass`: the program was verified when it was read, and
/// verifying it again after each of the lowering's forty passes took half
/// of their time (unrolled 32-layer Llama step: 5.2 s of passes, 2.1 s
/// without).
static rt::Status runPasses(ModuleOp module,
                            llvm::function_ref<void(OpPassManager &)> build,
                            const std::string &what, bool verifyEachPass) {
  MLIRContext *context = module->getContext();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    llvm::raw_string_ostream os(diagnostics);
    os << (diagnostics.empty() ? "" : "\n");
    if (auto fileLoc = dyn_cast<FileLineColLoc>(diag.getLocation()))
      os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
         << fileLoc.getColumn();
    else
      os << diag.getLocation();
    os << ": " << diag;
    return success();
  });
  PassManager pm(context);
  pm.enableVerifier(verifyEachPass);
  build(pm);
  if (failed(pm.run(module)) || (!verifyEachPass && failed(verify(module))))
    return rt::Status::error(what +
                             (diagnostics.empty() ? "" : ": " + diagnostics));
  return rt::Status::ok();
}

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The runtime entry points compiled code calls, bound by name: tp-run links
/// the runtime statically, so the JIT cannot find them as exported symbols.
static llvm::orc::SymbolMap
runtimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap symbols;
  auto bind = [&](const char *name, auto *function) {
    symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                             llvm::JITSymbolFlags::Exported};
  };
#define TP_RT_BIND_BUFFER(NAME, DTYPE)                                         \
  bind("_mlir_ciface_tp_rt_buffer_" #NAME, &_mlir_ciface_tp_rt_buffer_##NAME);
  TP_RT_BUFFER_TYPES(TP_RT_BIND_BUFFER)
#undef TP_RT_BIND_BUFFER
  bind("_mlir_ciface_tp_rt_all_gather", &_mlir_ciface_tp_rt_all_gather);
  bind("_mlir_ciface_tp_rt_reduce_scatter", &_mlir_ciface_tp_rt_reduce_scatter);
  bind("_mlir_ciface_tp_rt_all_reduce", &_mlir_ciface_tp_rt_all_reduce);
  bind("_mlir_ciface_tp_rt_all_to_all", &_mlir_ciface_tp_rt_all_to_all);
  bind("_mlir_ciface_tp_rt_group_rank", &_mlir_ciface_tp_rt_group_rank);
  bind("_mlir_ciface_tp_rt_matmul", &_mlir_ciface_tp_rt_matmul);
  bind("_mlir_ciface_tp_rt_scaled_matmul", &_mlir_ciface_tp_rt_scaled_matmul);
  bind("_mlir_ciface_tp_rt_quantize", &_mlir_ciface_tp_rt_quantize);
  bind("_mlir_ciface_tp_rt_dequantize", &_mlir_ciface_tp_rt_dequantize);
  bind("_mlir_ciface_tp_rt_all_gather_matmul",
       &_mlir_ciface_tp_rt_all_gather_matmul);
  bind("_mlir_ciface_tp_rt_all_to_all_matmul",
       &_mlir_ciface_tp_rt_all_to_all_matmul);
  bind("_mlir_ciface_tp_rt_all_gather_contract",
       &_mlir_ciface_tp_rt_all_gather_contract);
  bind("_mlir_ciface_tp_rt_matmul_all_to_all",
       &_mlir_ciface_tp_rt_matmul_all_to_all);
  bind("_mlir_ciface_tp_rt_matmul_reduce_scatter",
       &_mlir_ciface_tp_rt_matmul_reduce_scatter);
  bind("_mlir_ciface_tp_rt_extf_f8", &_mlir_ciface_tp_rt_extf_f8);
  bind("_mlir_ciface_tp_rt_truncf_f8", &_mlir_ciface_tp_rt_truncf_f8);
  // memref.copy of strided buffers lowers to this libmlir_c_runner_utils
  // entry; the runtime has its own, so no MLIR library is loaded.
  bind("memrefCopy", &tp_rt_memref_copy);
  bind("_mlir_memref_to_llvm_alloc", &_mlir_memref_to_llvm_alloc);
  bind("_mlir_memref_to_llvm_aligned_alloc",
       &_mlir_memref_to_llvm_aligned_alloc);
  bind("_mlir_memref_to_llvm_free", &_mlir_memref_to_llvm_free);
  return symbols;
}

/// JIT-compiles the lowered `module` for the host CPU into `impl`; `glue`
/// adds the entry points its code calls.
static rt::Status jit(ModuleOp module, const GlueLowering *glue,
                      CompiledProgram::Impl &impl) {
  initializeNativeTarget();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  // The host's own CPU and features: without them LLVM neither vectorizes
  // the glue's loops nor emits FMA instructions.
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return rt::Status::error("cannot describe this host to LLVM: " +
                             llvm::toString(machineBuilder.takeError()));
  // Upstream's default writes a perf jitdump under $TMPDIR/.debug for every
  // compile, which no one removes; profiling with perf opts in.
  const char *perfDump = std::getenv("TP_JIT_PERF_DUMP");
  exec::Jit::Options jitOptions;
  jitOptions.perfListener = perfDump && std::string_view(perfDump) == "1";
  jitOptions.symbols = [glue](llvm::orc::MangleAndInterner mangle) {
    llvm::orc::SymbolMap symbols = runtimeSymbols(mangle);
    if (glue)
      for (const auto &[name, address] : glue->symbols)
        symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return symbols;
  };
  auto compiled = exec::Jit::create(module, exec::kExposedEntryName,
                                    *machineBuilder, std::move(jitOptions));
  if (!compiled)
    return rt::Status::error("cannot JIT @" + impl.entryName + ": " +
                             llvm::toString(compiled.takeError()));
  impl.jit = std::move(*compiled);
  auto function = impl.jit->lookupPacked(exec::kExposedEntryName);
  if (!function)
    return rt::Status::error("cannot find the compiled @" + impl.entryName +
                             ": " + llvm::toString(function.takeError()));
  impl.function = *function;
  return rt::Status::ok();
}

rt::Status CompiledProgram::compile(func::FuncOp entry,
                                    const ExecutionOptions &options,
                                    std::unique_ptr<CompiledProgram> &program) {
  auto start = std::chrono::steady_clock::now();
  auto original = entry->getParentOfType<ModuleOp>();
  TP_RETURN_IF_ERROR(checkProgram(entry, options.ranks));

  auto impl = std::make_unique<Impl>();
  impl->entryName = entry.getName().str();
  impl->reportCrashes = options.reportCrashes;
  for (Type t : entry.getFunctionType().getInputs()) {
    impl->argTypes.push_back(*toDType(t));
    std::vector<int64_t> shape;
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    impl->argShapes.push_back(shape);
  }
  for (Type t : entry.getFunctionType().getResults())
    impl->resultTypes.push_back(*toDType(t));
  // Whatever registry the caller's context has, the lowering needs the
  // dialects it produces and the bufferization and verification models.
  MLIRContext *context = original->getContext();
  DialectRegistry lowering;
  registerTPDialects(lowering);
  context->appendDialectRegistry(lowering);
  OwningOpRef<ModuleOp> module = original.clone();
  if (module->lookupSymbol(exec::kExposedEntryName))
    return rt::Status::error("the program defines @" +
                             std::string(exec::kExposedEntryName) +
                             ", a name tp-run reserves");
  // Only what the entry reaches is compiled: other functions of the file may
  // be meant for other runs (other rank counts, other entries).
  auto copiedEntry = module->lookupSymbol<func::FuncOp>(entry.getName());
  SmallVector<func::FuncOp> reachable = functionsReachableFrom(copiedEntry);
  for (auto func : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (!func.isDeclaration() && !llvm::is_contained(reachable, func))
      func.erase();
  // The caller's inputs are read, never written in place.
  for (unsigned i = 0; i < copiedEntry.getNumArguments(); ++i)
    if (isa<TensorType>(copiedEntry.getArgumentTypes()[i]))
      copiedEntry.setArgAttr(i, "bufferization.writable",
                             BoolAttr::get(context, false));

  std::string what = "cannot compile @" + entry.getName().str();
  if (const GlueLowering *glue = options.glue) {
    what += " with its glue for " + glue->name;
    DialectRegistry glueDialects;
    glue->registerDialects(glueDialects);
    context->appendDialectRegistry(glueDialects);
    // Shared buffers copy a public function's inputs in and results out:
    // the entry is called with host memory and its results freed with free,
    // even when --entry names a private function.
    copiedEntry.setPublic();
    TP_RETURN_IF_ERROR(
        runPasses(*module, glue->bufferize, what, options.verifyEachPass));
    // After the buffers are shared: the driver hands the entry host memory
    // and takes back the host copies of its results.
    exposeEntry(copiedEntry);
    TP_RETURN_IF_ERROR(
        runPasses(*module, glue->lower, what, options.verifyEachPass));
  } else {
    LowerToLLVMOptions pipeline;
    pipeline.runtimeChecks = options.runtimeChecks;
    pipeline.maxFunctionOps = options.maxFunctionOps;
    pipeline.unoptimizedStraightOps = options.unoptimizedStraightOps;
    TP_RETURN_IF_ERROR(runPasses(
        *module,
        [&](OpPassManager &pm) { buildBufferizePipeline(pm, pipeline); }, what,
        options.verifyEachPass));
    exposeEntry(copiedEntry);
    TP_RETURN_IF_ERROR(runPasses(
        *module,
        [&](OpPassManager &pm) { buildBuffersToLLVMPipeline(pm, pipeline); },
        what, options.verifyEachPass));
  }

  TP_RETURN_IF_ERROR(jit(*module, options.glue, *impl));
  program.reset(new CompiledProgram(std::move(impl)));
  program->compileMillis = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count();
  return rt::Status::ok();
}

CompiledProgram::CompiledProgram(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
CompiledProgram::~CompiledProgram() = default;
