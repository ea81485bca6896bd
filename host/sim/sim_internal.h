/* Internal: the sim's storage. Every array is allocated in iso_sim_create and lives until
 * iso_sim_destroy; stages only read and write them. */
#ifndef ISO_HOST_SIM_INTERNAL_H
#define ISO_HOST_SIM_INTERNAL_H

#include <stdint.h>

#include "host/backend/backend.h"
#include "host/base/arena.h"
#include "host/model/model_flat.h"
#include "host/sim/sim_data.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"
#include "kernels/core.h"
#include "kernels/world_field.h"

#define ISO_PARAM_COUNT STEP_NPARAM

typedef struct simParam {
  wfield f;  /* backend memory: (1 or nworld, nitem, width) */
  int nitem; /* items (1 for gravity, nbody for body fields) */
  int width; /* values per item */
} simParam;

struct isoSim {
  isoBackend be;
  isoSimDef def;
  int nworld, nbody, nq, nv;
  real dt;
  long long nstep;

  /* per-world arrays of the data table (host/sim/sim_data.h), in the arena, backend memory */
  isoArena arena;
  size_t data_off[SIMD_COUNT];   /* where each table entry starts in the arena */
  size_t data_count[SIMD_COUNT]; /* its elements per world */
  struct { /* one pointer per table line, (nworld, count) each: s->q, s->v, s->list, ... */
    SIM_DATA(SIM_DATA_PTR)
  };

  /* host memory */
  /* the compiled model, copied at creation so the sim outlives its model */
  modelFlat model;    /* host copy of the block */
  void *model_dev;    /* backend copy of the block (CUDA; NULL on the CPU, where the host copy serves) */
  modelView mh;       /* the arrays of the host copy */
  modelView md;       /* the arrays in backend memory, for the stages */
  const real *q_init; /* initial positions (nq), host: mh.q0 */
  const real *v_init; /* initial velocities (nv), host: mh.v0 */
  unsigned char *seen; /* repeat check of a written selection (nworld); writers only */
  real *stage;   /* staging for checked writes (nworld · max(nq, 6)); writers only */

  size_t world_bytes; /* backend bytes of the arrays with a world axis allocated at creation,
                         parameters excepted (iso_sim_memory_per_world) */
  simParam param[ISO_PARAM_COUNT];
  double stage_s[STEP_NSTAGE]; /* wall seconds per stage of the timed steps since creation */
  int stage_timing;            /* 1: steps read the clock around their stages */
  int stage_timed;             /* 1 once the timers were on: stage_s is a measurement */
  struct simContact *contact; /* hydroelastic contact-surface stage (host/contact_*.c) */
  struct simSap *sap;         /* contact dynamics (host/step/sap_step.c) */
  simFem fem;                 /* deformable bodies in the solver (host/sim/sim_fem.c) */
  int want_wrench;            /* 1 once body_contact_wrench was viewed: the stage "contact forces"
                                 runs from then on (a sim that never asks does not pay for it) */
  int want_taxels;            /* 1 once the taxel arrays were viewed: every step samples them */
  int taxels_due;             /* 1: the last step kept its velocities and the taxels are not
                                 sampled yet (sim_tactile_flush) */
  stepCtx ctx;                /* the step context as sim_step_ctx last made it */
  int ctx_ok;                 /* 0: something ctx reads changed since (sim_step_ctx_stale) */
};

/* The deformable bodies' layout in the solver from the model and the capacities (resolving
 * the automatic ones in *cap), before the data table; its backend copy; its freeing
 * (host/sim/sim_fem.c). */
isoStatus sim_fem_layout(isoSim *s, const isoModel *m, isoCapacityDef *cap);
isoStatus sim_fem_upload(isoSim *s);
void sim_fem_free(isoSim *s);

/* The data table's arrays: plan, allocate and bind them (creation); free them; apply each
 * entry's reset action to the selected worlds (host/sim/sim_data.c). */
