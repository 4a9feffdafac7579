// cas_emit.cpp - the second half of the CAS-DSM pass (cas_pass.h): checks
// merged per array and mode, checks that a dominating one covers discarded
// (the paper's Section 4.2), the calls emitted, and the plugin's entry.
#include "cas_pass.h"
#include "omp_pass.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace tsr {

// B - A as a constant, if ScalarEvolution can tell it.
static bool constDiff(ScalarEvolution &SE, const SCEV *B, const SCEV *A, int64_t &D)
{
    const auto *C = dyn_cast<SCEVConstant>(SE.getMinusSCEV(B, A));
    if (!C || C->getAPInt().getMinSignedBits() > 64)
        return false;
    D = C->getAPInt().getSExtValue();
    return true;
}

// Checks at one place over one array whose ranges begin within a page of
// each other and end within a page of each other (a[i-1], a[i], a[i+1]) become one, a write check if either writes
// (making a page writable makes it readable); so do strided checks over the
// same blocks.
void mergeChecks(SmallVectorImpl<Check> &Checks, ScalarEvolution &SE)
{
    for (size_t i = 0; i < Checks.size(); i++)
        for (size_t j = i + 1; j < Checks.size() && !Checks[i].Dead; j++) {
            Check &A = Checks[i], &B = Checks[j];
            int64_t LoD, EndD;
            if (B.Dead || A.At != B.At || A.Base != B.Base || A.Guards != B.Guards)
                continue;
            if (A.Stride || B.Stride) {
                if (A.Stride == B.Stride && A.Lo == B.Lo && A.Count == B.Count &&
                    A.Block == B.Block) {
                    A.Write |= B.Write;
                    B.Dead = true;
                }
                continue;
            }
            if (!constDiff(SE, B.Lo, A.Lo, LoD) || !constDiff(SE, B.End, A.End, EndD) ||
                std::abs(LoD) > (int64_t)PageSize || std::abs(EndD) > (int64_t)PageSize)
                continue;
            if (LoD < 0)
                A.Lo = B.Lo;
            if (EndD > 0)
                A.End = B.End;
            A.Write |= B.Write;
            B.Dead = true;
        }
}

// Whether a path from From to To (From's block dominates To's) may meet a
// call that synchronizes: every block reachable from From without passing
// To is looked at whole, To's too.
static bool syncBetween(const Instruction *From, const Instruction *To,
                        const TargetLibraryInfo &TLI)
{
    SmallPtrSet<const BasicBlock *, 16> Seen;
    SmallVector<const BasicBlock *, 16> Work(succ_begin(From->getParent()),
                                             succ_end(From->getParent()));
    if (From->getParent() == To->getParent())
        return false; // both before the block's terminator: nothing between
    while (!Work.empty()) {
        const BasicBlock *BB = Work.pop_back_val();
        if (!Seen.insert(BB).second)
            continue;
        for (const Instruction &I : *BB)
            if (maySynchronize(I, TLI))
                return true;
        if (BB != To->getParent())
            Work.append(succ_begin(BB), succ_end(BB));
    }
    return false;
}

// A covers B: at a place that dominates B's, over B's bytes (or the same
// strided blocks), with at least B's access, whenever B would check.
static bool covers(const Check &A, const Check &B, ScalarEvolution &SE, DominatorTree &DT)
{
    int64_t LoD, EndD;
    if (A.Write < B.Write || A.Base != B.Base || A.Stride != B.Stride ||
        (!A.Guards.empty() && A.Guards != B.Guards) || !DT.dominates(A.At, B.At))
        return false;
    if (A.Stride)
        return A.Lo == B.Lo && A.Count == B.Count && A.Block == B.Block;
    return constDiff(SE, B.Lo, A.Lo, LoD) && LoD >= 0 && constDiff(SE, A.End, B.End, EndD) &&
           EndD >= 0;
}

