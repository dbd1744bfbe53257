/* The schedule passes' shared driver (dlc-cpu-schedule, dlc-gpu-schedule):
   group partition, the ids a transform script matches ops by, and the
   kernel's given #dlk.schedule. A backend plugs in its reader, its
   grouping exception and what it emits for a group. */

#ifndef DLC_PASSES_SCHEDULE_DRIVER_H
#define DLC_PASSES_SCHEDULE_DRIVER_H

#include "schedule/analysis.h"
#include "schedule/script.h"

typedef struct DlcScheduleState DlcScheduleState;

/* One group as a backend schedules it. */
typedef struct DlcScheduleGroup {
  DlcLinalgInfo *ops; /* program order; the last is the sink */
  int numOps;
  int root;         /* index of the GEMM root, or -1 */
  int64_t firstSid; /* the schedule id of ops[0] */
  DlcSchedule sched;
} DlcScheduleGroup;

enum { DLC_SCHEDULE_MAX_GROUP = 64 };

/* What a backend adds to the shared driver. */
typedef struct DlcScheduleBackend {
  const char *pass; /* the pass's name, for its diagnostics */
  /* Reads an op for this backend (dlcReadLinalg and the backend's limits). */
  bool (*read)(MlirOperation op, DlcLinalgInfo *info);
  /* Whether `producer`, whose every use is in `group`, still gets a group
     of its own (NULL: never). */
  bool (*splitOff)(MlirOperation producer, const MlirOperation *group, int n);
  /* Schedules and emits one group: its ops in program order, the last the
     sink; `primary` is the group that owns the kernel's #dlk.schedule. */
  void (*scheduleGroup)(DlcScheduleState *st, MlirOperation func, const MlirOperation *ops, int n,
                        bool primary);
  /* Stop at the first group that fails (else every group reports). */
  bool stopAtFirstError;
} DlcScheduleBackend;

struct DlcScheduleState {
  DlcScript script;
  const DlcScheduleBackend *backend;
  void *target; /* the backend's own data */
  int64_t sid;  /* the next DLC_ATTR_SCHEDULE_ID */
  int groups;
  bool failed;
  MlirContext ctx;
};

/* Partitions each function's linalg ops into groups (a sink and the
   producers whose every use is in the group; after dlk-to-linalg one
   kernel function is one group) after dlcNormalizeForSchedule, and calls
   the backend for each. The script gets the common header first. */
void dlcScheduleModule(DlcScheduleState *st, MlirOperation module);

/* The same for one function, into st->script (which the caller begins):
   a backend that runs a script per function (dlc-cpu-schedule) keeps
   each script's matches and handles to its function. */
void dlcScheduleFunc(DlcScheduleState *st, MlirOperation func);

/* Reads the `n` ops of a group with the backend's reader into `infos`
   (DLC_SCHEDULE_MAX_GROUP entries) and finds its GEMM root, dropped when
   an epilogue changes shape (no common tiling). False when an op cannot be
   read: the group stays as it is. */
bool dlcScheduleReadGroup(const DlcScheduleState *st, const MlirOperation *ops, int n,
                          DlcLinalgInfo *infos, DlcScheduleGroup *g);

/* Tags `op` with the next schedule id, the one a script's match names. */
void dlcScheduleTag(DlcScheduleState *st, MlirOperation op);

/* Removes the tags of a schedule from everything under `module`. */
void dlcScheduleUntag(MlirOperation module);

/* An error at `at`; the state fails. */
void dlcScheduleFail(DlcScheduleState *st, MlirOperation at, const char *msg);

/* The group's comment line in the script: `// group N of @f: K ops, kind`. */
void dlcScheduleComment(DlcScheduleState *st, MlirOperation func, int numOps, const char *kind);

/* The kernel's #dlk.schedule attribute for the primary group (null for
   other groups), and whether `func` is an outlined kernel. */
MlirAttribute dlcScheduleGiven(MlirOperation func, bool primary);
bool dlcScheduleIsKernel(MlirOperation func);

/* The dialects a schedule's script creates ops of (a pass's dependent
   dialects). */
void dlcScheduleDialects(MlirDialectRegistry r);

#endif
