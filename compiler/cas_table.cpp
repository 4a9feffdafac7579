// cas_table.cpp - loops that reach their data through a table of row
// pointers (`a[i][k]` with `double **a`, issue 46), which DSM programs are
// full of. LLVM moves the load of a[i] out of the loop over k only if the
// load runs on every path: where the row is stored in one of two branches
// (the top row or not), each branch loads it again, the address of each
// store is then a new value at every iteration, and the check could not
// leave the loop. Here an entry loaded on every path through the loop,
// and written by nothing in it, is loaded once before the loop instead,
// and a store is taken to run on every iteration when every path stores
// to its address.
#include "cas_pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace tsr {

bool everyPathHas(const Loop *L, function_ref<bool(BasicBlock *)> Has)
{
    SmallVector<BasicBlock *, 8> Work{L->getHeader()};
    SmallPtrSet<BasicBlock *, 16> Seen;
    while (!Work.empty()) {
        BasicBlock *BB = Work.pop_back_val();
        if (!Seen.insert(BB).second || Has(BB))
            continue;
        if (BB == L->getLoopLatch() || L->isLoopExiting(BB))
            return false;
        for (BasicBlock *S : successors(BB))
            if (S != L->getHeader() && L->contains(S))
                Work.push_back(S);
    }
    return true;
}

// Whether the table entry that Loads (all of one address) read holds one
// value through L: nothing in L may write it, and every iteration reads
// it, so that loading it before L reads what the first iteration would,
// and could not fault where the loop would not.
static bool entryInvariant(const Loop *L, ArrayRef<LoadInst *> Loads, AAResults &AA)
{
    MemoryLocation Loc = MemoryLocation::get(Loads[0]);
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
            if (I.mayWriteToMemory() && isModSet(AA.getModRefInfo(&I, Loc)))
                return false;
    SmallPtrSet<const BasicBlock *, 4> In;
    for (LoadInst *LD : Loads)
        In.insert(LD->getParent());
    return everyPathHas(L, [&](BasicBlock *BB) { return In.count(BB) != 0; });
}

// The loads of row pointers in L from addresses L does not change, by
// address.
static DenseMap<Value *, SmallVector<LoadInst *, 2>> tableLoads(const Loop *L)
{
    DenseMap<Value *, SmallVector<LoadInst *, 2>> ByAddr;
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
            if (auto *LD = dyn_cast<LoadInst>(&I);
                LD && LD->isSimple() && LD->getType()->isPointerTy() &&
                L->isLoopInvariant(LD->getPointerOperand()))
                ByAddr[LD->getPointerOperand()].push_back(LD);
    return ByAddr;
}

static bool hoistEntries(Loop *L, AAResults &AA, ScalarEvolution &SE)
{
    BasicBlock *Pre = L->getLoopPreheader();
    if (!Pre)
        return false;
    bool Changed = false;
    for (auto &[Addr, Loads] : tableLoads(L)) {
        if (!entryInvariant(L, Loads, AA))
            continue;
        IRBuilder<> B(Pre->getTerminator());
        LoadInst *Row = B.CreateLoad(Loads[0]->getType(), Addr);
        Row->setAlignment(Loads[0]->getAlign());
        Row->setAAMetadata(Loads[0]->getAAMetadata());
        for (LoadInst *LD : Loads) {
            SE.forgetValue(LD);
            LD->replaceAllUsesWith(Row);
            LD->eraseFromParent();
        }
        Changed = true;
    }
    if (Changed)
        SE.forgetLoop(L);
    return Changed;
}

bool hoistTableEntries(LoopInfo &LI, AAResults &AA, ScalarEvolution &SE)
{
    bool Changed = false;
    SmallVector<Loop *, 8> Loops = LI.getLoopsInPreorder();
    for (Loop *L : reverse(Loops)) // inner loops first
        Changed |= hoistEntries(L, AA, SE);
    return Changed;
}

bool storedOnEveryPath(StoreInst *S, const Loop *L, ScalarEvolution &SE)
{
    const SCEV *At = SE.getSCEV(S->getPointerOperand());
    Type *Ty = S->getValueOperand()->getType();
    return everyPathHas(L, [&](BasicBlock *BB) {
        for (Instruction &I : *BB)
            if (auto *T = dyn_cast<StoreInst>(&I); T && T->getValueOperand()->getType() == Ty &&
                                                   SE.getSCEV(T->getPointerOperand()) == At)
                return true;
        return false;
    });
}

} // namespace tsr
