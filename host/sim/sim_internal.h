/* Internal: the sim's storage. Every array is allocated in iso_sim_create and lives until
 * iso_sim_destroy; stages only read and write them. */
#ifndef ISO_HOST_SIM_INTERNAL_H
#define ISO_HOST_SIM_INTERNAL_H

#include <stdint.h>

#include "host/backend/backend.h"
#include "isobar/sim.h"
#include "kernels/core.h"
#include "kernels/world_field.h"

#define ISO_PARAM_COUNT 9

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

  /* state, backend memory */
  real *q;          /* generalized positions (nworld, nq) */
  real *v;          /* generalized velocities (nworld, nv) */
  real *time;       /* simulated time (nworld) */
  uint32_t *status; /* ISO_WORLD_* bits (nworld) */

  /* host memory */
  real *q_init;  /* initial positions (nq), from the model */
  real *v_init;  /* initial velocities (nv) */
  int *sel;      /* resolved world selection (nworld) */
  unsigned char *seen; /* repeat check of a selection (nworld) */
  real *stage;   /* staging for checked writes (nworld · max(nq, 6)) */

  size_t world_bytes; /* backend bytes of the arrays with a world axis allocated at creation,
                         parameters excepted (iso_sim_memory_per_world) */
  simParam param[ISO_PARAM_COUNT];
  struct simContact *contact; /* hydroelastic contact-surface stage (host/contact_*.c) */
  struct simSap *sap;         /* contact dynamics (host/step/sap_step.c) */
};

/* Resolve a world selection into sim->sel[0..*n); repeats are an error when `unique`. */
isoStatus sim_resolve(const isoSim *s, isoWorlds w, int unique, const char *fn, int *n);

/* Stage: free rigid-body motion of every world (host/step/rigid_step.c). */
isoStatus rigid_step(isoSim *sim);

#endif
