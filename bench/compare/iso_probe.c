/* iso_probe: what `isobar run` does not print, for the Drake comparison (bench/compare/).
 *
 * Loads a scene through the public API exactly as `isobar run` does (iso_scene_load, default sim
 * def, --initial-velocity applied to every world), steps it on the CPU backend and writes, for
 * world 0, one CSV row per recorded step and body:
 *
 *   step,time,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,tx,ty,tz,fx,fy,fz,status
 *
 * (body poses and velocities as `isobar run --record`, for jointed bodies too, then iso_sim_get_body_contact_wrench: torque about the body
 * origin and force, world frame, and the world's status bits), to --out FILE or stdout; then one
 * JSON line (on stdout with --out, else stderr): the status bits, the capacities an overflow
 * needed, the contact faces and constraints and the solver statistics of the last step.
 *
 * usage: iso_probe SCENE [--steps S] [--dt DT] [--every K] [--max-contacts N]
 *                  [--max-candidates N] [--initial-velocity BODY=vx,vy,vz,wx,wy,wz]... [--out FILE]
 *                  [--params FILE] [--faces-at K --faces-out FILE] [--joint-target JOINT=q[,v]]...
 *        iso_probe SCENE --time [--steps S] [--worlds N] [--threads T] [--warmup W] [capacities]
 *                  [--joint-target JOINT=q[,v]]...
 *
 * --faces-at K writes world 0's contact faces for the state after K steps (the surfaces step
 * K + 1 starts from) to --faces-out as CSV: gm,gn,nvert,area,cx,cy,cz,nx,ny,nz,p0,grad_m,grad_n.
 *
 * --max-contacts / --max-candidates / --max-deformable-contacts raise the per-world capacities
 * (isobar run's flags of the first two names; the defaults are automatic); nothing else differs
 * from isobar run.
 *
 * --params FILE writes what isobar read from the file, as JSON lines: each body's mass, centre of
 * mass and inertia, each geometry's compliance and contact material, each deformable body's
 * material and mesh sizes.
 *
 * --vertices FILE writes world 0's deformable vertices at every recorded step (--every) as CSV,
 * two rows per step: `step,p,x0,y0,z0,x1,...` (ISO_STATE_VERTEX_POSITION, every deformable body
 * in model order) and `step,v,...` (ISO_STATE_VERTEX_VELOCITY); `isobar run --record` keeps only
 * each body's mean, and the comparison with Drake wants every vertex.
 *
 * --joint-target JOINT=q[,v] sets the PD targets of the joint's actuator in every world before
 * the first step, held for the run (isobar run's flag of the same name; v defaults to 0).
 *
 * --time [--worlds N] [--threads T] [--warmup W] writes no CSV: it steps N worlds on T threads,
 * W steps untimed (the first steps also pay for first-touch page faults of the sim's buffers,
 * and they let a window start in the phase of the motion that matters), then S timed steps, and
 * prints one JSON line as isobar run's (worlds, steps, threads, wall_s, faulted_worlds). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isobar/isobar.h>
#include <isobar/scene.h>

static int die(const char *what, isoStatus st) {
  fprintf(stderr, "iso_probe: %s: %s (%s)\n", what, iso_last_error(), iso_status_string(st));
  return 1;
}

/* The model's bodies and geometries as JSON lines (what the loader read). */
static int write_params(const isoModel *m, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  for (int b = 0; b < iso_model_body_count(m); ++b) {
    isoBodyDef d;
    iso_model_get_body(m, b, &d);
    fprintf(f, "{\"body\": \"%s\", \"mass\": %.17g, \"com\": [%.17g, %.17g, %.17g], "
               "\"inertia\": [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]}\n",
            d.name, d.mass, d.com[0], d.com[1], d.com[2], d.inertia[0], d.inertia[1], d.inertia[2], d.inertia[3],
            d.inertia[4], d.inertia[5]);
  }
  static const char *comp[] = {"undefined", "rigid", "compliant"};
  for (int g = 0; g < iso_model_geometry_count(m); ++g) {
    isoGeometryDef d;
    iso_model_get_geometry(m, g, &d);
    fprintf(f, "{\"geometry\": \"%s\", \"compliance\": \"%s\", \"E\": %.17g, \"d\": %.17g, \"tau\": %.17g, "
               "\"mu\": [%.17g, %.17g], \"k\": %.17g}\n",
            d.name, comp[d.compliance], d.hydroelastic_modulus, d.hunt_crossley_dissipation, d.relaxation_time,
            d.mu_static, d.mu_dynamic, d.point_stiffness);
  }
  for (int k = 0; k < iso_model_deformable_count(m); ++k) {
    isoDeformableDef d;
    iso_model_get_deformable(m, k, &d);
    fprintf(f, "{\"deformable\": \"%s\", \"E\": %.17g, \"nu\": %.17g, \"rho\": %.17g, \"alpha\": %.17g, "
               "\"beta\": %.17g, \"material\": %d, \"nvert\": %d, \"ntet\": %d}\n",
            d.name, d.youngs_modulus, d.poissons_ratio, d.mass_density, d.mass_damping, d.stiffness_damping,
            (int)d.material, d.nvert, d.ntet);
  }
  fclose(f);
  return 0;
}

