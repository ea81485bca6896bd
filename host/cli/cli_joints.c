/* isobar run's joint flags: --joint-position, --joint-target and --effort, parsed (usage errors)
 * and applied to every world of a sim (errors naming the flag and the joint). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "isobar/isobar.h"
#include "isobar/scene.h"

int cli_parse_joint_arg(const char *flag, const char *s, int max_values, cliJointArg *out) {
  memset(out, 0, sizeof *out);
  out->flag = flag;
  const char *eq = s ? strrchr(s, '=') : NULL;
  if (!eq || eq == s || eq[1] == '\0') {
    fprintf(stderr, "isobar run: %s expects JOINT=value[,value...], got '%s'\n", flag, s ? s : "");
    return 0;
  }
  size_t n = (size_t)(eq - s);
  out->joint = (char *)malloc(n + 1);
  if (!out->joint) return 0;
  memcpy(out->joint, s, n);
  out->joint[n] = '\0';
  for (const char *p = eq + 1;; ++p) {
    if (out->n == max_values) {
      fprintf(stderr, "isobar run: %s '%s': joint '%s' takes at most %d value%s\n", flag, s, out->joint, max_values,
              max_values == 1 ? "" : "s");
      return 0;
    }
    char *end = NULL;
    double x = strtod(p, &end);
    if (end == p || (*end != ',' && *end != '\0')) {
      fprintf(stderr, "isobar run: %s '%s': joint '%s': value %d is not a number\n", flag, s, out->joint, out->n + 1);
      return 0;
    }
    if (!isfinite(x)) {
      fprintf(stderr, "isobar run: %s '%s': joint '%s': value %d is not finite\n", flag, s, out->joint, out->n + 1);
      return 0;
    }
    out->x[out->n++] = x;
    p = end;
    if (*p == '\0') break;
  }
  return 1;
}

void cli_joint_args_free(cliJointArg *a, int n) {
  for (int i = 0; i < n; ++i) free(a[i].joint);
  free(a);
}

/* The joint a flag names, with its definition; prints why on failure. */
static int find_joint(const isoModel *m, const cliJointArg *a, int *j, isoJointDef *jd) {
  isoStatus st = iso_scene_find_joint(m, a->joint, j);
  if (st == ISO_OK) st = iso_model_get_joint(m, *j, jd);
  if (st != ISO_OK) {
    fprintf(stderr, "isobar run: %s %s: %s (%s)\n", a->flag, a->joint, iso_last_error(), iso_status_string(st));
    return 0;
  }
  return 1;
}

/* The actuator of joint j, or -1. */
static int joint_actuator(const isoModel *m, int j, isoActuatorDef *ad) {
  for (int a = 0; a < iso_model_actuator_count(m); ++a)
    if (iso_model_get_actuator(m, a, ad) == ISO_OK && ad->joint == j) return a;
  return -1;
}

/* Set `count` values starting at `start` of every world's `field` (all worlds alike). */
static int set_all_worlds(isoSim *sim, isoStateField field, int start, const double *x, int count, const char *flag,
                          const char *joint) {
  const int nw = iso_sim_world_count(sim), width = iso_sim_state_width(sim, field);
  double *buf = (double *)malloc(sizeof(double) * ((size_t)nw * (size_t)width + 1));
  if (!buf) return 0;
  isoStatus st = iso_sim_get_state(sim, field, iso_worlds_all(), buf);
  for (int w = 0; w < nw && st == ISO_OK; ++w) memcpy(buf + (size_t)w * (size_t)width + start, x, sizeof(double) * (size_t)count);
  if (st == ISO_OK) st = iso_sim_set_state(sim, field, iso_worlds_all(), buf);
  free(buf);
  if (st != ISO_OK)
    fprintf(stderr, "isobar run: %s %s: %s (%s)\n", flag, joint, iso_last_error(), iso_status_string(st));
  return st == ISO_OK;
}

static int apply_position(const isoModel *m, isoSim *sim, const cliJointArg *a) {
  int j;
  isoJointDef jd;
  isoSlice qs, vs;
  if (!find_joint(m, a, &j, &jd)) return 0;
  if (iso_model_joint_slice(m, j, &qs, &vs) != ISO_OK) return 0;
  if (a->n != qs.count) {
    fprintf(stderr, "isobar run: %s %s: joint '%s' (%s) has %d position%s, got %d value%s\n", a->flag, a->joint, jd.name,
            iso_joint_type_name(jd.type), qs.count, qs.count == 1 ? "" : "s", a->n, a->n == 1 ? "" : "s");
    return 0;
  }
  return set_all_worlds(sim, ISO_STATE_Q, qs.start, a->x, a->n, a->flag, a->joint);
}

/* --joint-target (pd = 1) and --effort (pd = 0). */
static int apply_actuator(const isoModel *m, isoSim *sim, const cliJointArg *a, int pd) {
  int j;
  isoJointDef jd;
  isoActuatorDef ad;
  if (!find_joint(m, a, &j, &jd)) return 0;
  const int act = joint_actuator(m, j, &ad);
  if (act < 0) {
    fprintf(stderr, "isobar run: %s %s: joint '%s' has no actuator (SDFormat: <effort>0</effort> means none; URDF: "
            "a joint needs a <transmission>)\n", a->flag, a->joint, jd.name);
    return 0;
  }
  if (pd && !(ad.kp > 0 || ad.kd > 0)) {
    fprintf(stderr, "isobar run: %s %s: the actuator of joint '%s' has no PD gains (drake:controller_gains), so a "
            "target would do nothing; use --effort\n", a->flag, a->joint, jd.name);
    return 0;
  }
  const int most = pd ? 2 : 1;
  if (a->n > most) {
    fprintf(stderr, "isobar run: %s %s: joint '%s' takes %s, got %d values\n", a->flag, a->joint, jd.name,
            pd ? "a position and optionally a velocity" : "one effort", a->n);
    return 0;
  }
  if (!pd) return set_all_worlds(sim, ISO_STATE_EFFORT, act, a->x, 1, a->flag, a->joint);
  const double vd = a->n > 1 ? a->x[1] : 0;
  return set_all_worlds(sim, ISO_STATE_TARGET_POSITION, act, a->x, 1, a->flag, a->joint) &&
         set_all_worlds(sim, ISO_STATE_TARGET_VELOCITY, act, &vd, 1, a->flag, a->joint);
}

int cli_apply_joint_args(const isoModel *m, isoSim *sim, const cliJointArg *a, int n) {
  for (int i = 0; i < n; ++i) {
    int ok;
    if (strcmp(a[i].flag, "--joint-position") == 0) ok = apply_position(m, sim, &a[i]);
    else ok = apply_actuator(m, sim, &a[i], strcmp(a[i].flag, "--joint-target") == 0);
    if (!ok) return 0;
  }
  return 1;
}