void discardCovered(SmallVectorImpl<Check> &Checks, ScalarEvolution &SE, DominatorTree &DT,
                    const TargetLibraryInfo &TLI)
{
    for (size_t j = 0; j < Checks.size(); j++)
        for (size_t i = 0; i < Checks.size() && !Checks[j].Dead; i++) {
            if (i == j || Checks[i].Dead)
                continue;
            // Of two checks at one place that cover each other, the later goes.
            if (Checks[i].At == Checks[j].At && i > j && covers(Checks[j], Checks[i], SE, DT))
                continue;
            if (covers(Checks[i], Checks[j], SE, DT) &&
                !syncBetween(Checks[i].At, Checks[j].At, TLI))
                Checks[j].Dead = true;
        }
}

static FunctionCallee rangeFn(Module &M, bool Write, bool Step)
{
    LLVMContext &Ctx = M.getContext();
    Type *Ptr = PointerType::getUnqual(Ctx), *I64 = Type::getInt64Ty(Ctx);
    std::string Name = std::string("tsr_range_") + (Write ? "write" : "read") + (Step ? "_step" : "");
    SmallVector<Type *, 4> Args{Ptr, I64};
    if (Step)
        Args.append({I64, I64});
    return M.getOrInsertFunction(Name, FunctionType::get(Type::getVoidTy(Ctx), Args, false));
}

void emitRange(Instruction *I, Value *Ptr, Value *Len, bool Write)
{
    IRBuilder<> B(I);
    B.CreateCall(rangeFn(*I->getModule(), Write, false),
                 {Ptr, B.CreateZExtOrTrunc(Len, B.getInt64Ty())});
}

void emitBasic(const Access &A)
{
    emitRange(A.I, A.Ptr, ConstantInt::get(Type::getInt64Ty(A.I->getContext()), A.Size), A.Write);
}

// A length, or none if negative. Hoisted over a loop some of whose
// iterations skip an inner loop, a check's bounds may cross (the inner
// loop's count is negative there): such a range checks nothing, and the
// accesses fault as usual.
static Value *atLeastZero(IRBuilder<> &B, Value *Len)
{
    return B.CreateSelect(B.CreateICmpSGT(Len, B.getInt64(0)), Len, B.getInt64(0));
}

// Bytes [Lo, End) as a length.
static Value *lengthOf(IRBuilder<> &B, Value *Lo, Value *End)
{
    return atLeastZero(B, B.CreateSub(B.CreatePtrToInt(End, B.getInt64Ty()),
                                      B.CreatePtrToInt(Lo, B.getInt64Ty())));
}

// Whether every guard of C holds, tested at C.At (what they compare is
// computed before the loops C left); null when C has none.
static Value *guardsHold(IRBuilder<> &B, const Check &C)
{
    Value *All = nullptr;
    for (const Guard &G : C.Guards) {
        Instruction *Cond = G.Cond->clone();
        B.Insert(Cond);
        Value *Holds = G.EnterIfFalse ? B.CreateNot(Cond) : Cond;
        All = All ? B.CreateAnd(All, Holds) : Holds;
    }
    return All;
}

// N, or 0 where the guards say the loop is not entered.
static Value *orNothing(IRBuilder<> &B, Value *Holds, Value *N)
{
    return Holds ? B.CreateSelect(Holds, N, ConstantInt::get(N->getType(), 0)) : N;
}

unsigned emitChecks(ArrayRef<Check> Checks, ScalarEvolution &SE, const DataLayout &DL)
{
    unsigned N = 0;
    SCEVExpander Exp(SE, DL, "tsr.cas");
    for (const Check &C : Checks) {
        if (C.Dead || !Exp.isSafeToExpandAt(C.Lo, C.At) ||
            (C.Stride ? !Exp.isSafeToExpandAt(C.Count, C.At) ||
                            !Exp.isSafeToExpandAt(C.Stride, C.At) ||
                            !Exp.isSafeToExpandAt(C.Block, C.At)
                      : !Exp.isSafeToExpandAt(C.End, C.At)))
            continue;
        Module &M = *C.At->getModule();
        IRBuilder<> B(C.At);
        Type *Ptr = PointerType::getUnqual(M.getContext());
        Value *Lo = Exp.expandCodeFor(C.Lo, Ptr, C.At);
        Value *Holds = guardsHold(B, C);
        if (C.Stride) {
            Value *Count = Exp.expandCodeFor(C.Count, B.getInt64Ty(), C.At);
            Value *Block = atLeastZero(B, Exp.expandCodeFor(C.Block, B.getInt64Ty(), C.At));
            Value *Stride = Exp.expandCodeFor(C.Stride, B.getInt64Ty(), C.At);
            B.CreateCall(rangeFn(M, C.Write, true), {Lo, Block, Stride, orNothing(B, Holds, Count)});
        } else {
            Value *End = Exp.expandCodeFor(C.End, Ptr, C.At);
            B.CreateCall(rangeFn(M, C.Write, false), {Lo, orNothing(B, Holds, lengthOf(B, Lo, End))});
        }
        N++;
    }
    return N;
}