/* --joint-target JOINT=q[,v]: the PD targets of the joint's actuator, the same in every world.
 * 0, or 1 with the reason on stderr (a bad value, an unknown joint, no PD actuator). */
static int set_joint_target(const isoModel *m, isoSim *sim, const char *arg) {
  const char *eq = strrchr(arg, '=');
  double x[2] = {0, 0};
  char name[256];
  int nx = eq ? sscanf(eq + 1, "%lf,%lf", &x[0], &x[1]) : 0;
  if (!eq || nx < 1 || (size_t)(eq - arg) >= sizeof name) {
    fprintf(stderr, "iso_probe: --joint-target expects JOINT=q[,v], got '%s'\n", arg);
    return 1;
  }
  memcpy(name, arg, (size_t)(eq - arg));
  name[eq - arg] = '\0';
  int j, act = -1;
  isoStatus st = iso_scene_find_joint(m, name, &j);
  if (st != ISO_OK) return die("--joint-target", st);
  isoActuatorDef ad;
  for (int a = 0; a < iso_model_actuator_count(m) && act < 0; ++a)
    if (iso_model_get_actuator(m, a, &ad) == ISO_OK && ad.joint == j && (ad.kp > 0 || ad.kd > 0)) act = a;
  if (act < 0) {
    fprintf(stderr, "iso_probe: --joint-target %s: the joint has no PD actuator\n", name);
    return 1;
  }
  const int nw = iso_sim_world_count(sim), na = iso_sim_state_width(sim, ISO_STATE_TARGET_POSITION);
  double *buf = malloc(sizeof(double) * ((size_t)nw * (size_t)na + 1));
  if (!buf) return 1;
  for (int k = 0; k < 2 && st == ISO_OK; ++k) {
    const isoStateField fld = k ? ISO_STATE_TARGET_VELOCITY : ISO_STATE_TARGET_POSITION;
    st = iso_sim_get_state(sim, fld, iso_worlds_all(), buf);
    for (int w = 0; w < nw && st == ISO_OK; ++w) buf[(size_t)w * (size_t)na + (size_t)act] = x[k];
    if (st == ISO_OK) st = iso_sim_set_state(sim, fld, iso_worlds_all(), buf);
  }
  free(buf);
  return st == ISO_OK ? 0 : die("--joint-target", st);
}

