/* The names of the attributes one pass leaves for a later one (or for the
   runtime). One place, so that a writer and its readers cannot drift apart
   by a typo, and so that a reader can see the whole inter-pass protocol. */

#ifndef DLC_PASSES_SUPPORT_ATTR_NAMES_H
#define DLC_PASSES_SUPPORT_ATTR_NAMES_H

/* On an outlined kernel function (dlk-to-linalg -> schedules, profiler). */
#define DLC_ATTR_KERNEL_KIND "dlk.kind"         /* the kernel's kind, e.g. "gemm" */
#define DLC_ATTR_SCHEDULE "dlk.schedule"        /* #dlk.schedule, chosen or given */

/* Inside a kernel while a schedule's transform script runs. */
#define DLC_ATTR_SCHEDULE_ID "dlc.sid"          /* which linalg op a script handle names */
#define DLC_ATTR_REDUCTION_LOOP "dlc.kloop"     /* a tiled reduction loop to hoist/unroll */
#define DLC_ATTR_HOIST_ONLY_LOOP "dlc.kloop_hoist" /* a reduction loop to hoist, not unroll */
#define DLC_ATTR_COPY_ROW "dlc.copy_row"        /* a copy dlc-copy-to-linalg vectorises by rows */

/* GPU mapping (gpu-schedule -> gpu-map). */
#define DLC_ATTR_BLOCK_DIMS "dlc.block_dims"    /* threads per block of a forall */
#define DLC_ATTR_MMA "dlc.mma" /* [m, n, k, stages] of a warp forall dlc-gpu-mma rewrites */
#define DLC_ATTR_ROW_LANES "dlc.row_lanes"  /* [lanes, extent] of a ROWS launch */
#define DLC_ATTR_LAUNCH "dlc.launch"            /* the launch a region belongs to */
#define DLC_ATTR_LEFTOVER "dlc.leftover" /* "parallel" / "reduce": a one-thread launch (gpu-map -> gpu-spread) */

/* On the entry function / module, read by capi's Compile.c and the AOT path. */
#define DLC_ATTR_WORKSPACE_BYTES "dlc.workspace_bytes" /* arena size (memory plan) */
#define DLC_ATTR_MEMORY_PLAN "dlc.memory_plan"         /* the plan's summary */
#define DLC_ATTR_PROFILE "dlc.profile"                 /* kernel table of a profiled build */

#endif
