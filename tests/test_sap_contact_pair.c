/* Two contact laws in a pair of SIMD lanes (kernels/sap/contact_pair.h) against the scalar law, bit
 * for bit: cost, γ and G of both lanes, with the lanes' data swapped, and a NaN in one lane that
 * must not reach the other.
 *  - Lagged Hunt–Crossley (sap_hc_lagged_eval2 against sap_hc_eval): random contacts and
 *    velocities in every branch of the impulse (no contact, beyond v̂, compression with and
 *    without damping, a zero tangential velocity).
 *  - Convex (sap_cone_eval2 against sap_cone_eval): every region of the cone projection
 *    (stiction, sliding, none) in either lane, frictionless and inactive contacts among them.
 * The solver's passes use them for each pair of consecutive contacts of one model, so the example
 * scenes' state hashes (tests/test_determinism.c) also hold them. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/sap/contact_pair.h"
#include "support/sap_contact_sample.h"
#include "support/support.h"

#if ISO_PAIRS
/* A law of two lanes and its scalar law. */
typedef void (*pair_law)(const sapContactData *, const sapContactData *, const double *, const double *, double *,
                         double *, double *, double *, double *, double *);
typedef double (*scalar_law)(const sapContactData *, const double *, double *, double *);

/* The pair law and the scalar law, lanes (a, b), compared to the bit. */
static void check_law(pair_law pair, scalar_law scalar, const sapContactData *a, const sapContactData *b,
                      const double va[3], const double vb[3]) {
  double ga[3], gb[3], Ga[9], Gb[9], la, lb;
  double sga[3], sgb[3], sGa[9], sGb[9];
  memset(Ga, 0x5a, sizeof Ga), memset(Gb, 0x5a, sizeof Gb); /* every entry must be written */
  pair(a, b, va, vb, ga, gb, Ga, Gb, &la, &lb);
  const double sla = scalar(a, va, sga, sGa), slb = scalar(b, vb, sgb, sGb);
  cr_assert(memcmp(&la, &sla, sizeof la) == 0, "cost a %.17g, scalar %.17g", la, sla);
  cr_assert(memcmp(&lb, &slb, sizeof lb) == 0, "cost b %.17g, scalar %.17g", lb, slb);
  cr_assert(memcmp(ga, sga, sizeof ga) == 0 && memcmp(gb, sgb, sizeof gb) == 0, "γ differs");
  cr_assert(memcmp(Ga, sGa, sizeof Ga) == 0 && memcmp(Gb, sGb, sizeof Gb) == 0, "G differs");
}

static void check_pair(const sapContactData *a, const sapContactData *b, const double va[3], const double vb[3]) {
  check_law(sap_hc_lagged_eval2, sap_hc_eval, a, b, va, vb);
}

Test(sap_contact_pair, lagged_law_in_lanes_has_the_scalar_bits) {
  test_rng r = {77};
  int compressed = 0, separated = 0;
  for (int i = 0; i < 4000; ++i) {
    double dt, w[3], dt2, w2[3];
    sapContactParams p = rand_params(&r, SAP_MODEL_LAGGED, &dt, w);
    sapContactParams q = rand_params(&r, SAP_MODEL_LAGGED, &dt2, w2);
    sapContactData a, b;
    make(&p, w, dt, &a);
    make(&q, w2, dt, &b); /* one step size per world */
    double va[3], vb[3];
    for (int k = 0; k < 2; ++k) {
      va[k] = i % 7 == 0 ? 0.0 : test_rng_uniform(&r, -1, 1) * logu(&r, 1e-7, 1);
      vb[k] = i % 5 == 0 ? 0.0 : test_rng_uniform(&r, -1, 1) * logu(&r, 1e-7, 1);
    }
    va[2] = hc_normal_velocity(&r, &a, i % 4);
    vb[2] = hc_normal_velocity(&r, &b, (i / 4) % 4);
    compressed += sap_hc_impulse(&a, va[2]) > 0;
    separated += sap_hc_impulse(&a, va[2]) == 0;
    check_pair(&a, &b, va, vb);
    check_pair(&b, &a, vb, va);
  }
  /* the sample reaches both sides of the impulse's support */
  cr_assert_gt(compressed, 1000);
  cr_assert_gt(separated, 1000);
}

