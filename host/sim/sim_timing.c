/* Per-stage wall times of the step (include/isobar/sim.h), kept by the step's drivers. */
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"
#include "host/step/sap_internal.h"

int iso_sim_stage_count(void) { return SAP_NSTAGE; }

const char *iso_sim_stage_name(int k) { return k >= 0 && k < SAP_NSTAGE ? sap_stage_names[k] : ""; }

isoStatus iso_sim_get_stage_times(const isoSim *s, double *out, int cap, int *count) {
  const char *fn = "iso_sim_get_stage_times";
  CHECK_NULL(s, fn);
  CHECK_NULL(count, fn);
  if (cap > 0) CHECK_NULL(out, fn);
  *count = SAP_NSTAGE;
  for (int k = 0; k < cap && k < SAP_NSTAGE; ++k) out[k] = s->sap ? s->sap->stage_s[k] : 0.0;
  return ISO_OK;
}

isoStatus iso_sim_reset_stage_times(isoSim *s) {
  CHECK_NULL(s, "iso_sim_reset_stage_times");
  if (s->sap) memset(s->sap->stage_s, 0, sizeof s->sap->stage_s);
  return ISO_OK;
}
