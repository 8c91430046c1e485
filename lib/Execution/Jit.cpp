//===- Jit.cpp - JIT a lowered module, two code generation levels ---------===//

#include "Jit.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/IRCompileLayer.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#include <optional>

using namespace mlir;
using namespace mlir::tp::exec;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

/// The identifier of the module whose code is generated without
/// optimizations.
static const char kUnoptimizedPart[] = "tp.unoptimized";

static std::string packedName(StringRef name) {
  return ("_mlir_" + name).str();
}

/// The value of each top-level field of `aggregate` (null: poison, nothing
/// to store) when insertvalue instructions of one index each built it from
/// poison, as func-to-llvm packs a function's results; std::nullopt
/// otherwise.
static std::optional<llvm::SmallVector<llvm::Value *>>
insertedFields(llvm::Value *aggregate) {
  llvm::Type *type = aggregate->getType();
  unsigned count = type->isStructTy() ? type->getStructNumElements()
                                      : type->getArrayNumElements();
  llvm::SmallVector<llvm::Value *> fields(count, nullptr);
  llvm::Value *chain = aggregate;
  // From the last insertion back: the first one seen for a field is its
  // value.
  while (auto *insert = llvm::dyn_cast<llvm::InsertValueInst>(chain)) {
    if (insert->getNumIndices() != 1)
      return std::nullopt;
    llvm::Value *&field = fields[insert->getIndices().front()];
    if (!field)
      field = insert->getInsertedValueOperand();
    chain = insert->getAggregateOperand();
  }
  if (!llvm::isa<llvm::PoisonValue, llvm::UndefValue>(chain))
    return std::nullopt;
  return fields;
}

/// Makes `entry` itself `_mlir_<name>(void **args)`: it loads each of its
/// arguments through `args[i]` and stores its result, field by field when
/// it is an aggregate, through `args[#arguments]`. A deep training step
/// takes and returns a descriptor for each of hundreds of buffers, and LLVM's
/// instruction selection took time quadratic in their number, both for a
/// call that passes them all (a wrapper's) and for the insertvalue
/// instructions that pack them into one returned aggregate (llc -O0 on the
/// unrolled 64-layer Llama step as tp-opt lowers it: 6.0 s of 8.9 in
/// instruction selection, 1.7 of 2.2 at 32 layers). Returns false, changing
/// nothing, when something else calls `entry` or it builds its result
/// another way.
static bool packInPlace(llvm::Function &entry) {
  llvm::Type *resultType = entry.getReturnType();
  if (!entry.use_empty() || entry.isVarArg())
    return false;
  llvm::SmallVector<std::pair<llvm::ReturnInst *,
                              std::optional<llvm::SmallVector<llvm::Value *>>>>
      returns;
  for (llvm::BasicBlock &block : entry) {
    auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator());
    if (!ret)
      continue;
    returns.emplace_back(ret, std::nullopt);
    if (!resultType->isAggregateType())
      continue;
    returns.back().second = insertedFields(ret->getReturnValue());
    if (!returns.back().second)
      return false;
  }

  llvm::LLVMContext &context = entry.getContext();
  llvm::IRBuilder<> b(context);
  auto *packed = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), b.getPtrTy(), false),
      llvm::GlobalValue::ExternalLinkage, packedName(entry.getName()),
      entry.getParent());
  packed->setAttributes(llvm::AttributeList::get(
      context, llvm::AttributeList::FunctionIndex,
      llvm::AttrBuilder(context, entry.getAttributes().getFnAttrs())));
  packed->setSubprogram(entry.getSubprogram());
  entry.setSubprogram(nullptr);
  packed->splice(packed->end(), &entry);

  llvm::Value *slots = packed->getArg(0);
  b.SetInsertPoint(&packed->getEntryBlock(),
                   packed->getEntryBlock().getFirstInsertionPt());
  auto slot = [&](uint64_t i) {
    return b.CreateLoad(b.getPtrTy(),
                        b.CreateConstGEP1_64(b.getPtrTy(), slots, i));
  };
  for (llvm::Argument &argument : entry.args()) {
    llvm::Value *value =
        b.CreateLoad(argument.getType(), slot(argument.getArgNo()));
    value->takeName(&argument);
    argument.replaceAllUsesWith(value);
  }
  llvm::Value *out = resultType->isVoidTy() ? nullptr : slot(entry.arg_size());

  for (auto &[ret, fields] : returns) {
    b.SetInsertPoint(ret);
    llvm::Value *result = ret->getReturnValue();
    if (fields) {
      for (auto [i, field] : llvm::enumerate(*fields))
        if (field)
          b.CreateStore(field,
                        b.CreateConstInBoundsGEP2_32(resultType, out, 0, i));
    } else if (result) {
      b.CreateStore(result, out);
    }
    b.CreateRetVoid();
    ret->eraseFromParent();
    if (fields)
      llvm::RecursivelyDeleteTriviallyDeadInstructions(result);
  }
  entry.eraseFromParent();
  return true;
}

