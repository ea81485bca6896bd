/* Per-stage wall times of the step (include/isobar/sim.h), kept by the step's drivers. */
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"

int iso_sim_stage_count(void) { return STEP_NSTAGE; }

const char *iso_sim_stage_name(int k) { return k >= 0 && k < STEP_NSTAGE ? step_stage_names[k] : ""; }

isoStatus iso_sim_get_stage_times(const isoSim *s, double *out, int cap, int *count) {
  const char *fn = "iso_sim_get_stage_times";
  CHECK_NULL(s, fn);
  CHECK_NULL(count, fn);
  if (cap > 0) CHECK_NULL(out, fn);
  *count = STEP_NSTAGE;
  if (!s->stage_timed)
    return iso_fail(ISO_ERR_STATE, "%s: the stage timers are off; turn them on with iso_sim_set_stage_timing "
                    "before the steps to measure", fn);
  for (int k = 0; k < cap && k < STEP_NSTAGE; ++k) out[k] = s->stage_s[k];
  return ISO_OK;
}

isoStatus iso_sim_set_stage_timing(isoSim *s, int enabled) {
  CHECK_NULL(s, "iso_sim_set_stage_timing");
  s->stage_timing = enabled != 0;
  sim_step_ctx_stale(s);
  if (enabled) s->stage_timed = 1;
  return ISO_OK;
}

isoStatus iso_sim_reset_stage_times(isoSim *s) {
  CHECK_NULL(s, "iso_sim_reset_stage_times");
  memset(s->stage_s, 0, sizeof s->stage_s);
  return ISO_OK;
}
