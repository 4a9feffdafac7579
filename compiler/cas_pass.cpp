// cas_pass.cpp - CAS-DSM's compiler pass (cas-dsm-compiler-assisted.md,
// Sections 3 and 4; docs/CAS.md) as an LLVM 16 pass plugin.
//
// Before the loops of a function it inserts calls to Tessera's range checks
// (tsr_range_read, tsr_range_write and their _step forms), which make the
// pages a loop nest will touch consistent at once, so that its accesses
// take no page fault. Levels (-tsr-cas=):
//   basic         a check of its own bytes before every load and store that
//                 may be shared (the paper's CAS_Basic_consistency);
//   aghoist       for each access in a loop, one check of every address it
//                 takes in that loop, in the loop's preheader (AgHoist);
//   agdiscard     aghoist, then the checks of one array at one place merged
//                 (a write check covers reads), and checks whose pages a
//                 dominating check already covers, with no call between
//                 that may synchronize, discarded (AgDiscard);
//   maxaghoist    the check hoisted out of every enclosing loop over which
//                 its bounds stay affine and invariant and that makes no
//                 call that may synchronize (MaxAgHoist);
//   maxagdiscard  both (MaxAgDiscard).
// With -tsr-poll, at any level (none included), a countdown before every
// innermost loop that calls tsr_poll every 16th run (the paper's Section
// 4.4; cas_emit.cpp, emitPolls).
// A memcpy, memmove or memset is checked in place over its length at every
// level; one of up to a page is planned like a load and a store, and
// checked in place if no check of it can leave its loop (isLoneCopy).
// Addresses come from ScalarEvolution: an access whose address is not an
// affine function of the loop's induction variable, in a loop whose trip
// count is not computable, is not checked and keeps faulting; so is a
// store that does not run on every iteration of its loop (under a
// condition, unless every path stores there), whose write check would be
// a write that may not happen. A row pointer loaded inside the loop
// (`a[i][k]`) is moved before it first where that is safe (cas_table.cpp).
// Which accesses are shared is decided at run time: every access not into
// the program's stack (an alloca) is checked, and the range check ignores
// the bytes outside the shared region at the cost of one compare.
#include "cas_pass.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"


using namespace llvm;

static cl::opt<std::string> CasLevel("tsr-cas",
                                     cl::desc("Tessera consistency checks: none, basic, aghoist, "
                                              "agdiscard, maxaghoist or maxagdiscard"),
                                     cl::init(""));
static cl::opt<bool> CasPoll("tsr-poll",
                             cl::desc("Tessera polling: tsr_poll every 16th run of an innermost loop"),
                             cl::init(false));

namespace tsr {

// The level from -tsr-cas (tsrcc passes it; agdiscard when absent). An
// unknown name stops the compiler naming it.
static Level parseLevel()
{
    const std::string &s = CasLevel;
    if (s.empty())
        return Level{true, true, false, true};
    if (s == "none")
        return Level{false, false, false, false};
    if (s == "basic")
        return Level{true, false, false, false, true};
    if (s == "aghoist")
        return Level{true, false, false, true};
    if (s == "agdiscard")
        return Level{true, true, false, true};
    if (s == "maxaghoist")
        return Level{true, false, true, true};
    if (s == "maxagdiscard")
        return Level{true, true, true, true};
    report_fatal_error("tsr-cas: unknown level '" + Twine(s) +
                           "' (none, basic, aghoist, agdiscard, maxaghoist, maxagdiscard)",
                       false);
}

// A call that may reach the runtime's synchronization (a lock, a barrier:
// an acquire may invalidate pages a check made consistent): any call but
// intrinsics, the checks themselves, and the C library's functions.
bool maySynchronize(const Instruction &I, const TargetLibraryInfo &TLI)
{
    const auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || isa<IntrinsicInst>(CB))
        return false;
    const Function *F = CB->getCalledFunction();
    if (!F)
        return true;
    if (F->getName().startswith("tsr_range_") || F->getName() == "tsr_poll")
        return false;
    LibFunc LF;
    return !TLI.getLibFunc(*F, LF);
}

static bool loopMaySynchronize(const Loop *L, const TargetLibraryInfo &TLI)
{
    for (const BasicBlock *BB : L->blocks())
        for (const Instruction &I : *BB)
            if (maySynchronize(I, TLI))
                return true;
    return false;
}

