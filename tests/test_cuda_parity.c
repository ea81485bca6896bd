/* The CUDA backend steps example scenes to the CPU backend's bits: rigid stacks, a spinning
 * coin, a gripper, a robot arm under PD control, an arch of blocks, deformable bodies. It holds
 * wherever nothing is contracted into FMA: the emulated device (which CMake builds with the GPU's
 * own code paths: no SIMD lanes, no CPU stack scratch, one BVH side slot) and nvcc with
 * ISO_PARITY (on an H200 every example scene matched). A CUDA module built with contraction
 * rounds differently, and the test skips there. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

/* Both backends from the scene's initial state for `steps` steps, every world's PD position
 * targets set to `targets` (one per actuator; NULL: the scene's); every state field and every
 * world's status compared bit for bit. */
static void same_bits_with(const char *scene, int worlds, int steps, const double *targets) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path(scene), NULL, &m, NULL), ISO_OK, "%s: %s", scene, iso_last_error());
  isoSim *c = test_sim(m, worlds, ISO_BACKEND_CPU, 2), *g = test_sim(m, worlds, ISO_BACKEND_CUDA, 2);
  if (targets) {
    const int na = iso_sim_state_width(c, ISO_STATE_TARGET_POSITION);
    double *t = malloc(sizeof(double) * (size_t)(worlds * na));
    cr_assert(t);
    for (int i = 0; i < worlds * na; ++i) t[i] = targets[i % na];
    cr_assert_eq(iso_sim_set_state(c, ISO_STATE_TARGET_POSITION, iso_worlds_all(), t), ISO_OK);
    cr_assert_eq(iso_sim_set_state(g, ISO_STATE_TARGET_POSITION, iso_worlds_all(), t), ISO_OK);
    free(t);
  }
  for (int k = 0; k < steps; ++k) {
    cr_assert_eq(iso_sim_step(c), ISO_OK, "%s: %s", scene, iso_last_error());
    cr_assert_eq(iso_sim_step(g), ISO_OK, "%s: %s", scene, iso_last_error());
  }
  static const isoStateField fields[4] = {ISO_STATE_Q, ISO_STATE_V, ISO_STATE_VERTEX_POSITION,
                                          ISO_STATE_VERTEX_VELOCITY};
  static const char *names[4] = {"q", "v", "vertex positions", "vertex velocities"};
  for (int f = 0; f < 4; ++f) {
    const int n = worlds * iso_sim_state_width(c, fields[f]);
    if (n == 0) continue;
    double *a = malloc(sizeof(double) * (size_t)n), *b = malloc(sizeof(double) * (size_t)n);
    cr_assert(a && b);
    cr_assert_eq(iso_sim_get_state(c, fields[f], iso_worlds_all(), a), ISO_OK);
    cr_assert_eq(iso_sim_get_state(g, fields[f], iso_worlds_all(), b), ISO_OK);
    int first = -1;
    for (int i = 0; i < n && first < 0; ++i)
      if (!test_same_bits(a + i, b + i, 1)) first = i;
    cr_assert_eq(first, -1, "%s after %d steps: %s differ first at %d (cpu %.17g, cuda %.17g)", scene, steps,
                 names[f], first, first >= 0 ? a[first] : 0.0, first >= 0 ? b[first] : 0.0);
    free(a);
    free(b);
  }
  uint32_t *sc = calloc((size_t)worlds, sizeof *sc), *sg = calloc((size_t)worlds, sizeof *sg);
  cr_assert(sc && sg);
  cr_assert_eq(iso_sim_get_status(c, iso_worlds_all(), sc), ISO_OK);
  cr_assert_eq(iso_sim_get_status(g, iso_worlds_all(), sg), ISO_OK);
  for (int w = 0; w < worlds; ++w) cr_assert_eq(sc[w], sg[w], "%s world %d: status %#x on the CPU, %#x on CUDA", scene, w, sc[w], sg[w]);
  free(sc);
  free(sg);
  iso_sim_destroy(c);
  iso_sim_destroy(g);
  iso_model_destroy(m);
}

static void same_bits(const char *scene, int worlds, int steps) { same_bits_with(scene, worlds, steps, NULL); }

static void require_parity(void) {
  test_require_cuda_device();
  if (!test_cuda_exact())
    cr_skip_test("the CUDA module was built with FMA contraction (ISO_PARITY=OFF): it rounds otherwise");
}

Test(cuda_parity, rigid_scenes_step_to_the_cpus_bits) {
  require_parity();
  same_bits("examples/stack_of_five_boxes.sdf", 2, 40);
  same_bits("examples/coin_slide_spin.sdf", 2, 40);
  same_bits("examples/sphere_on_box.sdf", 2, 230); /* it touches the box from step ~200 */
  same_bits("examples/point_contact.sdf", 3, 100);
}

Test(cuda_parity, jointed_scenes_step_to_the_cpus_bits) {
  require_parity();
  same_bits("examples/pick.sdf", 2, 60);
  /* the gripper closed on the cube (lift, left, right): contacts on jointed bodies, their Hessian
   * summed per run through the fingers' spatial Jacobians */
  static const double grip[3] = {0.1, 0.04, 0.04};
  same_bits_with("examples/pick.sdf", 2, 60, grip);
  same_bits("examples/arm_pd.urdf", 2, 60);
  same_bits("examples/arch.sdf", 2, 10);
}

Test(cuda_parity, deformable_scenes_step_to_the_cpus_bits) {
  require_parity();
  same_bits("examples/soft_ball_floor.sdf", 2, 10);
  same_bits("examples/soft_pick.sdf", 2, 10);
}
