//===- tp-run.cpp - execute per-rank programs on N ranks ------------------===//
//
//   tp-run FILE --ranks N [--entry F] [--seed S] [--backend cpu|cuda]
//          [--transport loopback|nccl|mpi] [--input-dir D] [--dump-dir D]
//          [--pipeline P] [--compare-pipeline P] [--compare-backend B]
//          [--trace T.json] [--dim-size N] [--arg-shape I=AxB]
//          [--timeout-ms T] [--tolerance X] [--steps N]
//          [--glue cpu|gpu] [--gpu-chip SM] [--cuda-graph]
//          [--no-runtime-checks] [--max-function-ops N]
//          [--unoptimized-straight-ops N] [--verify-each]
//
// (`tp-run --help` describes each.) Values are read, dumped, printed and
// compared by lib/Execution (Values.h), which the C API shares.
//
// The file is imported (tp-import) and its tp.linear layers lowered first, so
// upstream per-rank IR runs as it is. --pipeline transforms the program that
// runs; --compare-pipeline runs the program a second time after another
// pipeline (an empty one: as given) and compares every result on every rank.
// With --transport nccl (cuda) or mpi (cpu) every rank is a process
// (tp/Execution/ProcessRun.h).
//
//===----------------------------------------------------------------------===//

#include "GpuGlue.h"
#include "Source.h"
#include "tp/Execution/Execution.h"
#include "tp/Execution/ProcessRun.h"
#include "tp/Execution/Values.h"
#include "tp/Pipelines/Pipelines.h"
#include "tp/Runtime/Files.h"
#include "tp/Runtime/Interrupts.h"
#include "tp/Runtime/Launch.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/Trace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = mlir::tp::rt;

static cl::OptionCategory runOptions("tp-run options");

static cl::opt<std::string> inputFile(cl::cat(runOptions), cl::Positional,
                                      cl::desc("<input file>"), cl::Required);
static cl::opt<int> numRanks(cl::cat(runOptions), "ranks",
                             cl::desc("Number of ranks"), cl::init(1));
static cl::opt<std::string>
    entryName(cl::cat(runOptions), "entry",
              cl::desc("Function to run (default: the only public one)"));
static cl::opt<uint64_t> seed(cl::cat(runOptions), "seed",
                              cl::desc("Seed of the random inputs"),
                              cl::init(0));
static cl::opt<std::string> backendName(
    cl::cat(runOptions), "backend",
    cl::desc("Runtime backend: cpu (ranks are threads; BLAS GEMMs) or cuda "
             "(cuBLASLt GEMMs and copy-engine transfers on streams; rank r on "
             "GPU r % #GPUs; in builds with the CUDA backend)"),
    cl::init("cpu"));
static cl::opt<std::string> transport(
    cl::cat(runOptions), "transport",
    cl::desc("How ranks communicate: loopback (threads of this process; "
             "cuda: copy-engine copies, N ranks may share a GPU), nccl (cuda: "
             "one process and GPU per rank; tp-run launches them, or run it "
             "under mpirun) or mpi (cpu: one process per rank exchanging MPI "
             "messages; tp-run starts them with mpirun, or run it under "
             "mpirun). Under mpirun the default is nccl for cuda, mpi for cpu"),
    cl::init("loopback"));
static cl::opt<std::string> compareBackend(
    cl::cat(runOptions), "compare-backend",
    cl::desc("Backend of the --compare-pipeline run (default: --backend)"));
static cl::opt<std::string>
    inputDir(cl::cat(runOptions), "input-dir",
             cl::desc("Read rank R's argument I from D/rankR/argI.npy"));
static cl::opt<std::string>
    dumpDir(cl::cat(runOptions), "dump-dir",
            cl::desc("Write D/rankR/argI.npy and D/rankR/resultJ.npy"));
static cl::opt<std::string>
    pipeline(cl::cat(runOptions), "pipeline",
             cl::desc("Pass pipeline applied before running"));