/// Defines `_mlir_<name>(void **args)`, which loads each argument of @name
/// through `args[i]` and stores its result through `args[#arguments]`: one
/// C signature for every entry. @name becomes that function itself when it
/// can (packInPlace); otherwise the function calls it.
static Error addPackedEntry(llvm::Module &module, StringRef name) {
  llvm::Function *entry = module.getFunction(name);
  if (!entry || entry->isDeclaration())
    return llvm::createStringError("the lowered module defines no @" + name);
  if (packInPlace(*entry))
    return Error::success();
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), b.getPtrTy(), false),
      llvm::GlobalValue::ExternalLinkage, packedName(name), module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "", wrapper));
  llvm::Value *slots = wrapper->getArg(0);
  auto slot = [&](uint64_t i) {
    return b.CreateLoad(b.getPtrTy(),
                        b.CreateConstGEP1_64(b.getPtrTy(), slots, i));
  };
  llvm::SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &argument : entry->args())
    arguments.push_back(
        b.CreateLoad(argument.getType(), slot(argument.getArgNo())));
  // A wrapper of an unoptimized entry moves as many values as it takes;
  // it is not worth optimizing either.
  if (entry->hasOptNone()) {
    wrapper->addFnAttr(llvm::Attribute::OptimizeNone);
    wrapper->addFnAttr(llvm::Attribute::NoInline);
  }
  llvm::Value *result = b.CreateCall(entry, arguments);
  if (!result->getType()->isVoidTy())
    b.CreateStore(result, slot(entry->arg_size()));
  b.CreateRetVoid();
  return Error::success();
}

/// Adds the global values `value` refers to, through constant expressions
/// and initializers' aggregates, to `globals`.
static void collectGlobals(llvm::Value *value,
                           llvm::SmallPtrSetImpl<llvm::GlobalValue *> &globals,
                           llvm::SmallPtrSetImpl<llvm::Constant *> &visited) {
  if (auto *global = llvm::dyn_cast<llvm::GlobalValue>(value)) {
    globals.insert(global);
    return;
  }
  auto *constant = llvm::dyn_cast<llvm::Constant>(value);
  if (!constant || !visited.insert(constant).second)
    return;
  for (llvm::Value *operand : constant->operands())
    collectGlobals(operand, globals, visited);
}

/// Moves the optnone function definitions of `module` into a module of
/// their own, or returns null when there are none. What they refer to stays
/// in `module`, given external (hidden) linkage so that the two link by
/// name in one JITDylib.
static std::unique_ptr<llvm::Module> splitOffUnoptimized(llvm::Module &module) {
  llvm::SmallPtrSet<const llvm::GlobalValue *, 4> unoptimized;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.hasOptNone())
      unoptimized.insert(&function);
  if (unoptimized.empty())
    return nullptr;

  llvm::SmallPtrSet<llvm::GlobalValue *, 32> shared;
  llvm::SmallPtrSet<llvm::Constant *, 32> visited;
  for (llvm::Function &function : module) {
    if (!unoptimized.contains(&function))
      continue;
    shared.insert(&function);
    for (llvm::Instruction &instruction : llvm::instructions(function))
      for (llvm::Value *operand : instruction.operands())
        collectGlobals(operand, shared, visited);
  }
  unsigned unnamed = 0;
  for (llvm::GlobalValue *global : shared) {
    if (!global->hasLocalLinkage())
      continue;
    if (!global->hasName())
      global->setName("__tp_jit_shared." + llvm::Twine(unnamed++));
    global->setLinkage(llvm::GlobalValue::ExternalLinkage);
    global->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }

  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> part =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *global) {
        return unoptimized.contains(global);
      });
  part->setModuleIdentifier(kUnoptimizedPart);
  // The clone declares every global of `module`; the unused declarations
  // go, llvm.global_ctors among them (its constructors run once, from
  // `module`).
  for (llvm::GlobalVariable &global :
       llvm::make_early_inc_range(part->globals()))
    if (global.isDeclaration() && global.use_empty())
      global.eraseFromParent();
  for (llvm::Function &function : llvm::make_early_inc_range(part->functions()))
    if (function.isDeclaration() && function.use_empty())
      function.eraseFromParent();

  for (llvm::Function &function : module)
    if (unoptimized.contains(&function)) {
      function.deleteBody();
      function.removeFnAttr(llvm::Attribute::OptimizeNone);
    }
  return part;
}

/// Runs LLVM's -O2 pipeline on `module` (with the tuning of MLIR's
/// makeOptimizingTransformer), skipping its optnone functions. The new pass
/// manager skips them only through an instrumentation, which
/// makeOptimizingTransformer does not register: InstCombine and the SLP
/// vectorizer then took time quadratic in the length of a deep training
/// step's one block (-O2 of the unrolled 32-layer Llama step: 3.1 s with
/// its entry, 0.5 s without).
static void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::OptNoneInstrumentation optNone(/*DebugLogging=*/false);
  optNone.registerCallbacks(callbacks);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  pipeline.run(module, modules);
}

