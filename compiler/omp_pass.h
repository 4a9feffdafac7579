// omp_pass.h - the OpenMP half of Tessera's plugin (omp_pass.cpp), run
// before the CAS pass when tsrcc -fopenmp passes -tsr-omp.
#ifndef TSR_OMP_PASS_H
#define TSR_OMP_PASS_H

#include "llvm/IR/PassManager.h"

namespace tsr {

struct OmpPass : llvm::PassInfoMixin<OmpPass> {
    llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
    static bool isRequired() { return true; }
};

} // namespace tsr

#endif