static cl::opt<std::string> comparePipeline(
    cl::cat(runOptions), "compare-pipeline",
    cl::desc("Also run the program after this pipeline ('' = as given) and "
             "compare every result on every rank"));
/// Whether --compare-pipeline was given (its empty value means "as given").
static bool comparing() { return comparePipeline.getNumOccurrences() > 0; }
static cl::opt<std::string> traceFile(
    cl::cat(runOptions), "trace",
    cl::desc("Write a Chrome trace-event JSON file (with --transport nccl: "
             "one per rank, T.rankR.json)"));
static cl::opt<int64_t>
    dimSize(cl::cat(runOptions), "dim-size",
            cl::desc("Size of every dynamic dim of the arguments"),
            cl::init(0));
static cl::list<std::string>
    argShapes(cl::cat(runOptions), "arg-shape",
              cl::desc("Shape of argument I: I=AxBxC"));
static cl::opt<int64_t>
    timeoutMs(cl::cat(runOptions), "timeout-ms",
              cl::desc("Give up when a rank waits longer than this"),
              cl::init(60000));
static cl::opt<int> steps(
    cl::cat(runOptions), "steps",
    cl::desc("Run the program this many times in a row on the same inputs "
             "and print each rank's step times, the bytes the last step "
             "copied between host and device, and how resident memory and "
             "open files grew after warm-up (results are the last step's)"),
    cl::init(1));
static cl::opt<std::string> glueTarget(
    cl::cat(runOptions), "glue",
    cl::desc("Where the glue between tp ops runs: cpu (compiled for the host) "
             "or gpu (kernels in PTX, buffers in host-shared memory; with "
             "--backend cuda)"),
    cl::init("cpu"));
static cl::opt<std::string>
    gpuChip(cl::cat(runOptions), "gpu-chip",
            cl::desc("With --glue gpu: the SM the kernels are compiled for"),
            cl::init("sm_90"));
static cl::opt<bool> cudaGraph(
    cl::cat(runOptions), "cuda-graph",
    cl::desc("With --glue gpu and --steps N (2 or more): run the first step "
             "as usual, then capture every rank's step as one CUDA graph and "
             "replay it for the others (ranks as threads)"),
    cl::init(false));
static cl::opt<bool> noRuntimeChecks(
    cl::cat(runOptions), "no-runtime-checks",
    cl::desc("Compile without upstream's runtime verification (out-of-bounds "
             "slices, bad casts and dynamic shapes that do not fit are then "
             "not reported)"),
    cl::init(false));
static cl::opt<int64_t> maxFunctionOps(
    cl::cat(runOptions), "max-function-ops",
    cl::desc("Compile a function longer than this many top-level ops as "
             "functions of at most that many, which keeps compile time "
             "linear in the program's length (0: as written)"),
    cl::init(256));
static cl::opt<int64_t> unoptimizedStraightOps(
    cl::cat(runOptions), "unoptimized-straight-ops",
    cl::desc("Let LLVM compile a loop-free function of this many LLVM "
             "dialect ops or more (a deep model's step: runtime calls and "
             "buffer bookkeeping) without optimizations, which take "
             "superlinear time over its long blocks (0: optimize every "
             "function)"),
    cl::init(4096));
static cl::opt<bool> verifyEach(
    cl::cat(runOptions), "verify-each",
    cl::desc("Verify the program after each pass of the lowering, not only "
             "after the last (finds the pass that breaks it; compiling takes "
             "about twice as long)"),
    cl::init(false));
static cl::opt<double> tolerance(
    cl::cat(runOptions), "tolerance",
    cl::desc("Largest |a - b| / max|b| accepted per result (default: by "
             "element type, 1e-4 for f32)"),
    cl::init(-1));

/// The first error this process printed: a rank process that fails sends it
/// to whoever reports the run.
static std::string firstError;
/// Whether this rank process has sent its results and no peer waits for it
/// any more (it no longer ends the run when it fails afterwards, e.g. on a
/// compare mismatch). Under MPI every rank also runs the compared program,
/// so that is after the compared run.
static bool rankResultsSent = false;