// The smallest and largest value of S over every iteration of L, where S
// is invariant in L or affine in it. False when they cannot be told.
static bool boundsOver(ScalarEvolution &SE, const Loop *L, const SCEV *S, const SCEV *&Lo,
                       const SCEV *&Hi)
{
    if (SE.isLoopInvariant(S, L)) {
        Lo = Hi = S;
        return true;
    }
    const auto *AR = dyn_cast<SCEVAddRecExpr>(S);
    if (!AR || AR->getLoop() != L || !AR->isAffine())
        return false;
    const SCEV *BTC = SE.getBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(BTC))
        return false;
    const SCEV *First = AR->getStart(), *Last = AR->evaluateAtIteration(BTC, SE);
    const SCEV *Step = AR->getStepRecurrence(SE);
    if (SE.isKnownNonNegative(Step)) {
        Lo = First;
        Hi = Last;
    } else if (SE.isKnownNonPositive(Step)) {
        Lo = Last;
        Hi = First;
    } else {
        // A step of unknown sign (a row length held in a variable): the
        // smaller and the larger end, computed at run time. The result is
        // no longer affine in the loops outside, which stops hoisting there.
        Lo = SE.getUMinExpr(First, Last);
        Hi = SE.getUMaxExpr(First, Last);
    }
    return SE.isLoopInvariant(Lo, L) && SE.isLoopInvariant(Hi, L);
}

// The step form over L of the range [Lo, Hi] (both affine in L with one
// step): Count blocks from the lowest, as many bytes as the range plus the
// access, the step's size apart. False when the range is dense over L (a
// step known to be at most a page beyond its length, so that widening it
// covers few pages the loop does not touch) or when the form does not
// apply.
static bool sparseStep(ScalarEvolution &SE, const Loop *L, const SCEV *Lo, const SCEV *Hi,
                       uint64_t Size, Check &C)
{
    const auto *LoR = dyn_cast<SCEVAddRecExpr>(Lo), *HiR = dyn_cast<SCEVAddRecExpr>(Hi);
    if (!LoR || !HiR || LoR->getLoop() != L || HiR->getLoop() != L || !LoR->isAffine() ||
        !HiR->isAffine())
        return false;
    const SCEV *Step = LoR->getStepRecurrence(SE), *BTC = SE.getBackedgeTakenCount(L);
    if (Step != HiR->getStepRecurrence(SE) || isa<SCEVCouldNotCompute>(BTC))
        return false;
    bool Up = SE.isKnownNonNegative(Step);
    Type *Ty = SE.getEffectiveSCEVType(Lo->getType());
    const SCEV *Block = SE.getAddExpr(SE.getMinusSCEV(HiR->getStart(), LoR->getStart()),
                                      SE.getConstant(Ty, Size));
    if (isa<SCEVCouldNotCompute>(Block))
        return false;
    const auto *Gap = dyn_cast<SCEVConstant>(SE.getMinusSCEV(Step, Block));
    if (Gap && Gap->getAPInt().sle(PageSize))
        return false;
    // Going down, or either way (a step held in a variable): from the
    // lower of the first and last blocks, the step's absolute value apart.
    C.Lo = Up ? LoR->getStart()
              : SE.getUMinExpr(LoR->getStart(), LoR->evaluateAtIteration(BTC, SE));
    C.Block = Block;
    C.Stride = Up ? Step : SE.getAbsExpr(Step, false);
    C.Count = SE.getAddExpr(BTC, SE.getOne(BTC->getType()));
    C.At = L->getLoopPreheader()->getTerminator();
    return true;
}

// Whether BB runs on every iteration of L: it dominates L's latch and
// every block that may leave L, so no iteration can go round or out
// without passing it (a store under an `if`, or after a `break`, does not).
static bool runsEveryIteration(const BasicBlock *BB, const Loop *L, const DominatorTree &DT)
{
    SmallVector<BasicBlock *, 4> Leave;
    L->getExitingBlocks(Leave);
    Leave.push_back(L->getLoopLatch());
    return all_of(Leave, [&](const BasicBlock *E) { return E && DT.dominates(BB, E); });
}

// Records the guard of loop Inner (inside L) in C if Inner is entered on
// every iteration of L or on none: its guard's block runs on every
// iteration of L and tests values that L does not change.
static bool addGuard(const Loop *Inner, const Loop *L, const DominatorTree &DT, Check &C)
{
    BranchInst *G = Inner->getLoopGuardBranch();
    auto *Cond = G ? dyn_cast<ICmpInst>(G->getCondition()) : nullptr;
    if (!Cond || !L->isLoopInvariant(Cond->getOperand(0)) ||
        !L->isLoopInvariant(Cond->getOperand(1)) || !runsEveryIteration(G->getParent(), L, DT))
        return false;
    C.Guards.push_back(Guard{Cond, G->getSuccessor(0) != Inner->getLoopPreheader()});
    return true;
}

