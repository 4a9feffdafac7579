// omp_pass.cpp - what tsrcc -fopenmp (-tsr-omp) changes in a program that
// clang has lowered to libomp's calls, so that it runs across the nodes
// unmodified (docs/OPENMP.md):
//
//  - local variables whose address escapes (those a parallel region shares
//    reach __kmpc_fork_call as pointers into the master's stack) move to
//    the node's frame stack in shared memory (tsr_omp_frame_*);
//  - calls to the C allocator go to tsr_omp_malloc and friends, which give
//    shared memory;
//  - the master's threadprivate values that copyin hands a region are
//    copied to such a local first;
//  - atomic read-modify-writes (atomic, C11 and __sync/__atomic builtins)
//    become plain loads and stores between tsr_omp_atomic_enter and
//    _leave, a Tessera lock when the team spans the nodes: a processor's
//    atomic instruction is atomic on one node's copy of a page only.
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"

#include "omp_pass.h"

using namespace llvm;

static cl::opt<bool> OmpOn("tsr-omp", cl::desc("Tessera OpenMP: shared locals, heap and atomics"),
                           cl::init(false));

namespace tsr {

// An escaping local that needs no move: its address goes only to libomp's
// entry points that keep it for the call (a loop's bounds for
// __kmpc_for_static_init_4), never to __kmpc_fork_call.
static bool onlyRuntimeUses(const AllocaInst &AI)
{
    for (const User *U : AI.users()) {
        if (isa<LoadInst>(U) || isa<DbgInfoIntrinsic>(U) ||
            (isa<IntrinsicInst>(U) && cast<IntrinsicInst>(U)->isLifetimeStartOrEnd()))
            continue;
        if (const auto *S = dyn_cast<StoreInst>(U))
            if (S->getPointerOperand() == &AI && S->getValueOperand() != &AI)
                continue;
        const auto *C = dyn_cast<CallBase>(U);
        const Function *F = C ? C->getCalledFunction() : nullptr;
        if (!F || !F->getName().startswith("__kmpc_") || F->getName() == "__kmpc_fork_call" ||
            F->getName().startswith("__kmpc_reduce"))
            return false;
    }
    return true;
}

static bool movesToShared(const AllocaInst &AI)
{
    return PointerMayBeCaptured(&AI, /*ReturnCaptures=*/false, /*StoreCaptures=*/true) &&
           !onlyRuntimeUses(AI);
}

// A threadprivate variable (thread-local storage) that a region's copyin
// reads: the region gets the master's copy by its address, which on another
// node names that node's own copy (one address layout), so nothing would
// be copied. The master's value goes to a local of its own first, which
// moveLocals then places in shared memory.
static bool shareCopyin(Function &F)
{
    bool Changed = false;
    const DataLayout &DL = F.getParent()->getDataLayout();
    for (Instruction &I : instructions(F)) {
        auto *C = dyn_cast<CallBase>(&I);
        const Function *Callee = C ? C->getCalledFunction() : nullptr;
        if (!Callee || Callee->getName() != "__kmpc_fork_call")
            continue;
        for (unsigned A = 3; A < C->arg_size(); A++) {
            Value *V = C->getArgOperand(A)->stripPointerCasts();
            auto *II = dyn_cast<IntrinsicInst>(V);
            if (II && II->getIntrinsicID() == Intrinsic::threadlocal_address)
                V = II->getArgOperand(0)->stripPointerCasts();
            auto *G = dyn_cast<GlobalVariable>(V);
            if (!G || !G->isThreadLocal())
                continue;
            Type *T = G->getValueType();
            IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
            AllocaInst *Copy = B.CreateAlloca(T, nullptr, G->getName() + ".copyin");
            B.SetInsertPoint(C);
            B.CreateMemCpy(Copy, Copy->getAlign(), C->getArgOperand(A), G->getAlign().valueOrOne(),
                           DL.getTypeAllocSize(T));
            C->setArgOperand(A, Copy);
            Changed = true;
        }
    }
    return Changed;
}

// Each such local becomes a block of the frame stack, taken where the
// alloca was; the function's frame is given back at every return.
static bool moveLocals(Function &F)
{
    SmallVector<AllocaInst *, 8> Moved;
    for (Instruction &I : instructions(F))
        if (auto *AI = dyn_cast<AllocaInst>(&I))
            if (movesToShared(*AI))
                Moved.push_back(AI);
    if (Moved.empty())
        return false;
    Module &M = *F.getParent();
    LLVMContext &Ctx = M.getContext();
    Type *Ptr = PointerType::getUnqual(Ctx), *I64 = Type::getInt64Ty(Ctx);
    FunctionCallee Enter = M.getOrInsertFunction("tsr_omp_frame_enter", Ptr);
    FunctionCallee Alloc = M.getOrInsertFunction("tsr_omp_frame_alloc", Ptr, I64, I64);
    FunctionCallee Leave = M.getOrInsertFunction("tsr_omp_frame_leave", Type::getVoidTy(Ctx), Ptr);
    IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
    Value *Mark = B.CreateCall(Enter);
    const DataLayout &DL = M.getDataLayout();
    for (AllocaInst *AI : Moved) {
        for (User *U : make_early_inc_range(AI->users()))
            if (auto *II = dyn_cast<IntrinsicInst>(U))
                if (II->isLifetimeStartOrEnd())
                    II->eraseFromParent();
        B.SetInsertPoint(AI);
        Value *Size = ConstantInt::get(I64, DL.getTypeAllocSize(AI->getAllocatedType()));
        if (AI->isArrayAllocation())
            Size = B.CreateMul(Size, B.CreateZExtOrTrunc(AI->getArraySize(), I64));
        Value *Align = ConstantInt::get(I64, AI->getAlign().value());
        CallInst *Block = B.CreateCall(Alloc, {Size, Align});
        Block->takeName(AI);
        AI->replaceAllUsesWith(Block);
        AI->eraseFromParent();
    }
    for (BasicBlock &BB : F)
        if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
            CallInst::Create(Leave, {Mark}, "", R);
    return true;
}

static bool bracketAtomics(Function &F)
{
    SmallVector<Instruction *, 8> RMWs;
    for (Instruction &I : instructions(F))
        if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
            RMWs.push_back(&I);
    if (RMWs.empty())
        return false;
    Module &M = *F.getParent();
    Type *Void = Type::getVoidTy(M.getContext());
    FunctionCallee Enter = M.getOrInsertFunction("tsr_omp_atomic_enter", Void);
    FunctionCallee Leave = M.getOrInsertFunction("tsr_omp_atomic_leave", Void);
    for (Instruction *I : RMWs) {
        CallInst::Create(Enter, "", I);
        CallInst::Create(Leave, "", I->getNextNode());
        if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
            lowerAtomicRMWInst(RMW);
        else
            lowerAtomicCmpXchgInst(cast<AtomicCmpXchgInst>(I));
    }
    return true;
}

// The C allocator's functions the program calls, and Tessera's.
static bool renameAllocator(Module &M)
{
    static const char *const Names[] = {"malloc", "calloc", "realloc", "free",
                                        "posix_memalign", "aligned_alloc"};
    bool Changed = false;
    for (const char *N : Names) {
        Function *F = M.getFunction(N);
        if (!F || !F->isDeclaration() || F->use_empty())
            continue;
        FunctionCallee T = M.getOrInsertFunction((std::string("tsr_omp_") + N), F->getFunctionType());
        F->replaceAllUsesWith(T.getCallee());
        Changed = true;
    }
    return Changed;
}

PreservedAnalyses OmpPass::run(Module &M, ModuleAnalysisManager &)
{
    if (!OmpOn)
        return PreservedAnalyses::all();
    bool Changed = renameAllocator(M);
    for (Function &F : M) {
        if (F.isDeclaration())
            continue;
        Changed |= bracketAtomics(F);
        Changed |= shareCopyin(F);
        Changed |= moveLocals(F);
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace tsr