static int fail(const llvm::Twine &message) {
  if (firstError.empty())
    firstError = message.str();
  llvm::errs() << "tp-run: " << message << "\n";
  return 1;
}

/// fail() for checks that answer whether to go on.
static bool refuse(const llvm::Twine &message) {
  fail(message);
  return false;
}

/// The passes of "P" or "builtin.module(P)", for a module pass manager.
static std::string unanchored(const std::string &text) {
  llvm::StringRef ref(text);
  ref = ref.trim();
  if (ref.consume_front("builtin.module(") && ref.consume_back(")"))
    return ref.str();
  return text;
}

static LogicalResult runPipeline(ModuleOp module, const std::string &text) {
  if (text.empty())
    return success();
  PassManager pm(module->getContext());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(unanchored(text), pm, os))) {
    llvm::errs() << "tp-run: bad pipeline '" << text << "': " << errors << "\n";
    return failure();
  }
  return pm.run(module);
}

static func::FuncOp findEntry(ModuleOp module) {
  if (!entryName.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(entryName);
    if (!func)
      fail("no function @" + entryName);
    return func;
  }
  func::FuncOp found;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isDeclaration())
      continue;
    if (found) {
      fail("several public functions (@" + found.getName() + ", @" +
           func.getName() + "); choose one with --entry");
      return {};
    }
    found = func;
  }
  if (!found)
    fail("no public function to run");
  return found;
}

static bool parseArgShapes(std::map<unsigned, std::vector<int64_t>> &shapes) {
  for (const std::string &spec : argShapes) {
    auto [index, dims] = llvm::StringRef(spec).split('=');
    unsigned i;
    if (index.getAsInteger(10, i) || dims.empty()) {
      fail("bad --arg-shape '" + spec + "'; expected I=AxBxC");
      return false;
    }
    std::vector<int64_t> shape;
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0) {
        fail("bad --arg-shape '" + spec + "'; expected I=AxBxC");
        return false;
      }
      shape.push_back(d);
    }
    if (!shapes.emplace(i, shape).second) {
      fail("--arg-shape gives argument " + llvm::Twine(i) + " twice");
      return false;
    }
  }
  return true;
}

/// Checks the options that need no program.
static bool checkOptions() {
  // Deadlines are computed in nanoseconds: keep them far from overflow.
  constexpr int64_t kLongestTimeoutMs = 1000000000;
  if (numRanks < 1)
    return refuse("--ranks must be at least 1");
  if (timeoutMs < 1 || timeoutMs > kLongestTimeoutMs)
    return refuse("--timeout-ms must be between 1 and " +
                  llvm::Twine(kLongestTimeoutMs) + " (11.6 days), got " +
                  llvm::Twine(timeoutMs.getValue()));
  if (steps < 1 || steps > 100000)
    return refuse("--steps must be between 1 and 100000, got " +
                  llvm::Twine(steps.getValue()));
  if (dimSize < 0)
    return refuse("--dim-size must not be negative, got " +
                  llvm::Twine(dimSize.getValue()));
  if (unoptimizedStraightOps < 0)
    return refuse("--unoptimized-straight-ops must not be negative, got " +
                  llvm::Twine(unoptimizedStraightOps.getValue()));
  if (maxFunctionOps < 0)
    return refuse("--max-function-ops must not be negative, got " +
                  llvm::Twine(maxFunctionOps.getValue()));
  if (tolerance.getNumOccurrences() &&
      !(std::isfinite(tolerance) && tolerance >= 0))
    return refuse("--tolerance must be a finite number >= 0, got " +
                  std::to_string(tolerance.getValue()));
  if (inputFile != "-") {
    std::string why = rt::checkRegularInput(inputFile);
    if (!why.empty())
      return refuse(why);
  }
  if (!traceFile.empty()) {
    llvm::SmallString<128> folder(traceFile.getValue());
    llvm::sys::path::remove_filename(folder);
    if (!folder.empty() && !llvm::sys::fs::is_directory(folder))
      return refuse("cannot write the trace " + traceFile + ": " + folder +
                    " is not a folder");
    if (llvm::sys::fs::is_directory(traceFile))
      return refuse("cannot write the trace " + traceFile +
                    ": it is a folder");
  }
  rt::Status folders = mlir::tp::checkFoldersDisjoint(inputDir, dumpDir);
  if (!folders)
    return refuse(folders.message());
  // Created before the run, so a folder that cannot be made fails early. The
  // folder given is the user's; only what is created below it is ours.
  if (dumpDir.empty())
    return true;
  bool created = !llvm::sys::fs::exists(dumpDir);
  if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
    return refuse("cannot create " + dumpDir + ": " + ec.message());
  // create_directories accepts a file standing where the folder should be.
  if (!llvm::sys::fs::is_directory(dumpDir))
    return refuse("cannot create " + dumpDir + ": " +
                  std::make_error_code(std::errc::not_a_directory).message());
  // Until the dump is written, it says it is not.
  if (rt::Status marked = mlir::tp::markDumpIncomplete(dumpDir); !marked)
    return refuse(marked.message());
  // An interrupted run removes a dump folder it created, and leaves a given
  // one marked incomplete (Interrupts.h).
  if (created)
    rt::trackTemporaryPath(dumpDir);
  return true;
}

