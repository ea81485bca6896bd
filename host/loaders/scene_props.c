/* Scene files: Drake's <drake:proximity_properties>, read as Drake's parser reads them
 * (multibody/parsing/detail_common.cc ParseProximityProperties; reference §7.2) for SDFormat
 * (value as element text) and URDF (value in a `value` attribute). Values are checked here so
 * the message can name the line; the model builder checks them again. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_props.h"
#include "host/loaders/scene_report.h"

isoStatus scene_check_friction(const sceneFile *f, xmlNode *n, double mu_static, double mu_dynamic) {
  if (mu_static < 0 || mu_dynamic < 0)
    return scene_fail(f, n, ISO_ERR_INVALID, "friction coefficients must be >= 0 (static %g, dynamic %g)",
                      mu_static, mu_dynamic);
  if (mu_dynamic > mu_static)
    return scene_fail(f, n, ISO_ERR_INVALID,
                      "dynamic friction %g exceeds static friction %g (Drake's CoulombFriction "
                      "rejects that too)", mu_dynamic, mu_static);
  return ISO_OK;
}

/* The numeric tags and the field each one sets. */
typedef enum { T_HINT, T_MODULUS, T_MARGIN, T_DISSIPATION, T_RELAXATION, T_STIFFNESS, T_MU_D, T_MU_S, T_SLAB, T_N } tagKind;

static const char *const tag_names[T_N] = {
    "drake:mesh_resolution_hint", "drake:hydroelastic_modulus", "drake:hydroelastic_margin",
    "drake:hunt_crossley_dissipation", "drake:relaxation_time", "drake:point_contact_stiffness",
    "drake:mu_dynamic", "drake:mu_static", "drake:slab_thickness"};

/* > 0 (1) or >= 0 (0) for each tag. */
static const int tag_positive[T_N] = {1, 1, 0, 0, 0, 1, 0, 0, 1};

static int tag_of(xmlNode *n) {
  for (int t = 0; t < T_N; ++t)
    if (scene_is(n, tag_names[t])) return t;
  return -1;
}

static isoStatus read_value(sceneCtx *c, const sceneFile *f, xmlNode *k, int urdf, double *out) {
  char qb[128];
  const char *qn = scene_qname(k, qb, (int)sizeof qb);
  isoStatus st;
  if (urdf) {
    static const char *const attrs[] = {"value", NULL};
    if ((st = scene_check(c, f, k, NULL, attrs)) != ISO_OK) return st;
    char *v = scene_attr(&c->mem, k, "value");
    if (!v) return scene_fail(f, k, ISO_ERR_PARSE, "needs a 'value' attribute (URDF puts drake: values there)");
    return scene_numbers(f, k, qn, v, 1, out);
  }
  if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
  return scene_text_numbers(&c->mem, f, k, 1, out);
}

isoStatus scene_proximity(sceneCtx *c, const sceneFile *f, xmlNode *props, int urdf, isoGeometryDef *g,
                          sceneProx *given) {
  static const char *const known[] = {
      "drake:rigid_hydroelastic", "drake:compliant_hydroelastic", "drake:soft_hydroelastic",
      "drake:mesh_resolution_hint", "drake:hydroelastic_modulus", "drake:hydroelastic_margin",
      "drake:hunt_crossley_dissipation", "drake:relaxation_time", "drake:point_contact_stiffness",
      "drake:mu_dynamic", "drake:mu_static", "drake:slab_thickness", NULL};
  isoStatus st = scene_check(c, f, props, known, NULL);
  if (st != ISO_OK) return st;
  xmlNode *rigid = NULL, *compliant = NULL, *seen[T_N] = {NULL};
  double val[T_N] = {0};
  for (xmlNode *k = props->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    if (scene_is(k, "drake:soft_hydroelastic"))
      return scene_fail(f, k, ISO_ERR_UNSUPPORTED,
                        "<drake:soft_hydroelastic> is no longer supported (Drake rejects it too); "
                        "use <drake:compliant_hydroelastic>");
    if (scene_is(k, "drake:rigid_hydroelastic") || scene_is(k, "drake:compliant_hydroelastic")) {
      if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
      if (scene_is(k, "drake:rigid_hydroelastic")) rigid = rigid ? rigid : k;
      else compliant = compliant ? compliant : k;
      continue;
    }
    int t = tag_of(k);
    if (t < 0) continue; /* reported by scene_check */
    if (seen[t]) {
      /* Drake reads the first occurrence of a tag. */
      if ((st = scene_ignore(c, f, k, "repeated; the first one is used")) != ISO_OK) return st;
      continue;
    }
    if ((st = read_value(c, f, k, urdf, &val[t])) != ISO_OK) return st;
    if (tag_positive[t] ? !(val[t] > 0) : !(val[t] >= 0))
      return scene_fail(f, k, ISO_ERR_INVALID, "%g must be %s", val[t], tag_positive[t] ? "> 0" : ">= 0");
    seen[t] = k;
  }
  if (rigid && compliant)
    return scene_fail(f, props, ISO_ERR_PARSE,
                      "<drake:rigid_hydroelastic> (line %d) and <drake:compliant_hydroelastic> (line %d) "
                      "exclude each other; give one", scene_line(rigid), scene_line(compliant));
  g->compliance = rigid ? ISO_COMPLIANCE_RIGID : compliant ? ISO_COMPLIANCE_COMPLIANT : ISO_COMPLIANCE_UNDEFINED;
  if (seen[T_HINT]) g->resolution_hint = val[T_HINT];
  if (seen[T_MODULUS]) {
    if (rigid) {
      if ((st = scene_ignore(c, f, seen[T_MODULUS], "a rigid geometry has no modulus; Drake ignores it too")) != ISO_OK)
        return st;
    } else {
      g->hydroelastic_modulus = val[T_MODULUS];
      g->legacy_given |= ISO_LEGACY_MODULUS;
      given->modulus = seen[T_MODULUS];
    }
  }
  if (seen[T_MARGIN]) g->margin = val[T_MARGIN];
  if (seen[T_DISSIPATION]) {
    g->hunt_crossley_dissipation = val[T_DISSIPATION];
    g->legacy_given |= ISO_LEGACY_DISSIPATION;
    given->dissipation = seen[T_DISSIPATION];
  }
  if (seen[T_RELAXATION]) g->relaxation_time = val[T_RELAXATION];
  if (seen[T_STIFFNESS]) g->point_stiffness = val[T_STIFFNESS];
  if (seen[T_SLAB]) g->slab_thickness = val[T_SLAB];
  given->friction = seen[T_MU_D] ? seen[T_MU_D] : seen[T_MU_S];
  if (given->friction) g->legacy_given |= ISO_LEGACY_FRICTION;
  if (seen[T_MU_D] && seen[T_MU_S]) {
    g->mu_static = val[T_MU_S];
    g->mu_dynamic = val[T_MU_D];
    if ((st = scene_check_friction(f, seen[T_MU_D], g->mu_static, g->mu_dynamic)) != ISO_OK) return st;
  } else if (seen[T_MU_D]) {
    g->mu_static = g->mu_dynamic = val[T_MU_D];
  } else if (seen[T_MU_S]) {
    g->mu_static = g->mu_dynamic = val[T_MU_S];
  }
  return ISO_OK;
}