struct simSel;
isoStatus sim_data_create(isoSim *s);
/* Plan the table for the sim's sizes into *a (offsets and counts per entry; nothing allocated);
 * `fn` names the caller in messages. */
isoStatus sim_data_plan(const isoSim *s, const char *fn, isoArena *a, size_t off[SIMD_COUNT],
                        size_t count[SIMD_COUNT]);
/* Set the sim's pointer of every entry from its arena and offsets. */
void sim_data_bind(isoSim *s);
void sim_data_destroy(isoSim *s);
isoStatus sim_data_reset(isoSim *s, const struct simSel *q);

/* A checked world selection (host/sim/sim_select.c): n worlds, walked with sel_next. */
typedef struct simSel {
  isoWorlds w;
  int nworld; /* the sim's worlds */
  int n;      /* worlds selected */
} simSel;

/* Check a selection (indices in range, arrays present) and count it; writes nothing. */
isoStatus sim_select(const isoSim *s, isoWorlds w, const char *fn, simSel *out);
/* The same for writes: a world listed twice is an error (uses the sim's scratch). */
isoStatus sim_select_unique(isoSim *s, isoWorlds w, const char *fn, simSel *out);
/* The next selected world, or -1 at the end; *it starts at 0. Order: the selection's
 * (ascending for ALL and MASK, the list's order for LIST). */
int sel_next(const simSel *q, int *it);
/* Copy `row` bytes of each selected world (world w's row starts at base + w·stride bytes in
 * backend memory) into `out`, packed in selection order. */
isoStatus sim_gather_rows(const isoSim *s, const simSel *q, const void *base, long stride, size_t row,
                          void *out);
/* The reverse: packed rows of `in` (or the one row `in` for every world when same_row) into the
 * selected worlds' rows. */
isoStatus sim_scatter_rows(const isoSim *s, const simSel *q, void *base, long stride, size_t row,
                           const void *in, int same_row);

/* Automatic capacities (0 in the def) resolved from the compiled model (host/sim/sim_capacity.c,
 * see isoCapacityDef). */
struct isoModel;
void sim_auto_capacity(const struct isoModel *m, const isoSimDef *d, isoCapacityDef *out);

/* The step context of the sim as it is now (host/step/step.h): made again only after
 * sim_step_ctx_stale, as building it (a kilobyte of pointers, the trees' view) was a tenth of a
 * one-world step of a small tree. Whatever changes a pointer or a switch the context copies
 * (a parameter's storage, the table's arena, the stage timers, the wrench stage) calls
 * sim_step_ctx_stale. */
const stepCtx *sim_step_ctx(isoSim *s);

/* The last step's taxels sampled now when they are due (host/sim/sim_tactile.c): before they are
 * read, and before anything the sampling reads changes (a contact update, a parameter, the
 * capacities; a reset needs none, iso_sim_reset says why). */
isoStatus sim_tactile_flush(isoSim *s);
/* The same, and every later step samples them (their arrays are viewed). */
isoStatus sim_tactile_want(isoSim *s);
static inline void sim_step_ctx_stale(isoSim *s) { s->ctx_ok = 0; }

/* Set-up of the collision and dynamics stages at creation, and their freeing
 * (host/sim/sim_setup_contact.c, host/sim/sim_setup_sap.c). */
struct isoModel;
isoStatus contact_create(isoSim *s, const struct isoModel *m);
void contact_destroy(isoSim *s);
isoStatus sap_create(isoSim *s, const struct isoModel *m);
/* Point the set-ups at the data table's arrays and capacities as they are now (creation, and
 * iso_sim_reserve after it moved them); sap_bind also remakes the CPU solver's workspace. */
void contact_bind(isoSim *s);
isoStatus sap_bind(isoSim *s);
void sap_destroy(isoSim *s);
/* The state changed outside a step: surfaces and results no longer describe it. */
void contact_invalidate(isoSim *s);

#endif
