//===- DlkOps.td - the dlk (kernel) dialect ----------------*- tablegen -*-===//
//
// Fused kernels produced by --dlg-fuse: an isolated region of dlg ops with
// explicit operands and results, a kind, and an optional schedule.
//
//===----------------------------------------------------------------------===//

#ifndef DLK_OPS
#define DLK_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dlk_Dialect : Dialect {
  let name = "dlk";
  let cppNamespace = "::mlir::dlk";
  let summary = "Fused kernels of dlc with their schedules";
  let description = [{
    A `dlk.kernel` is one unit of code generation: the dlg ops of its body
    are lowered together (one loop nest where possible), following the
    kernel's `#dlk.schedule`.
  }];
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// #dlk.schedule
//===----------------------------------------------------------------------===//

def Dlk_ScheduleAttr : AttrDef<Dlk_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "how a kernel's loops are tiled, vectorized and parallelized";
  let description = [{
    `tile` gives one tile size per loop of the kernel's root op (0 leaves
    that loop untiled); `vector` is the vector width in elements (1 for
    scalar code; not only powers of two: the CPU cost model takes 5 lanes
    for a row of 10); `register` is a contraction's register tile,
    MR rows by NR columns of accumulators;
    `parallel` lists the loops run in parallel. Every field is optional.

    GPU fields (`--lower-to-nvvm`, docs/gpu.md): `workgroup` gives one
    thread-block tile per loop of the root (0: the block keeps the whole
    loop; at most three tiled loops, mapped innermost first to block x, y,
    z); `thread` one tile per loop for each thread inside the block's tile
    (at most three tiled loops, to thread x, y, z; each must divide the
    workgroup tile); `stages` the pipeline depth of shared-memory copies;
    `mma` a tensor-core instruction shape [M, N, K] (mma.sync m16n8k16,
    m16n8k8 or m16n8k4; or wgmma.mma_async m64nNk16 on sm_90a, N a multiple
    of 8 up to 256).

    ```mlir
    #dlk.schedule<tile = [64, 256, 0], vector = 8, register = [6, 16], parallel = [0]>
    #dlk.schedule<workgroup = [64, 64, 0], thread = [4, 4, 0], vector = 4>
    ```
  }];
  let parameters = (ins
      OptionalArrayRefParameter<"int64_t">:$tileSizes,
      DefaultValuedParameter<"int64_t", "1">:$vectorWidth,
      OptionalArrayRefParameter<"int64_t">:$registerTile,
      OptionalArrayRefParameter<"int64_t">:$parallelDims,
      OptionalArrayRefParameter<"int64_t">:$workgroupTile,
      OptionalArrayRefParameter<"int64_t">:$threadTile,
      DefaultValuedParameter<"int64_t", "1">:$pipelineDepth,
      OptionalArrayRefParameter<"int64_t">:$mmaShape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Dlk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dlk_Dialect, mnemonic, traits>;

def Dlk_KernelOp : Dlk_Op<"kernel", [IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "a fused kernel";
  let description = [{
    The region has one block whose arguments stand for the operands (same
    count and types) and whose dlg ops end in `dlk.yield` of the results.
    `kind` is one of `"elementwise"`, `"reduction"`, `"contraction"`,
    `"injective"` or `"opaque"`.

    ```mlir
    %y = dlk.kernel "contraction" (%x, %w, %b)
        : (tensor<32x784xf32>, tensor<784x512xf32>, tensor<512xf32>) -> tensor<32x512xf32> {
    ^bb0(%a: tensor<32x784xf32>, %c: tensor<784x512xf32>, %d: tensor<512xf32>):
      %0 = dlg.matmul %a, %c : tensor<32x784xf32>, tensor<784x512xf32> -> tensor<32x512xf32>
      %1 = dlg.add %0, %d : tensor<32x512xf32>, tensor<512xf32> -> tensor<32x512xf32>
      %2 = dlg.relu %1 : tensor<32x512xf32>
      dlk.yield %2 : tensor<32x512xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs, StrAttr:$kind,
                   OptionalAttr<Dlk_ScheduleAttr>:$schedule);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind (`schedule` qualified($schedule)^)? `(` $inputs `)` attr-dict `:`
    functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
    /// Whether `kind` names a known kernel kind.
    static bool isKnownKind(::llvm::StringRef kind);
  }];
}

def Dlk_YieldOp : Dlk_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"KernelOp">]> {
  let summary = "results of a kernel";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // DLK_OPS
