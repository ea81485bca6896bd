/* Stage 5's per-face materials (kernels/contact/build.h): the pair materials a loop over a
 * world's faces keeps from one face to the next (sapFacePair) are the ones formed afresh for
 * each face, to the bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/contact/build.h"
#include "support/support.h"

#define NGEOM 4
#define NWORLD 2

/* Faces of two worlds in an order that repeats pairs, swaps M and N, changes which side is
 * rigid within one pair, and comes back to a pair met before: each face's kept materials equal
 * those formed with nothing kept. Every geometry has its own random E, d, μ and τ in each world
 * (world-stride fields), so materials kept across a change of pair, side or world would show,
 * and the test checks that they would. */
Test(contact_build, kept_face_materials_are_the_ones_formed_afresh) {
  test_rng r = {2024};
  static real E[NWORLD * NGEOM], d[NWORLD * NGEOM], mu[NWORLD * NGEOM * 2], tau[NWORLD * NGEOM];
  for (int i = 0; i < NWORLD * NGEOM; ++i) {
    E[i] = exp(test_rng_uniform(&r, log(1e5), log(1e9)));
    d[i] = test_rng_uniform(&r, 0, 50);
    mu[2 * i] = test_rng_uniform(&r, 0.2, 1.2), mu[2 * i + 1] = test_rng_uniform(&r, 0.1, 1.0);
    tau[i] = test_rng_uniform(&r, 0, 0.01);
  }
  sapMaterials M;
  memset(&M, 0, sizeof M);
  M.E = (wfield){E, NGEOM}, M.d = (wfield){d, NGEOM}, M.mu = (wfield){mu, 2 * NGEOM}, M.tau = (wfield){tau, NGEOM};
  /* (M, N, rigid sides: bit 0 M, bit 1 N) */
  const int faces[12][3] = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {1, 0, 0}, {1, 0, 1}, {0, 2, 2}, {0, 2, 2},
                            {0, 1, 0}, {2, 3, 1}, {3, 2, 0}, {3, 2, 0}, {0, 1, 0}};
  int changed = 0;
  for (int w = 0; w < NWORLD; ++w) {
    sapFacePair kept;
    sap_face_pair_reset(&kept);
    for (int t = 0; t < 12; ++t) {
      contactRec rec;
      memset(&rec, 0, sizeof rec);
      rec.geom_m = faces[t][0], rec.geom_n = faces[t][1];
      rec.gM = (faces[t][2] & 1) ? INFINITY : 2e9;
      rec.gN = (faces[t][2] & 2) ? INFINITY : 3e9;
      sapFacePair fresh;
      sap_face_pair_reset(&fresh);
      sap_face_pair(&M, w, &rec, &fresh);
      const sapFacePair before = kept;
      sap_face_pair(&M, w, &rec, &kept);
      cr_assert(memcmp(&fresh.mu, &kept.mu, sizeof(real)) == 0 && memcmp(&fresh.tau, &kept.tau, sizeof(real)) == 0 &&
                    memcmp(&fresh.d, &kept.d, sizeof(real)) == 0,
                "world %d, face %d: kept (%.17g, %.17g, %.17g), fresh (%.17g, %.17g, %.17g)", w, t, kept.mu,
                kept.tau, kept.d, fresh.mu, fresh.tau, fresh.d);
      /* where the face's pair or sides differ from the one before, so do its materials (what
       * the test could not see otherwise); M and N swapped, both compliant, combine to the same
       * values (each rule is symmetric in its two sides), so that change is not counted */
      const int same = faces[t][0] == faces[t - (t > 0)][0] && faces[t][1] == faces[t - (t > 0)][1] &&
                       faces[t][2] == faces[t - (t > 0)][2];
      const int swap = t == 3;
      if (t > 0 && !same && !swap) changed += before.mu != fresh.mu || before.d != fresh.d;
    }
  }
  cr_assert_eq(changed, 2 * 6, "every change of pair or side changes the materials: %d of 12 did", changed);
}