// Whether a check of A over L covers only what A touches: A runs on every
// iteration of L (Inner, the loop inside L that the check has left, is
// entered on each, or on all or none of them under a guard that C keeps).
// A read that may not run is checked all the same, as before the pass knew
// this: a fetch it did not need costs time, never a result.
static bool runsOver(const Access &A, const Loop *Inner, const Loop *L, const DominatorTree &DT,
                     ScalarEvolution &SE, Check &C)
{
    auto *S = dyn_cast<StoreInst>(A.I);
    if (!Inner)
        return runsEveryIteration(A.I->getParent(), L, DT) || !A.Write ||
               (S && storedOnEveryPath(S, L, SE));
    return runsEveryIteration(Inner->getLoopPreheader(), L, DT) || addGuard(Inner, L, DT, C) ||
           !A.Write;
}

// Whether the guards found so far can be tested before L: L does not
// change what they compare.
static bool guardsInvariant(const Check &C, const Loop *L)
{
    return all_of(C.Guards, [&](const Guard &G) {
        return L->isLoopInvariant(G.Cond->getOperand(0)) &&
               L->isLoopInvariant(G.Cond->getOperand(1));
    });
}

// Where a check of access A can go: hoisted out of the loops around it as
// far as the level allows and its bounds stay known, each loop in rotated
// form with a preheader (so that the preheader runs only when the loop
// body does). A range whose step over a loop leaves gaps of more than a
// page takes the step form there and goes no further, so that a check
// never brings the pages between the blocks a loop nest touches (a
// transpose's columns). A write check leaves a loop only if the store runs
// on every iteration of it: a check for a store that may not run would
// make twins, take ownership or break a read_only promise for a write
// that never happens (a conditional store keeps faulting if it runs, and
// the load beside it usually has a read check). Fills C and returns
// false when not even its innermost loop can be left.
static bool planCheck(const Access &A, const Level &Lv, LoopInfo &LI, ScalarEvolution &SE,
                      const DominatorTree &DT, const TargetLibraryInfo &TLI, Check &C)
{
    const SCEV *Lo = SE.getSCEV(A.Ptr), *Hi = Lo;
    bool hoisted = false;
    C.Write = A.Write;
    Loop *Inner = nullptr;
    for (Loop *L = LI.getLoopFor(A.I->getParent()); L; Inner = L, L = L->getParentLoop()) {
        size_t NGuards = C.Guards.size();
        if (!L->getLoopPreheader() || !L->isRotatedForm() || loopMaySynchronize(L, TLI) ||
            !guardsInvariant(C, L) || !runsOver(A, Inner, L, DT, SE, C))
            break;
        if (sparseStep(SE, L, Lo, Hi, A.Size, C)) {
            C.Base = SE.getPointerBase(C.Lo);
            return true;
        }
        const SCEV *L0, *H0, *L1, *H1;
        if (!boundsOver(SE, L, Lo, L0, H0) || !boundsOver(SE, L, Hi, L1, H1)) {
            C.Guards.truncate(NGuards); // the check stays inside L, and so does L's guard
            break;
        }
        Lo = L0;
        Hi = H1;
        C.At = L->getLoopPreheader()->getTerminator();
        hoisted = true;
        if (!Lv.MaxHoist)
            break;
    }
    if (!hoisted)
        return false;
    C.Lo = Lo;
    C.End = SE.getAddExpr(Hi, SE.getConstant(SE.getEffectiveSCEVType(Hi->getType()), A.Size));
    C.Base = SE.getPointerBase(Lo);
    return true;
}

// A memcpy, memmove or memset of a constant length up to a page (a struct
// assignment) is a store to its destination and a load from its source, and
// is planned like them.
static bool isSmallMemIntrinsic(const MemIntrinsic *MI)
{
    const auto *Len = dyn_cast<ConstantInt>(MI->getLength());
    return Len && Len->getZExtValue() <= PageSize;
}