namespace {
/// Generates the unoptimized part's code at CodeGenOptLevel::None, every
/// other module's at Default.
class TwoLevelCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  TwoLevelCompiler(std::unique_ptr<llvm::TargetMachine> optimizedMachine,
                   std::unique_ptr<llvm::TargetMachine> unoptimizedMachine)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(
            optimizedMachine->Options)),
        optimizedMachine(std::move(optimizedMachine)),
        unoptimizedMachine(std::move(unoptimizedMachine)),
        optimized(*this->optimizedMachine),
        unoptimized(*this->unoptimizedMachine) {}

  Expected<std::unique_ptr<llvm::MemoryBuffer>>
  operator()(llvm::Module &module) override {
    if (module.getModuleIdentifier() == kUnoptimizedPart)
      return unoptimized(module);
    return optimized(module);
  }

private:
  std::unique_ptr<llvm::TargetMachine> optimizedMachine, unoptimizedMachine;
  llvm::orc::SimpleCompiler optimized, unoptimized;
};
} // namespace

Expected<std::unique_ptr<Jit>>
Jit::create(ModuleOp module, StringRef entry,
            const llvm::orc::JITTargetMachineBuilder &host, Options options) {
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, *context);
  if (!llvmModule)
    return llvm::createStringError("cannot translate the module to LLVM IR");

  llvm::orc::JITTargetMachineBuilder optimizedBuilder = host;
  optimizedBuilder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  llvm::orc::JITTargetMachineBuilder unoptimizedBuilder = host;
  unoptimizedBuilder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  auto optimizedMachine = optimizedBuilder.createTargetMachine();
  if (!optimizedMachine)
    return optimizedMachine.takeError();
  auto unoptimizedMachine = unoptimizedBuilder.createTargetMachine();
  if (!unoptimizedMachine)
    return unoptimizedMachine.takeError();
  llvmModule->setDataLayout((*optimizedMachine)->createDataLayout());
  llvmModule->setTargetTriple((*optimizedMachine)->getTargetTriple());

  if (Error error = addPackedEntry(*llvmModule, entry))
    return std::move(error);
  // -O2, as clang's default: -O3's higher unrolling thresholds fully unroll
  // the glue's short reduction loops into blocks whose instruction
  // scheduling then takes twice the compile time (a Llama training step:
  // 9.9 s against 5.0 s), while the glue runs no faster
  // (scripts/bench/compile_depth.py, compiled_glue.py).
  optimize(*llvmModule, **optimizedMachine);
  std::unique_ptr<llvm::Module> unoptimizedPart =
      splitOffUnoptimized(*llvmModule);
  llvm::DataLayout dataLayout = llvmModule->getDataLayout();

  auto createCompiler = [&](llvm::orc::JITTargetMachineBuilder)
      -> Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
    return std::make_unique<TwoLevelCompiler>(std::move(*optimizedMachine),
                                              std::move(*unoptimizedMachine));
  };
  auto createLinker = [&](llvm::orc::ExecutionSession &session)
      -> Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
    auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
        session, [](const llvm::MemoryBuffer &) {
          return std::make_unique<llvm::SectionMemoryManager>();
        });
    // As upstream's ExecutionEngine: gdb sees the compiled functions.
    layer->registerJITEventListener(
        *llvm::JITEventListener::createGDBRegistrationListener());
    if (options.perfListener)
      if (auto *perf = llvm::JITEventListener::createPerfJITEventListener())
        layer->registerJITEventListener(*perf);
    return layer;
  };
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(optimizedBuilder)
                 .setDataLayout(dataLayout)
                 .setCompileFunctionCreator(createCompiler)
                 .setObjectLinkingLayerCreator(createLinker)
                 .create();
  if (!jit)
    return jit.takeError();
  std::unique_ptr<Jit> result(new Jit());
  result->jit = std::move(*jit);

  llvm::orc::JITDylib &main = result->jit->getMainJITDylib();
  auto processSymbols =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          dataLayout.getGlobalPrefix());
  if (!processSymbols)
    return processSymbols.takeError();
  main.addGenerator(std::move(*processSymbols));
  if (options.symbols)
    if (Error error = main.define(llvm::orc::absoluteSymbols(
            options.symbols(llvm::orc::MangleAndInterner(
                result->jit->getExecutionSession(), dataLayout)))))
      return std::move(error);

  llvm::orc::ThreadSafeContext sharedContext(std::move(context));
  if (unoptimizedPart)
    if (Error error = result->jit->addIRModule(llvm::orc::ThreadSafeModule(
            std::move(unoptimizedPart), sharedContext)))
      return std::move(error);
  if (Error error = result->jit->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(llvmModule), sharedContext)))
    return std::move(error);
  if (Error error = result->jit->initialize(main))
    return std::move(error);
  return std::move(result);
}

Jit::~Jit() {
  if (jit)
    llvm::consumeError(jit->deinitialize(jit->getMainJITDylib()));
}

Expected<void (*)(void **)> Jit::lookupPacked(StringRef entry) {
  auto address = jit->lookup(packedName(entry));
  if (!address) {
    // The error may refer to strings the JIT owns; it outlives it as text.
    return llvm::createStringError(llvm::toString(address.takeError()));
  }
  return address->toPtr<void (*)(void **)>();
}