/* World 0's contact faces for the current state, one CSV row each. */
static int write_faces(isoSim *sim, const char *path) {
  isoStatus st = iso_sim_update_contact(sim);
  int n = 0;
  if (st == ISO_OK) st = iso_sim_contact_face_count(sim, 0, &n);
  isoContactFace *fc = malloc(sizeof *fc * ((size_t)n + 1));
  if (st == ISO_OK && fc) st = iso_sim_get_contact_faces(sim, 0, fc, n, &n);
  FILE *f = fopen(path, "w");
  if (st != ISO_OK || !fc || !f) {
    fprintf(stderr, "iso_probe: --faces-out %s: %s\n", path, st != ISO_OK ? iso_last_error() : "cannot write");
    free(fc);
    if (f) fclose(f);
    return 1;
  }
  fprintf(f, "gm,gn,nvert,area,cx,cy,cz,nx,ny,nz,p0,grad_m,grad_n\n");
  for (int i = 0; i < n; ++i)
    fprintf(f, "%d,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", fc[i].geometry_m,
            fc[i].geometry_n, fc[i].nvert, fc[i].area, fc[i].centroid[0], fc[i].centroid[1], fc[i].centroid[2],
            fc[i].normal[0], fc[i].normal[1], fc[i].normal[2], fc[i].pressure, fc[i].grad_m, fc[i].grad_n);
  fclose(f);
  free(fc);
  return 0;
}