/* ---- seed 004's <drake_compliance> ------------------------------------------------------------ */

/* Why a <drake_compliance> value loses to drake: tag `t`. */
static isoStatus overridden(sceneCtx *c, const sceneFile *f, xmlNode *k, xmlNode *t) {
  char qb[128], why[400];
  snprintf(why, sizeof why,
           "<%s> at line %d sets the same value and wins: the drake: proximity tags are the current "
           "form, and Drake's parser too takes them over <drake_compliance>",
           scene_qname(t, qb, (int)sizeof qb), scene_line(t));
  return scene_ignore(c, f, k, why);
}

static isoStatus compliance_value(sceneCtx *c, const sceneFile *f, xmlNode *k, double *out) {
  isoStatus st = scene_check(c, f, k, NULL, NULL);
  if (st != ISO_OK) return st;
  return scene_text_numbers(&c->mem, f, k, 1, out);
}

isoStatus scene_drake_compliance(sceneCtx *c, const sceneFile *f, xmlNode *n, const sceneProx *given,
                                 isoGeometryDef *g) {
  static const char *const e[] = {"youngs_modulus", "dissipation", "static_friction", "dynamic_friction", NULL};
  isoStatus st = scene_check(c, f, n, e, NULL);
  if (st != ISO_OK) return st;
  xmlNode *ym = scene_child(n, "youngs_modulus"), *dn = scene_child(n, "dissipation");
  xmlNode *sn = scene_child(n, "static_friction"), *kn = scene_child(n, "dynamic_friction");
  double E = 0, d = 0, mu_s = 0, mu_d = 0;
  /* every value is read and checked, used or not */
  if (ym) {
    if ((st = compliance_value(c, f, ym, &E)) != ISO_OK) return st;
    if (!(E > 0) || !isfinite(E)) return scene_fail(f, ym, ISO_ERR_INVALID, "Young's modulus %g must be finite and > 0", E);
  }
  if (dn) {
    if ((st = compliance_value(c, f, dn, &d)) != ISO_OK) return st;
    if (!(d >= 0) || !isfinite(d)) return scene_fail(f, dn, ISO_ERR_INVALID, "dissipation %g must be finite and >= 0", d);
  }
  if (sn && (st = compliance_value(c, f, sn, &mu_s)) != ISO_OK) return st;
  if (kn && (st = compliance_value(c, f, kn, &mu_d)) != ISO_OK) return st;
  if (sn && !kn)
    return scene_fail(f, sn, ISO_ERR_PARSE,
                      "static friction %g without <dynamic_friction>: the frictions come as a pair or not at all", mu_s);
  if (kn && !sn)
    return scene_fail(f, kn, ISO_ERR_PARSE,
                      "dynamic friction %g without <static_friction>: the frictions come as a pair or not at all", mu_d);
  if (sn && (st = scene_check_friction(f, kn, mu_s, mu_d)) != ISO_OK) return st;

  if (ym) {
    if (given->modulus) {
      if ((st = overridden(c, f, ym, given->modulus)) != ISO_OK) return st;
    } else if (g->compliance == ISO_COMPLIANCE_COMPLIANT) {
      if ((st = scene_ignore(c, f, ym,
                             "a compliant hydroelastic geometry's modulus is its pressure field's: "
                             "give it with <drake:hydroelastic_modulus>")) != ISO_OK)
        return st;
    } else {
      g->hydroelastic_modulus = E;
      g->legacy_given |= ISO_LEGACY_MODULUS;
    }
  }
  if (dn) {
    if (given->dissipation) {
      if ((st = overridden(c, f, dn, given->dissipation)) != ISO_OK) return st;
    } else {
      g->hunt_crossley_dissipation = d;
      g->legacy_given |= ISO_LEGACY_DISSIPATION;
    }
  }
  if (sn) {
    if (given->friction) {
      if ((st = overridden(c, f, sn, given->friction)) != ISO_OK) return st;
      if ((st = overridden(c, f, kn, given->friction)) != ISO_OK) return st;
    } else {
      g->mu_static = mu_s;
      g->mu_dynamic = mu_d;
      g->legacy_given |= ISO_LEGACY_FRICTION;
    }
  }
  return ISO_OK;
}
