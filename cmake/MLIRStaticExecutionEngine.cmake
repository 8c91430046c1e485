# Debian's MLIR exports the static MLIRExecutionEngine with a link to the
# whole libMLIR.so, so a program linking the static MLIR libraries would load
# a second copy of MLIR (duplicate TypeIDs and registrations). The JIT needs
# only these static libraries and libLLVM.
if(TARGET MLIRExecutionEngine)
  set_target_properties(MLIRExecutionEngine PROPERTIES INTERFACE_LINK_LIBRARIES
    "LLVM;MLIRExecutionEngineUtils;MLIRTargetLLVMIRExport;MLIRBuiltinToLLVMIRTranslation;MLIRLLVMToLLVMIRTranslation;MLIRLLVMIRTransforms")
endif()