/// A failed thread run may leave ranks running in compiled code: end the
/// process at once, without destructors that would pull state from under
/// them.
[[noreturn]] static void exitAfterFailedRun(const std::string &message) {
  fail(message);
  llvm::outs().flush();
  llvm::errs().flush();
  std::_Exit(1);
}

/// Where a rank process writes its trace: T.json -> T.rankR.json.
static std::string rankTracePath(int rank) {
  llvm::SmallString<128> path(traceFile.getValue());
  llvm::sys::path::replace_extension(path,
                                     "rank" + llvm::Twine(rank) + ".json");
  return path.str().str();
}

/// The program of --compare-pipeline, made before anything runs so a bad
/// pipeline, or one that changes the entry's signature, is reported first.
static int prepareReference(ModuleOp original, func::FuncOp entry,
                            OwningOpRef<ModuleOp> &reference) {
  reference = original.clone();
  if (failed(runPipeline(*reference, comparePipeline)))
    return 1;
  func::FuncOp referenceEntry =
      reference->lookupSymbol<func::FuncOp>(entry.getName());
  if (!referenceEntry ||
      referenceEntry.getFunctionType() != entry.getFunctionType())
    return fail("the compared program has no function @" + entry.getName() +
                " of the same type");
  return 0;
}

/// Runs the reference program of --compare-pipeline and compares. With an
/// MPI `mpiGroup` every rank runs it as a process and only the reporting
/// rank compares.
static int
compareWithReference(ModuleOp reference, func::FuncOp entry,
                     mlir::tp::ExecutionOptions options,
                     const std::vector<mlir::tp::RankValues> &perRank,
                     rt::ProcessGroup *mpiGroup) {
  func::FuncOp referenceEntry =
      reference.lookupSymbol<func::FuncOp>(entry.getName());
  std::vector<mlir::tp::RankValues> referenceRuns(numRanks);
  for (int r = 0; r < numRanks; ++r)
    referenceRuns[r].args = perRank[r].args;
  options.trace = nullptr;
  options.steps = 1;
  // The reference keeps its glue on the host.
  options.glue = nullptr;
  options.cudaGraph = false;
  if (!compareBackend.empty())
    options.backend = compareBackend;
  if (mpiGroup) {
    bool reports = false;
    rt::Status status = mlir::tp::runProcesses(
        referenceEntry, options, "mpi", mpiGroup, {}, referenceRuns, reports);
    if (!status)
      mpiGroup->abort("the compared program: " + status.message());
    rankResultsSent = true;
    if (!reports)
      return 0;
  } else if (rt::Status status = mlir::tp::executeSPMD(referenceEntry, options,
                                                       referenceRuns);
             !status) {
    exitAfterFailedRun("the compared program: " + status.message());
  }
  double worst = 0;
  std::string against = (comparePipeline.empty() ? std::string("as given")
                                                 : comparePipeline.getValue()) +
                        " on " + options.backend;
  std::string ran =
      (pipeline.empty() ? std::string("as given") : pipeline.getValue()) +
      " on " + backendName.getValue();
  std::string mismatches;
  if (!mlir::tp::compareResults(perRank, referenceRuns, tolerance, worst,
                                mismatches)) {
    llvm::outs() << mismatches;
    llvm::outs() << "compare: FAILED (" << ran << " vs " << against << ")\n";
    return 1;
  }
  llvm::outs() << "compare: every result on every rank matches (" << ran
               << " vs " << against << "; max normalized error "
               << llvm::format("%.2e", worst) << ")\n";
  return 0;
}