// The loads, stores and small memory intrinsics of F that may touch shared
// memory: any not into an alloca (the stack is never shared).
static SmallVector<Access, 32> collectAccesses(Function &F, const DataLayout &DL)
{
    SmallVector<Access, 32> Out;
    auto add = [&](Instruction *I, Value *Ptr, uint64_t Size, bool Write) {
        if (!isa<AllocaInst>(getUnderlyingObject(Ptr)))
            Out.push_back(Access{I, Ptr, Size, Write});
    };
    for (BasicBlock &BB : F)
        for (Instruction &I : BB) {
            if (auto *MI = dyn_cast<MemIntrinsic>(&I); MI && isSmallMemIntrinsic(MI)) {
                uint64_t Len = cast<ConstantInt>(MI->getLength())->getZExtValue();
                add(MI, MI->getDest(), Len, true);
                if (auto *MT = dyn_cast<MemTransferInst>(MI))
                    add(MI, MT->getSource(), Len, false);
                continue;
            }
            Value *Ptr = getLoadStorePointerOperand(&I);
            if (!Ptr)
                continue;
            Type *Ty = isa<LoadInst>(I) ? I.getType() : cast<StoreInst>(I).getValueOperand()->getType();
            TypeSize Sz = DL.getTypeStoreSize(Ty);
            if (!Sz.isScalable())
                add(&I, Ptr, Sz.getFixedValue(), isa<StoreInst>(I));
        }
    return Out;
}

// Other memory intrinsics (the program's, or loops the optimiser turned
// into them) are aggregate accesses already: each is checked in place over
// its whole length at every level, its destination for writing, its source
// for reading.
static bool checkMemIntrinsics(Function &F)
{
    SmallVector<MemIntrinsic *, 8> Calls;
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (auto *MI = dyn_cast<MemIntrinsic>(&I); MI && !isSmallMemIntrinsic(MI))
                Calls.push_back(MI);
    for (MemIntrinsic *MI : Calls) {
        if (!isa<AllocaInst>(getUnderlyingObject(MI->getDest())))
            emitRange(MI, MI->getDest(), MI->getLength(), true);
        auto *MT = dyn_cast<MemTransferInst>(MI);
        if (MT && !isa<AllocaInst>(getUnderlyingObject(MT->getSource())))
            emitRange(MI, MT->getSource(), MT->getLength(), false);
    }
    return !Calls.empty();
}

// A copy of at least this many bytes costs hundreds of loads and stores,
// against the few loads a check that finds its pages consistent costs.
constexpr uint64_t LoneCopyMin = 1024;

// A small memory intrinsic whose check cannot leave its loop, checked in
// place if it copies enough to pay for it: the row copy the optimiser
// peeled off an unrolled loop sits in the loop of iterations, whose
// barriers keep its check there, and left unchecked it took a fault every
// iteration (a twin under Munin's update protocols).
static bool isLoneCopy(const Access &A)
{
    return isa<MemIntrinsic>(A.I) && A.Size >= LoneCopyMin;
}

// The checks of one function at level Lv; whether it changed.
static bool insertChecks(Function &F, FunctionAnalysisManager &FAM, Level Lv)
{
    const DataLayout &DL = F.getParent()->getDataLayout();
    bool Hoisted = !Lv.Basic && hoistTableEntries(FAM.getResult<LoopAnalysis>(F),
                                                  FAM.getResult<AAManager>(F),
                                                  FAM.getResult<ScalarEvolutionAnalysis>(F));
    SmallVector<Access, 32> Accesses = collectAccesses(F, DL);
    bool Changed = checkMemIntrinsics(F) || Hoisted;
    if (Accesses.empty())
        return Changed;
    if (Lv.Basic) {
        for (const Access &A : Accesses)
            emitBasic(A);
        return true;
    }
    auto &LI = FAM.getResult<LoopAnalysis>(F);
    auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
    auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
    auto &TLI = FAM.getResult<TargetLibraryAnalysis>(F);
    SmallVector<Check, 32> Checks;
    for (const Access &A : Accesses) {
        Check C;
        if (planCheck(A, Lv, LI, SE, DT, TLI, C))
            Checks.push_back(C);
        else if (isLoneCopy(A)) {
            emitBasic(A);
            Changed = true;
        }
    }
    if (Lv.Discard) {
        mergeChecks(Checks, SE);
        discardCovered(Checks, SE, DT, TLI);
    }
    return emitChecks(Checks, SE, DL) || Changed;
}

// Polls come last: they split blocks, and the analyses the checks use
// would not survive that (the checks only add instructions).
PreservedAnalyses CasPass::run(Function &F, FunctionAnalysisManager &FAM)
{
    Level Lv = parseLevel();
    if (F.isDeclaration() || F.getName().startswith("tsr_"))
        return PreservedAnalyses::all();
    bool Changed = Lv.On && insertChecks(F, FAM, Lv);
    if (CasPoll)
        Changed |= emitPolls(F, FAM.getResult<LoopAnalysis>(F));
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace tsr
