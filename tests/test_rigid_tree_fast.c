/* The step's mass matrix and inverse dynamics with cached inertias (kernels/rigid/tree_fast.h)
 * against the plain ones of kernels/rigid/tree.h, on the random trees of the tree tests. */
#include "support/tree_random.h"
#include "kernels/rigid/tree_fast.h"

Test(rigid_tree_fast, cached_mass_matrix_equals_the_plain_one_to_rounding) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], M[MAXV * MAXV], Mc[MAXV * MAXV];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(7, cs, &t, q, v, w);
    xform X[MAXB];
    svec S[MAXV];
    kin(&t, q, X, S);
    tree_mass_matrix(&t.T, 0, t.b0, t.b1, t.v_begin, X, S, M);
    sinertia I[MAXB], Ic[MAXB];
    tree_body_inertias(&t.T, 0, t.b0, t.b1, X, I);
    tree_mass_matrix_cached(&t.T, t.b0, t.b1, t.v_begin, X, S, I, Ic, Mc);
    /* the same composites summed in another order (leaves to root through the parents rather
     * than every body shifted straight to each ancestor): rounding of sums of O(10) terms of
     * size ≤ max|M|, so 1e-13 of max|M| */
    const double tol = 1e-13 * max_abs(M, t.nt * t.nt);
    for (int i = 0; i < t.nt * t.nt; ++i) cr_assert_float_eq(Mc[i], M[i], tol, "%s: M[%d] %.17g vs %.17g", name, i, Mc[i], M[i]);
    for (int i = 0; i < t.nt; ++i)
      for (int k = 0; k < t.nt; ++k) cr_assert_eq(Mc[i * t.nt + k], Mc[k * t.nt + i], "%s: not symmetric", name);
  }
}

Test(rigid_tree_fast, cached_inverse_dynamics_is_the_plain_one_bitwise) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(8, cs, &t, q, v, w);
    xform X[MAXB];
    svec S[MAXV], s1[3 * MAXB], s2[3 * MAXB];
    kin(&t, q, X, S);
    double tau[MAXV], tauc[MAXV];
    tree_inverse_dynamics(&t.T, 0, t.b0, t.b1, t.v_begin, X, S, v, w, s1, tau);
    sinertia I[MAXB];
    tree_body_inertias(&t.T, 0, t.b0, t.b1, X, I);
    tree_inverse_dynamics_cached(&t.T, 0, t.b0, t.b1, t.v_begin, X, S, I, v, w, s2, tauc);
    /* the same operations on the same inertias, formed once instead of per use */
    cr_assert(test_same_bits(tau, tauc, t.nt), "%s: τ differs", name);
  }
}
