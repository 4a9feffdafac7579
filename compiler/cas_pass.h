// cas_pass.h - what the parts of the CAS-DSM pass share: planning
// (cas_pass.cpp: which accesses, which checks, where), tables of row
// pointers (cas_table.cpp) and emission (cas_emit.cpp: merging,
// discarding, the calls; the plugin's entry point).
#ifndef TSR_CAS_PASS_H
#define TSR_CAS_PASS_H

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PassManager.h"

namespace tsr {

// Tessera's page: the unit of consistency, so of a check's usefulness.
constexpr uint64_t PageSize = 4096;

// What -tsr-cas asks for.
struct Level {
    bool On, Discard, MaxHoist, Hoist, Basic = false;
};

// A load or store that may touch shared memory.
struct Access {
    llvm::Instruction *I;
    llvm::Value *Ptr;
    uint64_t Size;
    bool Write;
};

// A condition under which a loop that a check left is entered (an inner
// loop's `m > 0`), true when Cond is, or false with EnterIfFalse.
struct Guard {
    llvm::ICmpInst *Cond;
    bool EnterIfFalse;
    bool operator==(const Guard &O) const { return Cond == O.Cond && EnterIfFalse == O.EnterIfFalse; }
};

// A range check to insert before At: bytes [Lo, End), or, with Stride
// (the step form), Count blocks of Block bytes from Lo, Stride bytes apart;
// and only where every guard holds, so only if the access runs at all.
struct Check {
    llvm::Instruction *At = nullptr;
    const llvm::SCEV *Lo = nullptr, *End = nullptr, *Base = nullptr;
    const llvm::SCEV *Stride = nullptr, *Block = nullptr, *Count = nullptr;
    llvm::SmallVector<Guard, 2> Guards;
    bool Write = false, Dead = false;
};

struct CasPass : llvm::PassInfoMixin<CasPass> {
    llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
    static bool isRequired() { return true; }
};

bool maySynchronize(const llvm::Instruction &I, const llvm::TargetLibraryInfo &TLI);
void emitBasic(const Access &A);
// A check of Len bytes from Ptr right before I.
void emitRange(llvm::Instruction *I, llvm::Value *Ptr, llvm::Value *Len, bool Write);
void mergeChecks(llvm::SmallVectorImpl<Check> &Checks, llvm::ScalarEvolution &SE);
void discardCovered(llvm::SmallVectorImpl<Check> &Checks, llvm::ScalarEvolution &SE,
                    llvm::DominatorTree &DT, const llvm::TargetLibraryInfo &TLI);
bool emitPolls(llvm::Function &F, llvm::LoopInfo &LI);
// cas_table.cpp: whether every path through one iteration of L passes a
// block that Has accepts; loads of row pointers L cannot change, moved
// before L; whether every path through L stores where S does.
bool everyPathHas(const llvm::Loop *L, llvm::function_ref<bool(llvm::BasicBlock *)> Has);
bool hoistTableEntries(llvm::LoopInfo &LI, llvm::AAResults &AA, llvm::ScalarEvolution &SE);
bool storedOnEveryPath(llvm::StoreInst *S, const llvm::Loop *L, llvm::ScalarEvolution &SE);
unsigned emitChecks(llvm::ArrayRef<Check> Checks, llvm::ScalarEvolution &SE,
                    const llvm::DataLayout &DL);

} // namespace tsr

#endif