/* A NaN velocity in one lane gives that lane the scalar law's NaNs and leaves the other lane's
 * numbers exact. */
Test(sap_contact_pair, nan_stays_in_its_lane) {
  test_rng r = {78};
  double dt, w[3];
  sapContactParams p = rand_params(&r, SAP_MODEL_LAGGED, &dt, w);
  sapContactData a, b;
  make(&p, w, dt, &a);
  p.fe0 *= 0.5;
  make(&p, w, dt, &b);
  const double va[3] = {NAN, 1e-3, -1e-3}, vb[3] = {2e-4, -1e-4, -2e-3};
  double ga[3], gb[3], Ga[9], Gb[9], la, lb, sg[3], sG[9];
  sap_hc_lagged_eval2(&a, &b, va, vb, ga, gb, Ga, Gb, &la, &lb);
  cr_assert(isnan(la) && isnan(ga[0]));
  const double sl = sap_hc_eval(&b, vb, sg, sG);
  cr_assert(memcmp(&lb, &sl, sizeof lb) == 0 && memcmp(gb, sg, sizeof gb) == 0 && memcmp(Gb, sG, sizeof Gb) == 0);
}
static void check_cone_pair(const sapContactData *a, const sapContactData *b, const double va[3], const double vb[3]) {
  check_law(sap_cone_eval2, sap_cone_eval, a, b, va, vb);
}

/* A random convex contact; one in 16 inactive (k = 0: γ ≡ 0), as a margin pair's can be. */
static void cone_contact(test_rng *r, int i, double dt, sapContactData *d) {
  double dt_unused, w[3];
  sapContactParams p = rand_params(r, SAP_MODEL_CONVEX, &dt_unused, w);
  if (i % 16 == 5) p.k = 0;
  make(&p, w, dt, d);
}

Test(sap_contact_pair, convex_law_in_lanes_has_the_scalar_bits) {
  test_rng r = {79};
  int seen[3] = {0, 0, 0}, inactive = 0;
  for (int i = 0; i < 6000; ++i) {
    const double dt = logu(&r, 1e-4, 1e-2); /* one step size per world */
    sapContactData a, b;
    cone_contact(&r, i, dt, &a);
    cone_contact(&r, i + 3, dt, &b);
    double va[3], vb[3], feature[3];
    cone_sample(&r, &a, i % 3, va, feature);
    cone_sample(&r, &b, (i / 3) % 3, vb, feature);
    if (i % 11 == 0) va[0] = va[1] = 0; /* no tangential velocity: the soft norm alone */
    inactive += !a.active;
    if (a.active) seen[sap_contact_region(&a, va)]++;
    check_cone_pair(&a, &b, va, vb);
    check_cone_pair(&b, &a, vb, va);
  }
  /* the sample reaches every region, and inactive contacts */
  for (int k = 0; k < 3; ++k) cr_assert_gt(seen[k], 1000, "region %d reached %d times", k, seen[k]);
  cr_assert_gt(inactive, 100);
}

Test(sap_contact_pair, convex_nan_stays_in_its_lane) {
  test_rng r = {80};
  sapContactData a, b;
  cone_contact(&r, 0, 1e-3, &a);
  cone_contact(&r, 1, 1e-3, &b);
  double va[3] = {1e-3, NAN, -1e-3}, vb[3], feature[3];
  cone_sample(&r, &b, SAP_REGION_SLIDING, vb, feature);
  double ga[3], gb[3], Ga[9], Gb[9], la, lb, sg[3], sG[9];
  sap_cone_eval2(&a, &b, va, vb, ga, gb, Ga, Gb, &la, &lb);
  double sla = sap_cone_eval(&a, va, sg, sG);
  cr_assert(memcmp(&la, &sla, sizeof la) == 0, "the NaN lane gets the scalar law's result (%g, %g)", la, sla);
  const double sl = sap_cone_eval(&b, vb, sg, sG);
  cr_assert(memcmp(&lb, &sl, sizeof lb) == 0 && memcmp(gb, sg, sizeof gb) == 0 && memcmp(Gb, sG, sizeof Gb) == 0);
}
#else
Test(sap_contact_pair, lagged_law_in_lanes_has_the_scalar_bits) {
  cr_skip_test("this compiler has no SIMD pairs (ISO_PAIRS 0): the solver uses the scalar law only");
}
#endif
