/* Eight contact laws in the lanes of AVX-512F for the line search (kernels/sap/law_lanes.h)
 * against the scalar loop, bit for bit: ℓ, ℓ' and ℓ'' after eight contacts, from running totals
 * that are not zero, for the lagged Hunt–Crossley law in every branch of its impulse and the
 * convex law in every region of its cone (inactive contacts among them), at α = 0, at a random
 * step and at α_max. Also which runs of constraints take the lanes. The example scenes' state
 * hashes (tests/test_determinism.c) hold the solver's use of them. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <string.h>

/* sap_line_con's γ is written by every law sap_con_law dispatches to, but inlined here GCC cannot
 * see that through the joint kinds' switch */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "kernels/sap/solve.h"
#include "support/sap_contact_sample.h"
#include "support/support.h"

#if ISO_AVX2
/* Contact l of a run of `model`: its data, and J·v in one of the law's regions (J·Δv random). */
static void sample_contact(test_rng *r, int model, int i, double dt, sapCon *c, sapWorkCon *k) {
  memset(c, 0, sizeof *c);
  memset(k, 0, sizeof *k);
  c->kind = i % 3 == 1 ? SAP_CON_DEF_CONTACT : SAP_CON_CONTACT;
  c->rows = 3;
  double dt_own, w[3];
  sapContactParams p = rand_params(r, model, &dt_own, w);
  if (model == SAP_MODEL_CONVEX && i % 16 == 5) p.k = 0; /* inactive: γ ≡ 0 */
  make(&p, w, dt, &c->data);
  double feature[3];
  if (model == SAP_MODEL_CONVEX && !c->data.active) { /* its R is infinite: J·v of any size */
    for (int a = 0; a < 3; ++a) k->vc[a] = test_rng_uniform(r, -1, 1);
  } else if (model == SAP_MODEL_CONVEX) {
    cone_sample(r, &c->data, i % 3, k->vc, feature);
  } else {
    for (int a = 0; a < 2; ++a) k->vc[a] = i % 7 == 0 ? 0.0 : test_rng_uniform(r, -1, 1) * logu(r, 1e-7, 1);
    k->vc[2] = hc_normal_velocity(r, &c->data, i % 4);
  }
  if (i % 9 == 0) k->vc[0] = k->vc[1] = 0; /* no tangential velocity: the soft norm alone */
  for (int a = 0; a < 3; ++a) k->dvc[a] = test_rng_uniform(r, -1, 1) * fabs(k->vc[a] + 1e-3 * (a + 1));
}

Test(sap_law_lanes, eight_laws_give_the_scalar_loops_bits) {
  if (!iso_cpu_avx512()) {
    cr_log_warn("this CPU has no AVX-512F: the solver takes the pairs and the scalar law; nothing to compare");
    return;
  }
  test_rng r = {4242};
  sapCon con[8];
  sapWorkCon ws[8];
  int runs[2] = {0, 0};
  for (int t = 0; t < 3000; ++t) {
    const int model = t % 2 ? SAP_MODEL_LAGGED : SAP_MODEL_CONVEX;
    const double dt = logu(&r, 1e-4, 1e-2); /* one step size per world */
    for (int l = 0; l < 8; ++l) sample_contact(&r, model, 8 * t + l, dt, con + l, ws + l);
    cr_assert_eq(sap_con_law_run8(con, 0, 8), model);
    const double alpha = t % 3 == 0 ? 0.0 : t % 3 == 1 ? test_rng_uniform(&r, 0, 1.5) : 1.5;
    double cost = test_rng_uniform(&r, -1, 1), g1 = test_rng_uniform(&r, -1, 1), g2 = test_rng_uniform(&r, 0, 1);
    double scost = cost, sg1 = g1, sg2 = g2;
    for (int l = 0; l < 8; ++l) scost += sap_line_con(con + l, 3, ws[l].vc, ws[l].dvc, alpha, &sg1, &sg2);
    sap_line_law8(model, con, ws, alpha, &cost, &g1, &g2);
    cr_assert(test_same_bits(&cost, &scost, 1), "run %d (model %d, α %g): ℓ %.17g, scalar %.17g", t, model, alpha,
              cost, scost);
    cr_assert(test_same_bits(&g1, &sg1, 1), "run %d: ℓ' %.17g, scalar %.17g", t, g1, sg1);
    cr_assert(test_same_bits(&g2, &sg2, 1), "run %d: ℓ'' %.17g, scalar %.17g", t, g2, sg2);
    runs[model == SAP_MODEL_LAGGED]++;
  }
  cr_assert(runs[0] > 1000 && runs[1] > 1000);
}

/* A run of eight takes the lanes only when all eight are contacts of one model with a law there:
 * a joint constraint, another model or the end of the list breaks it. */
Test(sap_law_lanes, only_runs_of_one_lane_model_take_the_lanes) {
  test_rng r = {4243};
  sapCon con[10];
  sapWorkCon ws[10];
  for (int l = 0; l < 10; ++l) sample_contact(&r, SAP_MODEL_LAGGED, l, 1e-3, con + l, ws + l);
  cr_assert_eq(sap_con_law_run8(con, 0, 10), SAP_MODEL_LAGGED);
  cr_assert_eq(sap_con_law_run8(con, 2, 10), SAP_MODEL_LAGGED);
  cr_assert_eq(sap_con_law_run8(con, 3, 10), -1, "fewer than eight left");
  con[6].data.model = SAP_MODEL_SIMILAR;
  cr_assert_eq(sap_con_law_run8(con, 0, 10), -1, "a similar-model contact in the run");
  con[6].data.model = SAP_MODEL_CONVEX;
  cr_assert_eq(sap_con_law_run8(con, 0, 10), -1, "two models in the run");
  con[6].data.model = SAP_MODEL_LAGGED;
  con[7].kind = SAP_CON_PD;
  cr_assert_eq(sap_con_law_run8(con, 0, 10), -1, "a joint constraint in the run");
}
#else
Test(sap_law_lanes, eight_laws_give_the_scalar_loops_bits) {
  cr_skip_test("built without the wide loops (ISO_AVX2 0): the solver uses the pairs and the scalar law");
}
#endif
