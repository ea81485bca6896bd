/* What `isobar run` prints of a sim's deformable bodies (host/cli/cli.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "isobar/deformable.h"

void cli_print_deformables(const isoModel *m, const isoSim *sim) {
  const int nd = iso_model_deformable_count(m), n3 = iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION);
  double *x = (double *)malloc(sizeof(double) * ((size_t)n3 + 1)), *v = (double *)malloc(sizeof(double) * ((size_t)n3 + 1));
  if (nd > 0 && x && v && iso_sim_get_state(sim, ISO_STATE_VERTEX_POSITION, iso_worlds_one(0), x) == ISO_OK &&
      iso_sim_get_state(sim, ISO_STATE_VERTEX_VELOCITY, iso_worlds_one(0), v) == ISO_OK) {
    const double *xd = x, *vd = v;
    for (int d = 0; d < nd; ++d) {
      isoDeformableDef dd;
      int nv = 0;
      iso_model_get_deformable(m, d, &dd);
      iso_model_deformable_size(m, d, &nv, NULL, NULL);
      double p[3] = {0, 0, 0}, u[3] = {0, 0, 0};
      for (int i = 0; i < nv; ++i)
        for (int k = 0; k < 3; ++k) p[k] += xd[3 * i + k] / nv, u[k] += vd[3 * i + k] / nv;
      if (d < 8)
        printf("  %-32s mean p = (%9.5f, %9.5f, %9.5f)  v = (%8.4f, %8.4f, %8.4f)  (%d vertices)\n", dd.name, p[0], p[1],
               p[2], u[0], u[1], u[2], nv);
      xd += 3L * nv, vd += 3L * nv;
    }
    if (nd > 8) printf("  ... and %d more deformable bodies\n", nd - 8);
  }
  free(x);
  free(v);
}