// Loop entries between two calls of tsr_poll, counted inline: a call
// (which reads the clock, to look at most every TSR_POLL_US) before every
// run of a short inner loop would cost more than the loop.
constexpr int PollEvery = 16;

// -tsr-poll: before every innermost loop, a countdown, and a call to
// tsr_poll when it runs out, so that a node in a long computation looks at
// its links every PollEvery inner-loop runs. The countdown is one per
// module, internal (the library exports nothing for it), read and written
// as relaxed atomics (threads may race on it; a lost count only moves a
// poll).
bool emitPolls(Function &F, LoopInfo &LI)
{
    SmallVector<BasicBlock *, 16> At;
    for (Loop *L : LI.getLoopsInPreorder())
        if (BasicBlock *PH = L->getLoopPreheader(); PH && L->isInnermost())
            At.push_back(PH);
    if (At.empty())
        return false;
    Module &M = *F.getParent();
    Type *I32 = Type::getInt32Ty(F.getContext());
    auto *Count = cast<GlobalVariable>(M.getOrInsertGlobal("tsr.poll.countdown", I32, [&] {
        return new GlobalVariable(M, I32, false, GlobalValue::InternalLinkage,
                                  ConstantInt::get(I32, PollEvery), "tsr.poll.countdown");
    }));
    FunctionCallee Poll = M.getOrInsertFunction("tsr_poll", Type::getVoidTy(F.getContext()));
    for (BasicBlock *PH : At) {
        IRBuilder<> B(PH->getTerminator());
        LoadInst *Left = B.CreateAlignedLoad(I32, Count, Align(4));
        Left->setAtomic(AtomicOrdering::Monotonic);
        Value *Next = B.CreateSub(Left, ConstantInt::get(I32, 1));
        Value *Due = B.CreateICmpSLE(Next, ConstantInt::get(I32, 0));
        B.CreateAlignedStore(B.CreateSelect(Due, ConstantInt::get(I32, PollEvery), Next), Count,
                             Align(4))
            ->setAtomic(AtomicOrdering::Monotonic);
        Instruction *Then = SplitBlockAndInsertIfThen(Due, PH->getTerminator(), false);
        IRBuilder<>(Then).CreateCall(Poll);
    }
    return true;
}

} // namespace tsr

// The pass, after loop simplification: late passes may have folded a
// loop's preheader into the block that tests whether to enter it, and a
// check needs a block that runs only when the loop does.
static void addPasses(FunctionPassManager &FPM)
{
    FPM.addPass(LoopSimplifyPass());
    FPM.addPass(tsr::CasPass());
}

// The plugin: the OpenMP pass (omp_pass.cpp, with -tsr-omp), then this
// one, run last in the optimisation pipeline, after the inliner (the paper
// inlined by hand, Section 4.3) and loop rotation, and by name (tsr-cas)
// in opt's function pipelines.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
    return {LLVM_PLUGIN_API_VERSION, "tsr-cas", "1", [](PassBuilder &PB) {
                PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
                    MPM.addPass(tsr::OmpPass());
                    FunctionPassManager FPM;
                    addPasses(FPM);
                    MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
                });
                PB.registerPipelineParsingCallback(
                    [](StringRef Name, FunctionPassManager &FPM,
                       ArrayRef<PassBuilder::PipelineElement>) {
                        if (Name != "tsr-cas")
                            return false;
                        addPasses(FPM);
                        return true;
                    });
            }};
}