/// tp-run; `group` is set when this process is one rank of a multi-process
/// run.
/// Refuses combinations of backend, transport and glue that cannot run;
/// 0 when they can.
static int checkModes(bool processes) {
  // Every rank process reads the program itself, and mpirun (like this
  // launcher) gives standard input to one process at most.
  if (processes && inputFile == "-")
    return fail("with one process per rank the program cannot come from "
                "standard input (the other ranks cannot read it); pass a "
                "file");
  if (transport == "nccl" && backendName != "cuda")
    return fail("--transport nccl runs the cuda backend; add --backend cuda");
  if (transport == "mpi" && backendName != "cpu")
    return fail("--transport mpi runs the cpu backend; add --backend cpu");
  if (glueTarget != "cpu" && glueTarget != "gpu")
    return fail("unknown --glue '" + glueTarget + "'; expected cpu or gpu");
  if (glueTarget == "gpu" && backendName != "cuda")
    return fail("--glue gpu runs with the cuda backend; add --backend cuda");
  if (cudaGraph && glueTarget != "gpu")
    return fail("--cuda-graph captures glue compiled for the GPU (glue on the "
                "host cannot be captured); add --glue gpu");
  if (cudaGraph && processes)
    return fail("--cuda-graph runs ranks as threads of one process "
                "(--transport loopback)");
  if (cudaGraph && steps < 2)
    return fail("--cuda-graph needs --steps 2 or more: the first step runs as "
                "usual, the others replay the graph captured after it");
  if (transport == "mpi" && !compareBackend.empty() && compareBackend != "cpu")
    return fail("with --transport mpi the compared program runs on the cpu "
                "backend too; drop --compare-backend");
  return 0;
}

/// Every rank's arguments, from --input-dir or random from --seed. A rank
/// process needs only its own; the reporter needs all of them to dump and
/// compare.
static int makeInputs(func::FuncOp entry,
                      const std::vector<std::vector<int64_t>> &shapes,
                      bool reporter, rt::ProcessGroup *group,
                      std::vector<mlir::tp::RankValues> &perRank) {
  for (int r = 0; r < numRanks; ++r) {
    if (!reporter && r != group->rank())
      continue;
    rt::Status status =
        inputDir.empty()
            ? mlir::tp::makeRandomInputs(entry, shapes, seed, r,
                                         perRank[r].args)
            : mlir::tp::readInputs(entry, shapes, inputDir, r, perRank[r].args);
    if (!status)
      return fail(status.message());
  }
  if (reporter && !inputDir.empty())
    if (rt::Status replicated = mlir::tp::checkReplicatedInputs(entry, perRank);
        !replicated)
      return fail(replicated.message());
  return 0;
}

