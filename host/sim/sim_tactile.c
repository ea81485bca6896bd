/* The tactile queries of include/isobar/tactile.h: a pad's slice of each world's taxel row, read
 * from the data table's taxel arrays (written by host/step/step_tactile.c), sampled first when
 * the last step left them due. */
#include "host/base/error.h"
#include "host/sim/sim_internal.h"
#include "isobar/tactile.h"

isoStatus sim_tactile_flush(isoSim *s) {
  if (!s->taxels_due) return ISO_OK;
  isoStatus st = step_tactile_later(sim_step_ctx(s));
  if (st == ISO_OK) s->taxels_due = 0;
  return st;
}

isoStatus sim_tactile_want(isoSim *s) {
  if (s->mh.z.npad > 0 && !s->want_taxels) {
    s->want_taxels = 1;
    sim_step_ctx_stale(s);
  }
  return sim_tactile_flush(s);
}

int iso_sim_tactile_count(const isoSim *s) { return s ? s->mh.z.npad : 0; }

int iso_sim_taxel_total(const isoSim *s) { return s ? s->mh.z.ntaxel : 0; }

static isoStatus check_pad(const isoSim *s, int pad, const char *fn) {
  if (pad < 0 || pad >= s->mh.z.npad)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: pad %d is out of range [0, %d)", fn, pad, s->mh.z.npad);
  return ISO_OK;
}

isoStatus iso_sim_taxel_offset(const isoSim *s, int pad, int *offset, int *count) {
  const char *fn = "iso_sim_taxel_offset";
  CHECK_NULL(s, fn);
  isoStatus st = check_pad(s, pad, fn);
  if (st != ISO_OK) return st;
  if (offset) *offset = s->mh.pad_taxel0[pad];
  if (count) *count = s->mh.pad_taxel0[pad + 1] - s->mh.pad_taxel0[pad];
  return ISO_OK;
}

/* Pad `pad`'s `width` values per taxel of the selected worlds from `base` ((nworld, ntaxel,
 * width), backend memory), packed. */
static isoStatus gather(const isoSim *s, int pad, isoWorlds worlds, const real *base, int width, double *out,
                        const char *fn) {
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  isoStatus st = check_pad(s, pad, fn);
  if (st != ISO_OK) return st;
  simSel q;
  st = sim_select(s, worlds, fn, &q);
  if (st != ISO_OK) return st;
  const int t0 = s->mh.pad_taxel0[pad], n = s->mh.pad_taxel0[pad + 1] - t0;
  const long stride = (long)sizeof(real) * width * s->mh.z.ntaxel;
  return sim_gather_rows(s, &q, base + (long)width * t0, stride, sizeof(real) * (size_t)width * (size_t)n, out);
}

isoStatus iso_sim_get_taxel_forces(const isoSim *s, int pad, isoWorlds worlds, double *out) {
  const char *fn = "iso_sim_get_taxel_forces";
  CHECK_NULL(s, fn);
  const isoStatus st = sim_tactile_flush((isoSim *)s); /* the last step's samples, taken when first read */
  return st != ISO_OK ? st : gather(s, pad, worlds, s->taxel_f, 3, out, fn);
}

isoStatus iso_sim_get_taxel_pressures(const isoSim *s, int pad, isoWorlds worlds, double *out) {
  const char *fn = "iso_sim_get_taxel_pressures";
  CHECK_NULL(s, fn);
  const isoStatus st = sim_tactile_flush((isoSim *)s);
  return st != ISO_OK ? st : gather(s, pad, worlds, s->taxel_p, 1, out, fn);
}

isoStatus iso_sim_taxel_buffers(const isoSim *s, const double **forces, const double **pressures) {
  CHECK_NULL(s, "iso_sim_taxel_buffers");
  const isoStatus st = sim_tactile_want((isoSim *)s); /* read in place from now on: every step samples */
  if (st != ISO_OK) return st;
  if (forces) *forces = s->taxel_f;
  if (pressures) *pressures = s->taxel_p;
  return ISO_OK;
}