int main(int argc, char **argv) {
  const char *scene = NULL, *out_path = NULL, *faces_path = NULL, *params_path = NULL, *vert_path = NULL;
  long long faces_at = -1;
  int worlds = 1, threads = 1, timing = 0;
  long long warmup = 0;
  long long steps = 1000, every = 1;
  double dt = 0;
  int max_contacts = 0, max_candidates = 0, max_def = 0;
  const char *iv[16], *jt[16];
  int niv = 0, njt = 0;
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--steps") && val) steps = atoll(argv[++i]);
    else if (!strcmp(o, "--dt") && val) dt = atof(argv[++i]);
    else if (!strcmp(o, "--every") && val) every = atoll(argv[++i]);
    else if (!strcmp(o, "--max-contacts") && val) max_contacts = atoi(argv[++i]);
    else if (!strcmp(o, "--max-candidates") && val) max_candidates = atoi(argv[++i]);
    else if (!strcmp(o, "--max-deformable-contacts") && val) max_def = atoi(argv[++i]);
    else if (!strcmp(o, "--out") && val) out_path = argv[++i];
    else if (!strcmp(o, "--faces-at") && val) faces_at = atoll(argv[++i]);
    else if (!strcmp(o, "--faces-out") && val) faces_path = argv[++i];
    else if (!strcmp(o, "--worlds") && val) worlds = atoi(argv[++i]);
    else if (!strcmp(o, "--threads") && val) threads = atoi(argv[++i]);
    else if (!strcmp(o, "--time")) timing = 1;
    else if (!strcmp(o, "--warmup") && val) warmup = atoll(argv[++i]);
    else if (!strcmp(o, "--params") && val) params_path = argv[++i];
    else if (!strcmp(o, "--vertices") && val) vert_path = argv[++i];
    else if (!strcmp(o, "--initial-velocity") && val && niv < 16) iv[niv++] = argv[++i];
    else if (!strcmp(o, "--joint-target") && val && njt < 16) jt[njt++] = argv[++i];
    else if (o[0] != '-' && !scene) scene = o;
    else {
      fprintf(stderr, "iso_probe: bad argument '%s' (see the comment at the top of iso_probe.c)\n", o);
      return 2;
    }
  }
  if (!scene || every < 1 || worlds < 1 || threads < 1) {
    fprintf(stderr, "usage: iso_probe SCENE [--steps S] [--dt DT] [--every K] [--max-contacts N] "
                    "[--max-candidates N] [--initial-velocity BODY=vx,vy,vz,wx,wy,wz]... [--out FILE] "
                    "[--params FILE] [--vertices FILE] [--faces-at K --faces-out FILE] "
                    "[--joint-target JOINT=q[,v]]... [--time [--worlds N] [--threads T] [--warmup W]]\n");
    return 2;
  }

  isoLoadOptions lo = iso_default_load_options();
  lo.time_step = dt;
  isoModel *model = NULL;
  isoStatus st = iso_scene_load(scene, &lo, &model, NULL);
  if (st != ISO_OK) return die("loading the scene", st);
  if (params_path && write_params(model, params_path) != 0) {
    fprintf(stderr, "iso_probe: cannot write %s\n", params_path);
    return 1;
  }
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  sd.worlds = worlds;
  if (max_contacts > 0) sd.capacity.max_contacts = max_contacts;
  if (max_candidates > 0) sd.capacity.max_candidates = max_candidates;
  if (max_def > 0) sd.capacity.max_deformable_contacts = max_def;
  isoSim *sim = NULL;
  if ((st = iso_sim_create(model, &sd, &sim)) != ISO_OK) return die("creating the sim", st);

  int nb = iso_sim_body_count(sim), nv = iso_sim_state_width(sim, ISO_STATE_V);
  double *q = malloc(sizeof(double) * (7 * (size_t)nb + 1));
  double *v = malloc(sizeof(double) * ((size_t)(nv > 6 * nb ? nv : 6 * nb) * (size_t)worlds + 1));
  if (!q || !v) return 1;
  iso_sim_get_state(sim, ISO_STATE_V, iso_worlds_all(), v);
  for (int k = 0; k < niv; ++k) {
    const char *eq = strrchr(iv[k], '=');
    double x[6];
    char name[256];
    if (!eq || (size_t)(eq - iv[k]) >= sizeof name ||
        sscanf(eq + 1, "%lf,%lf,%lf,%lf,%lf,%lf", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5]) != 6) {
      fprintf(stderr, "iso_probe: --initial-velocity expects BODY=vx,vy,vz,wx,wy,wz\n");
      return 2;
    }
    memcpy(name, iv[k], (size_t)(eq - iv[k]));
    name[eq - iv[k]] = '\0';
    int b;
    isoSlice qs, vs;
    if ((st = iso_scene_find_body(model, name, &b)) != ISO_OK) return die("--initial-velocity", st);
    if ((st = iso_model_body_slice(model, b, &qs, &vs)) != ISO_OK) return die("--initial-velocity", st);
    /* A free body's v is [w, v] in the world frame; the option gives v then w, as isobar run's. */
    for (int w = 0; w < worlds; ++w) {
      memcpy(v + (size_t)w * nv + vs.start, x + 3, 3 * sizeof(double));
      memcpy(v + (size_t)w * nv + vs.start + 3, x, 3 * sizeof(double));
    }
  }
  if ((st = iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_all(), v)) != ISO_OK) return die("setting v", st);
  for (int k = 0; k < njt; ++k)
    if (set_joint_target(model, sim, jt[k]) != 0) return 1;

  if (timing) {
    for (long long k = 0; k < warmup; ++k)
      if ((st = iso_sim_step(sim)) != ISO_OK) return die("stepping", st);
    double t_probe;
    iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t_probe);
    double t0 = omp_get_wtime();
    for (long long k = 0; k < steps; ++k)
      if ((st = iso_sim_step(sim)) != ISO_OK) return die("stepping", st);
    iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t_probe); /* waits for the device */
    double wall = omp_get_wtime() - t0;
    uint32_t *bits = calloc((size_t)worlds, sizeof *bits);
    int faulted = 0;
    if (bits && iso_sim_get_status(sim, iso_worlds_all(), bits) == ISO_OK)
      for (int w = 0; w < worlds; ++w) faulted += bits[w] != 0;
    printf("{\"worlds\": %d, \"warmup\": %lld, \"steps\": %lld, \"threads\": %d, \"wall_s\": %.6f, "
           "\"faulted_worlds\": %d, \"max_contacts\": %d, \"max_candidates\": %d}\n",
           worlds, warmup, steps, iso_sim_threads(sim), wall, faulted, sd.capacity.max_contacts, sd.capacity.max_candidates);
    free(bits);
    free(q);
    free(v);
    iso_sim_destroy(sim);
    iso_model_destroy(model);
    return 0;
  }

  FILE *f = out_path ? fopen(out_path, "w") : stdout;
  if (!f) {
    perror(out_path);
    return 1;
  }
  fprintf(f, "step,time,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,tx,ty,tz,fx,fy,fz,status\n");
  const int n3 = iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION);
  double *xv = malloc(sizeof(double) * ((size_t)n3 + 1));
  FILE *fv = vert_path ? fopen(vert_path, "w") : NULL;
  if (vert_path && (!fv || !xv)) {
    perror(vert_path);
    return 1;
  }
  for (long long s = 0; s <= steps; ++s) {
    if (s > 0 && (st = iso_sim_step(sim)) != ISO_OK) return die("stepping", st);
    if (s == faces_at && faces_path && write_faces(sim, faces_path) != 0) return 1;
    if (s % every && s != steps) continue;
    double t;
    uint32_t bits = 0;
    iso_sim_get_body_poses(sim, iso_worlds_one(0), q); /* px py pz qw qx qy qz per body */
    iso_sim_get_body_velocities(sim, iso_worlds_one(0), v); /* wx wy wz vx vy vz per body */
    iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t);
    iso_sim_get_status(sim, iso_worlds_one(0), &bits);
    for (int kind = 0; fv && kind < 2; ++kind) {
      iso_sim_get_state(sim, kind ? ISO_STATE_VERTEX_VELOCITY : ISO_STATE_VERTEX_POSITION, iso_worlds_one(0), xv);
      fprintf(fv, "%lld,%c", s, kind ? 'v' : 'p');
      for (int i = 0; i < n3; ++i) fprintf(fv, ",%.17g", xv[i]);
      fputc('\n', fv);
    }
    for (int b = 0; b < nb; ++b) {
      isoBodyDef bd;
      double w[6] = {0, 0, 0, 0, 0, 0};
      iso_model_get_body(model, b, &bd);
      if (s > 0) iso_sim_get_body_contact_wrench(sim, 0, b, w);
      const double *qb = q + 7 * b, *vb = v + 6 * b;
      fprintf(f, "%lld,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", s, t,
              bd.name, qb[0], qb[1], qb[2], qb[3], qb[4], qb[5], qb[6], vb[3], vb[4], vb[5], vb[0], vb[1], vb[2]);
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%u\n", w[0], w[1], w[2], w[3], w[4], w[5], bits);
    }
  }
  if (f != stdout) fclose(f);
  if (fv) fclose(fv);
  free(xv);
  f = out_path ? stdout : stderr;

  uint32_t bits = 0;
  int nc = 0, nf = 0, need_cand = 0, need_faces = 0, need_cons = 0;
  isoSolverStats ss;
  memset(&ss, 0, sizeof ss);
  iso_sim_get_status(sim, iso_worlds_one(0), &bits);
  iso_sim_get_overflow(sim, 0, &need_cand, &need_faces, &need_cons);
  iso_sim_contact_count(sim, 0, &nc);
  iso_sim_contact_face_count(sim, 0, &nf);
  iso_sim_get_solver_stats(sim, 0, &ss);
  double area = 0;
  isoContactFace *fc = malloc(sizeof *fc * ((size_t)nf + 1));
  if (fc && iso_sim_get_contact_faces(sim, 0, fc, nf, &nf) == ISO_OK)
    for (int i = 0; i < nf; ++i) area += fc[i].area;
  free(fc);
  /* The summary goes to stdout when the rows went to a file (--out), else to stderr. */
  fprintf(f,
          "{\"status\": %u, \"needed_candidates\": %d, \"needed_faces\": %d, \"needed_constraints\": %d, \"max_candidates\": %d, "
          "\"max_contacts\": %d, \"constraints\": %d, \"faces\": %d, \"area\": %.17g, \"newton_iterations\": %d, "
          "\"converged\": %d}\n",
          bits, need_cand, need_faces, need_cons, sd.capacity.max_candidates, sd.capacity.max_contacts, nc, nf, area, ss.iterations, ss.converged);
  free(q);
  free(v);
  iso_sim_destroy(sim);
  iso_model_destroy(model);
  return 0;
}