/// Prints every result (and the step times), writes the dump and the
/// trace of a finished run; 0 when all of it worked.
static int reportRun(const std::vector<mlir::tp::RankValues> &perRank,
                     rt::TraceRecorder *trace, bool processes) {
  mlir::tp::printResults(perRank);
  if (steps.getNumOccurrences())
    mlir::tp::printSteps(perRank);
  if (!dumpDir.empty()) {
    rt::Status dumped = mlir::tp::dumpValues(dumpDir, perRank);
    if (!dumped)
      return fail(dumped.message());
    rt::untrackTemporaryPath(dumpDir);
  }
  if (trace && !processes) {
    std::string error;
    if (!trace->writeJson(traceFile, error))
      return fail(error);
    llvm::outs() << "trace: " << traceFile << " (" << trace->size()
                 << " slices)\n";
  }
  if (!traceFile.empty() && processes)
    llvm::outs() << "trace: " << rankTracePath(0) << " ... "
                 << rankTracePath(numRanks - 1) << " (one per rank)\n";
  return 0;
}

/// The execution options the command line asks for; 0 when they hold.
static int makeOptions(rt::ProcessGroup *group, rt::TraceRecorder *trace,
                       mlir::tp::ExecutionOptions &options) {
  options.ranks = numRanks;
  options.backend = backendName;
  options.timeout = std::chrono::milliseconds(timeoutMs);
  options.trace = trace;
  options.runtimeChecks = !noRuntimeChecks;
  options.maxFunctionOps = maxFunctionOps;
  options.unoptimizedStraightOps = unoptimizedStraightOps;
  options.verifyEachPass = verifyEach;
  options.reportCrashes = true;
  options.steps = steps;
  if (glueTarget == "gpu")
    if (rt::Status made = ::mlir::tp::run::gpuGlue(
            gpuChip, cudaGraph, unoptimizedStraightOps, options.glue);
        !made)
      return fail(made.message());
  options.cudaGraph = cudaGraph;
  options.abandonRunawayRanks = true;
  if (group)
    options.ranksPerNode = group->localSize();
  return 0;
}

/// Checks the backends and the transport the command line names; the
/// transport defaults to MPI's (or NCCL's) when mpirun started this process.
static int chooseTransport() {
  auto backends = mlir::tp::availableBackends();
  // An empty --compare-backend means --backend's.
  for (const std::string &name :
       {backendName.getValue(), compareBackend.empty()
                                    ? backendName.getValue()
                                    : compareBackend.getValue()})
    if (!llvm::is_contained(backends, name))
      return fail("unknown backend '" + name +
                  "'; this build has: " + llvm::join(backends, ", "));
  if (!transport.getNumOccurrences() && rt::startedByMpi())
    transport = backendName == "cuda" ? "nccl" : "mpi";
  if (transport != "loopback" && transport != "nccl" && transport != "mpi")
    return fail("unknown transport '" + transport +
                "'; expected loopback, nccl or mpi");
  return checkModes(transport != "loopback");
}

/// Joins the run when this process is one of its ranks: mpirun (or this
/// tool's launcher) sets the number of ranks then.
static int joinRanks(std::unique_ptr<rt::ProcessGroup> &group) {
  rt::Status joined = mlir::tp::joinProcessRun(group);
  if (!joined)
    return fail(joined.message());
  if (!group)
    return 0;
  if (numRanks.getNumOccurrences() && numRanks != group->size())
    return fail("--ranks " + llvm::Twine(numRanks) + " but the run has " +
                llvm::Twine(group->size()) + " processes");
  numRanks = group->size();
  return 0;
}

/// The program as read, as it runs (after --pipeline), and as compared
/// (after --compare-pipeline).
struct Programs {
  OwningOpRef<ModuleOp> original, primary, reference;
  func::FuncOp entry;
};

