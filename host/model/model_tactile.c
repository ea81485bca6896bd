/* The model builder's tactile pads (include/isobar/tactile.h): defaults, checks at the door,
 * and their flat arrays at compile. A pad's frame is given on the geometry's body; the sampling
 * kernel places taxels from the geometry's world pose, so compile stores the pad in the
 * geometry's frame: X_GP = X_BG⁻¹·X_BP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "isobar/geometry.h"

isoTactilePadDef iso_default_tactile_pad_def(void) {
  isoTactilePadDef d;
  memset(&d, 0, sizeof d);
  d.rows = d.cols = 1;
  d.spacing = 0.005;
  d.quaternion[0] = 1;
  return d;
}

/* The checks of one pad (d: a copy whose quaternion is normalised in place). */
static isoStatus check_pad(const isoModel *m, isoTactilePadDef *d, const char *what) {
  if (d->geometry < 0 || d->geometry >= m->ngeom)
    return iso_fail(ISO_ERR_INVALID, "%s: geometry %d is out of range [0, %d)", what, d->geometry, m->ngeom);
  if (d->rows < 1 || d->cols < 1)
    return iso_fail(ISO_ERR_INVALID, "%s: rows %d and cols %d must be >= 1", what, d->rows, d->cols);
  const long n = (long)d->rows * d->cols;
  if (n > ISO_MAX_TAXELS_PER_PAD)
    return iso_fail(ISO_ERR_INVALID, "%s: %d x %d = %ld taxels is more than the %d a pad may have", what, d->rows,
                    d->cols, n, ISO_MAX_TAXELS_PER_PAD);
  if (m->ntaxel + n > ISO_MAX_TAXELS)
    return iso_fail(ISO_ERR_INVALID, "%s: %ld taxels would bring the model's pads to %ld, more than %d", what, n,
                    m->ntaxel + n, ISO_MAX_TAXELS);
  if (!isfinite(d->spacing) || d->spacing < ISO_MIN_SIZE || d->spacing > ISO_MAX_SIZE)
    return iso_fail(ISO_ERR_INVALID, "%s: spacing %g m must be finite and in [%g, %g]", what, d->spacing,
                    ISO_MIN_SIZE, ISO_MAX_SIZE);
  if (!model_all_finite(d->position, 3))
    return iso_fail(ISO_ERR_INVALID, "%s: position (%g, %g, %g) is not finite", what, d->position[0], d->position[1],
                    d->position[2]);
  double s = 0;
  for (int k = 0; k < 4; ++k) s += d->quaternion[k] * d->quaternion[k];
  s = sqrt(s);
  if (!model_all_finite(d->quaternion, 4) || !(s > 1e-12))
    return iso_fail(ISO_ERR_INVALID, "%s: quaternion (%g, %g, %g, %g) is not finite or has zero length", what,
                    d->quaternion[0], d->quaternion[1], d->quaternion[2], d->quaternion[3]);
  for (int k = 0; k < 4; ++k) d->quaternion[k] /= s;
  return ISO_OK;
}

isoStatus iso_model_add_tactile_pad(isoModel *m, const isoTactilePadDef *def, int *index) {
  const char *fn = "iso_model_add_tactile_pad";
  CHECK_NULL(m, fn);
  CHECK_NULL(def, fn);
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "%s: the model is compiled and read-only", fn);
  char what[64];
  snprintf(what, sizeof what, "tactile pad %d", m->npad);
  isoTactilePadDef d = *def;
  isoStatus st = check_pad(m, &d, what);
  if (st != ISO_OK) return st;
  if (m->npad == m->pad_cap) {
    const int cap = m->pad_cap ? 2 * m->pad_cap : 4;
    isoTactilePadDef *p = (isoTactilePadDef *)realloc(m->pad, sizeof *p * (size_t)cap);
    if (!p) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
    m->pad = p;
    m->pad_cap = cap;
  }
  m->pad[m->npad] = d;
  m->ntaxel += (long)d.rows * d.cols;
  if (index) *index = m->npad;
  m->npad++;
  return ISO_OK;
}

int iso_model_tactile_pad_count(const isoModel *m) { return m ? m->npad : 0; }

isoStatus iso_model_get_tactile_pad(const isoModel *m, int pad, isoTactilePadDef *out) {
  const char *fn = "iso_model_get_tactile_pad";
  CHECK_NULL(m, fn);
  CHECK_NULL(out, fn);
  if (pad < 0 || pad >= m->npad)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: pad %d is out of range [0, %d)", fn, pad, m->npad);
  *out = m->pad[pad];
  return ISO_OK;
}

void model_tactile_free(isoModel *m) {
  free(m->pad);
  m->pad = NULL;
  m->npad = m->pad_cap = 0;
  m->ntaxel = 0;
}

void model_tactile_fill(const isoModel *m, int *pad_geom, int *pad_rows, int *pad_cols, real *pad_spacing,
                        xform *pad_X_GP, int *pad_taxel0) {
  int t = 0;
  for (int p = 0; p < m->npad; ++p) {
    const isoTactilePadDef *d = &m->pad[p];
    const isoGeometryDef *g = &m->geom[d->geometry];
    const xform X_BG = xf_make(quat_make(g->quaternion[0], g->quaternion[1], g->quaternion[2], g->quaternion[3]),
                               v3(g->position[0], g->position[1], g->position[2]));
    const xform X_BP = xf_make(quat_make(d->quaternion[0], d->quaternion[1], d->quaternion[2], d->quaternion[3]),
                               v3(d->position[0], d->position[1], d->position[2]));
    pad_geom[p] = d->geometry;
    pad_rows[p] = d->rows;
    pad_cols[p] = d->cols;
    pad_spacing[p] = d->spacing;
    pad_X_GP[p] = xf_mul(xf_inv(X_BG), X_BP);
    pad_taxel0[p] = t;
    t += d->rows * d->cols;
  }
  pad_taxel0[m->npad] = t;
}