/// Parses the program, imports it, fixes dynamic grids to the run's size
/// and runs the pipelines; diagnostics go through `sourceMgr`'s handler.
static int loadPrograms(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                        Programs &programs) {
  std::unique_ptr<llvm::MemoryBuffer> text;
  if (rt::Status read = ::mlir::tp::run::readProgram(inputFile, text); !read)
    return fail(read.message());
  sourceMgr.AddNewSourceBuffer(std::move(text), llvm::SMLoc());
  programs.original =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!programs.original)
    return 1;
  // Upstream per-rank IR is raised, and layers lowered, before anything runs.
  if (failed(runPipeline(*programs.original, "tp-import,tp-lower-linear")))
    return 1;
  // A grid of dynamic size spans the run (fixed before the pipelines, so
  // both programs see the same size).
  func::FuncOp originalEntry = findEntry(*programs.original);
  if (!originalEntry)
    return 1;
  if (rt::Status grids =
          mlir::tp::specializeDynamicGrids(originalEntry, numRanks);
      !grids)
    return fail(grids.message());

  programs.primary = programs.original->clone();
  if (failed(runPipeline(*programs.primary, pipeline)))
    return 1;
  programs.entry = findEntry(*programs.primary);
  if (!programs.entry)
    return 1;
  if (rt::Status checked = mlir::tp::checkProgram(programs.entry, numRanks);
      !checked)
    return fail(checked.message());
  if (comparing())
    return prepareReference(*programs.original, programs.entry,
                            programs.reference);
  return 0;
}

/// The argument shapes (--arg-shape, --dim-size), checked against what this
/// machine has.
static int argumentShapes(func::FuncOp entry,
                          std::vector<std::vector<int64_t>> &shapes) {
  std::map<unsigned, std::vector<int64_t>> givenShapes;
  if (!parseArgShapes(givenShapes))
    return 1;
  rt::Status status =
      mlir::tp::resolveArgumentShapes(entry, givenShapes, dimSize, shapes);
  if (status)
    status = mlir::tp::checkResources(entry, numRanks, shapes);
  return status ? 0 : fail(status.message());
}

/// Runs the MPI ranks: mpirun started on this very command line. The
/// program is compiled here first, so one that does not compile is reported
/// once rather than by every rank. Each rank's watchdog ends a run that
/// spins in compiled code; mpirun's own limit is a backstop behind it
/// (ProcessRun.h: mpirunJobLimit).
static int startMpiJob(func::FuncOp entry,
                       const mlir::tp::ExecutionOptions &options,
                       const std::vector<std::string> &commandLine) {
  std::unique_ptr<mlir::tp::CompiledProgram> compiled;
  if (rt::Status built =
          mlir::tp::CompiledProgram::compile(entry, options, compiled);
      !built)
    return fail(built.message());
  int runs = !comparing() ? 1 : 2;
  std::chrono::seconds jobLimit =
      mlir::tp::mpirunJobLimit(mlir::tp::runLimit(options), runs, numRanks);
  int exitStatus = 1;
  if (rt::Status job =
          mlir::tp::runUnderMpirun(commandLine, numRanks, jobLimit, exitStatus);
      !job)
    return fail(job.message());
  return exitStatus;
}

/// Runs this process's ranks: all of them as threads, or its own (or, as
/// the launcher, every process's). `reports` says whether this process
/// prints the run. A failed rank process ends the job.
static rt::Status runRanks(const Programs &programs,
                           const mlir::tp::ExecutionOptions &options,
                           rt::ProcessGroup *group, rt::TraceRecorder *trace,
                           const std::vector<std::string> &commandLine,
                           std::vector<mlir::tp::RankValues> &perRank,
                           bool &reports) {
  if (transport == "loopback") {
    reports = true;
    rt::Status status = mlir::tp::executeSPMD(programs.entry, options, perRank);
    if (!status)
      exitAfterFailedRun(status.message());
    return status;
  }
  rt::Status status = mlir::tp::runProcesses(
      programs.entry, options, transport, group, commandLine, perRank, reports);
  // A rank's trace is written whether it failed or not: failures are what
  // traces are for.
  if (trace) {
    std::string error;
    if (!trace->writeJson(rankTracePath(group->rank()), error)) {
      llvm::errs() << "tp-run: " << error << "\n";
      if (status)
        status = rt::Status::error(error);
    }
  }
  if (!status && group)
    group->abort(status.message());
  if (status && group)
    rankResultsSent = transport != "mpi" || !comparing();
  return status;
}

static int runTool(int argc, char **argv,
                   std::unique_ptr<rt::ProcessGroup> &group) {
  // The launcher re-runs this very command line once per rank.
  std::vector<std::string> commandLine(argv, argv + argc);
  commandLine[0] = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&fail));
  mlir::tp::registerTPPassesAndPipelines();
  cl::HideUnrelatedOptions(runOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "tp-run: execute tp programs on N ranks\n");
  if (!checkOptions())
    return 1;
  if (int refused = chooseTransport())
    return refused;
  const bool processes = transport != "loopback";
  if (processes)
    if (int refused = joinRanks(group))
      return refused;
  // Whether this process prints the run (not a rank that reports elsewhere).
  const bool reporter = !group || group->collects();

  DialectRegistry registry;
  mlir::tp::registerTPDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  Programs programs;
  if (int refused = loadPrograms(context, sourceMgr, programs))
    return refused;
  func::FuncOp entry = programs.entry;
  std::vector<std::vector<int64_t>> shapes;
  if (int refused = argumentShapes(entry, shapes))
    return refused;
  std::vector<mlir::tp::RankValues> perRank(numRanks);
  if (int failedInputs =
          makeInputs(entry, shapes, reporter, group.get(), perRank))
    return failedInputs;

  std::unique_ptr<rt::TraceRecorder> trace;
  // A launcher runs no rank, so it has nothing to trace.
  if (!traceFile.empty() && (!processes || group))
    trace = std::make_unique<rt::TraceRecorder>();
  mlir::tp::ExecutionOptions options;
  if (int refused = makeOptions(group.get(), trace.get(), options))
    return refused;
  // MPI ranks are started by mpirun, once the program is known to be sound
  // (so its errors are reported once, not by every rank).
  if (processes && !group && transport == "mpi")
    return startMpiJob(entry, options, commandLine);

  if (reporter)
    llvm::outs() << "tp-run: @" << entry.getName() << " on " << numRanks
                 << " rank" << (numRanks == 1 ? "" : "s") << " (" << backendName
                 << (processes ? ", one process per rank over " +
                                     std::string(transport == "mpi" ? "MPI"
                                                                    : "NCCL")
                               : std::string())
                 << ")\n";
  // Compiled code that dies from a signal exits without flushing streams.
  llvm::outs().flush();
  bool reports = false;
  rt::Status status = runRanks(programs, options, group.get(), trace.get(),
                               commandLine, perRank, reports);
  if (!status)
    return fail(status.message());
  // Under MPI every rank runs the compared program too.
  rt::ProcessGroup *mpiGroup = transport == "mpi" ? group.get() : nullptr;
  if (!reports)
    return comparing() && mpiGroup
               ? compareWithReference(*programs.reference, entry, options,
                                      perRank, mpiGroup)
               : 0;
  if (int failedReport = reportRun(perRank, trace.get(), processes))
    return failedReport;
  if (!comparing())
    return 0;
  return compareWithReference(*programs.reference, entry, options, perRank,
                              mpiGroup);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  ::mlir::tp::rt::abi::installOutOfMemoryHandler();
  ::mlir::tp::rt::abi::keepFreedMemory();
  // A rank's launcher (tp-run, mpirun) reports the run, interruptions too.
  bool rank = rt::startedByLauncher() || rt::startedByMpi();
  if (rt::Status handled = rt::handleInterrupts("tp-run", rank); !handled)
    return fail(handled.message());
  std::unique_ptr<rt::ProcessGroup> group;
  int status = runTool(argc, argv, group);
  // A rank that fails before its results are sent must still end the whole
  // run: its peers would otherwise wait for it.
  if (status != 0 && group && !rankResultsSent)
    group->abort(firstError.empty()
                     ? "tp-run exited with status " + std::to_string(status)
                     : firstError);
  return status;
}
