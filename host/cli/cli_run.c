/* isobar run: load a scene file (SDFormat or URDF), step it in N worlds, optionally record every
 * state to CSV and the contact surfaces to VTK, and end with one JSON line on stdout. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host/base/error.h"
#include "host/output/record_csv.h"
#include "host/output/record_joints.h"
#include "isobar/isobar.h"
#include "isobar/scene.h"

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: isobar run SCENE [--worlds N] [--steps S] [--dt DT] [--backend cpu|cuda|auto]\n"
          "                  [--threads T] [--strict] [--initial-velocity BODY=vx,vy,vz,wx,wy,wz]...\n"
          "                  [--joint-position JOINT=q[,q...]]... [--joint-target JOINT=q[,v]]...\n"
          "                  [--effort JOINT=u]... [--record FILE.csv] [--record-joints FILE.csv]\n"
          "                  [--surfaces FILE.vtk] [--max-contacts N]\n"
          "                  [--point-model drake|legacy] [--characteristic-radius R]\n"
          "                  [--max-candidates N] [--max-deformable-contacts N] [--package-path LIST]\n"
          "                  [--quiet]\n"
          "\n"
          "Loads SCENE (.sdf or .world: SDFormat; .urdf: URDF; with Drake's drake: proximity tags),\n"
          "steps N copies of it for S steps and prints, as the last line, one JSON object: scene,\n"
          "worlds, bodies, geometries, steps, dt, backend, threads, wall_s, world_steps_per_s,\n"
          "contact_faces, contact_points, faulted_worlds, report_lines, state_hash (a hash of the final\n"
          "state of every world, equal across thread counts and machines with the same build),\n"
          "bytes_per_world (backend memory per world, see iso_sim_memory_per_world). Elements of\n"
          "the file that isobar does not use are listed on stderr.\n"
          "\n"
          "  --worlds N     number of worlds (default 1)\n"
          "  --steps S      steps to take; 0 steps nothing (default 1000)\n"
          "  --dt DT        time step in seconds (default: the scene's, else 0.001)\n"
          "  --backend K    cpu, cuda or auto (default auto)\n"
          "  --threads T    CPU threads (default: OpenMP's default)\n"
          "  --strict       reject the scene if it holds anything isobar would ignore\n"
          "  --package-path LIST  where package:// and model:// uris find packages: colon-separated\n"
          "                 name=dir entries and folders to search for package.xml files (also read:\n"
          "                 the folders above the file, and ISOBAR_PACKAGE_PATH)\n"
          "  --initial-velocity BODY=vx,vy,vz,wx,wy,wz\n"
          "                 start BODY (its link name, or model::link) in every world with this\n"
          "                 linear and angular velocity, world frame, m/s and rad/s (repeatable; a\n"
          "                 free body only: a jointed body moves with its joints)\n"
          "  --joint-position JOINT=q[,q...]\n"
          "                 start JOINT (its name, or model::joint) in every world at these positions:\n"
          "                 as many as the joint has (revolute, prismatic: 1, rad or m; ball: a\n"
          "                 quaternion w,x,y,z; floating: w,x,y,z,px,py,pz) (repeatable)\n"
          "  --joint-target JOINT=q[,v]\n"
          "                 hold the PD targets of JOINT's actuator (which needs drake:controller_gains)\n"
          "                 at position q and velocity v (default 0) for the whole run (repeatable)\n"
          "  --effort JOINT=u  apply effort u (N m or N) with JOINT's actuator at every step, within\n"
          "                 its effort limit; for a PD actuator, its feed-forward term (repeatable)\n"
          "  --record FILE  write every world's bodies at every step, step 0 included, as CSV:\n"
          "                 step,time,world,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n"
          "                 (each body frame's pose and velocity in the world frame; a deformable\n"
          "                 body's row: the mean of its vertex positions and velocities)\n"
          "  --record-joints FILE  write every world's joint DoFs at every step as CSV:\n"
          "                 step,time,world,joint,q,v,effort (one row per DoF; a ball or floating\n"
          "                 joint's DoFs are joint[0].. with q the rotation vector, then position;\n"
          "                 effort: what its actuator applied in the step, 0 without one)\n"
          "  --surfaces FILE  write the last step's hydroelastic contact surfaces as legacy VTK\n"
          "  --deformed FILE  write world 0's deformable bodies at the last step as legacy VTK\n"
          "  --max-contacts N    per-world capacity of contact faces and constraints (default:\n"
          "                      automatic, from the scene's meshes; see isoCapacityDef)\n");
  fprintf(f,
          "  --max-candidates N  per-world capacity of candidate element pairs (default: automatic)\n"
          "  --max-deformable-contacts N  per-world capacity of contact polygons on deformable\n"
          "                 bodies' surfaces (default: automatic, once per surface triangle and\n"
          "                 geometry; a triangle cut by several tets of a rigid field makes more)\n"
          "  --point-model M  point contact model: drake (today's, per-geometry stiffness; the\n"
          "                 default) or legacy (Drake's older compliant point contact: f = 2 E R x\n"
          "                 with the geometries' Young's moduli, <drake_compliance> materials and\n"
          "                 the defaults E 1e8 Pa, d 0.32 s/m, friction 0.9/0.5; see isoPointModel)\n"
          "  --characteristic-radius R  the legacy model's R in metres (default 2e-4)\n"
          "  --quiet        print only errors and the JSON line\n"
          "  --allow-faults exit 0 even when worlds faulted (for runs that expect some)\n"
          "  --grow-capacities  when a world overflows a contact capacity, grow the capacities and\n"
          "                 take the step again (every world's state is kept before each step), so\n"
          "                 the run is the one larger capacities would have made\n"
          "\n"
          "A world that faults (non-finite state, lists over a capacity, solver failure) is frozen;\n"
          "the run says so on stderr with the cause (and the capacity it needed), the JSON line\n"
          "counts such worlds in faulted_worlds and names every fault bit seen in faults, and the\n"
          "exit code is 3 unless --allow-faults. Exit codes: 0 ok, 1 error, 2 usage, 3 faults.\n"
          "\n"
          "state_hash is FNV-1a 64 over the bytes of the final q of every world, then v of every\n"
          "world, as 16 hex digits: two runs with the same hash ended in bitwise the same state.\n"
          "The CPU backend gives the same hash for any --threads.\n");
}

static int fail(const char *what, isoStatus st) {
  fprintf(stderr, "isobar run: %s: %s (%s)\n", what, iso_last_error(), iso_status_string(st));
  return 1;
}

/* One --initial-velocity: the name, then v (linear) and w (angular), world frame. */
typedef struct initVel {
  const char *body;
  double v[3], w[3];
} initVel;

static int parse_init_vel(const char *s, initVel *out) {
  const char *eq = s ? strrchr(s, '=') : NULL;
  if (!eq || eq == s) {
    fprintf(stderr, "isobar run: --initial-velocity expects BODY=vx,vy,vz,wx,wy,wz, got '%s'\n", s ? s : "");
    return 0;
  }
  size_t n = (size_t)(eq - s);
  char *name = (char *)malloc(n + 1);
  if (!name) return 0;
  memcpy(name, s, n);
  name[n] = '\0';
  double x[6];
  const char *p = eq + 1;
  for (int i = 0; i < 6; ++i) {
    char *end = NULL;
    x[i] = strtod(p, &end);
    if (end == p || !isfinite(x[i]) || (i < 5 ? *end != ',' : *end != '\0')) {
      fprintf(stderr, "isobar run: --initial-velocity '%s': expected six numbers vx,vy,vz,wx,wy,wz after '='\n", s);
      free(name);
      return 0;
    }
    p = end + 1;
  }
  out->body = name;
  memcpy(out->v, x, sizeof out->v);
  memcpy(out->w, x + 3, sizeof out->w);
  return 1;
}

/* Give free body `b` of every world the velocities of `iv`: its v is [w, v] in the world frame.
 * A body on a joint is refused (its velocity is its joints'). */
static isoStatus apply_init_vel(const isoModel *m, isoSim *sim, int b, const initVel *iv) {
  for (int j = 0; j < iso_model_joint_count(m); ++j) {
    isoJointDef jd;
    if (iso_model_get_joint(m, j, &jd) == ISO_OK && jd.child == b)
      return iso_fail(ISO_ERR_INVALID, "body '%s' moves with joint '%s', not freely: set its joints instead", iv->body,
                      jd.name);
  }
  isoSlice qs, vs;
  isoStatus st = iso_model_body_slice(m, b, &qs, &vs);
  if (st != ISO_OK) return st;
  int nw = iso_sim_world_count(sim), nv = iso_sim_state_width(sim, ISO_STATE_V);
  double *v = (double *)malloc(sizeof(double) * ((size_t)nw * (size_t)nv + 1));
  if (!v) return ISO_ERR_NOMEM;
  st = iso_sim_get_state(sim, ISO_STATE_V, iso_worlds_all(), v);
  for (int w = 0; w < nw && st == ISO_OK; ++w) {
    double *vb = v + (size_t)w * (size_t)nv + (size_t)vs.start;
    memcpy(vb, iv->w, 3 * sizeof(double));
    memcpy(vb + 3, iv->v, 3 * sizeof(double));
  }
  if (st == ISO_OK) st = iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_all(), v);
  free(v);
  return st;
}

/* World 0's hydroelastic contact surfaces as legacy VTK (computed for the final state). */
static int write_surfaces(const char *path, isoSim *sim) {
  isoStatus st = iso_sim_update_contact(sim);
  if (st == ISO_OK) st = iso_sim_write_contact_vtk(sim, 0, path);
  if (st != ISO_OK) {
    fprintf(stderr, "isobar run: --surfaces: %s (%s)\n", iso_last_error(), iso_status_string(st));
    return 1;
  }
  return 0;
}

/* On stderr: which worlds froze, why, and for an overflow the capacity that was needed. */
static void explain_faults(const isoSim *sim, const uint32_t *status, long long worlds) {
  int shown = 0, frozen = 0;
  for (long long w = 0; w < worlds; ++w) {
    if (!(status[w] & ISO_WORLD_FROZEN)) continue;
    if (++frozen > 3) continue;
    uint32_t b = status[w];
    fprintf(stderr, "isobar run: world %lld frozen:%s%s%s%s%s%s\n", w,
            (b & ISO_WORLD_NONFINITE) ? " non-finite state" : "",
            (b & ISO_WORLD_RUNAWAY) ? " runaway state (a speed above 1e4 or a position above 1e6)" : "",
            (b & ISO_WORLD_NOT_SPD) ? " Hessian not positive definite" : "",
            (b & ISO_WORLD_OVERFLOW) ? " list overflow" : "", (b & ISO_WORLD_NOT_CONVERGED) ? " solver not converged" : "",
            (b & ISO_WORLD_LINE_SEARCH) ? " line search failed" : "");
    int nc = 0, nf = 0, ncon = 0;
    if ((b & ISO_WORLD_OVERFLOW) && iso_sim_get_overflow(sim, (int)w, &nc, &nf, &ncon) == ISO_OK) {
      if (nc) fprintf(stderr, "  needed %d candidate pairs: rerun with --max-candidates %d\n", nc, nc);
      if (nf || ncon) {
        int need = nf > ncon ? nf : ncon;
        fprintf(stderr, "  needed %d contacts: rerun with --max-contacts %d\n", need, need);
      }
      /* the deformable bodies' lists record no need: only a larger capacity tells */
      if (!nc && !nf && !ncon && iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION) > 0)
        fprintf(stderr, "  a deformable body's contact polygons may have outgrown their list: rerun with a "
                        "larger --max-deformable-contacts\n");
    }
    shown++;
  }
  if (frozen > shown) fprintf(stderr, "isobar run: %d more worlds frozen\n", frozen - shown);
}

/* Faces and point contacts summed over every world: one batched read (a query per world and per
 * constraint waited for the GPU each time, minutes at thousands of worlds). */
static void contact_totals(const isoSim *sim, long long *faces, long long *points) {
  *faces = *points = 0;
  const int n = iso_sim_world_count(sim);
  int *f = (int *)malloc(sizeof(int) * (size_t)n), *p = (int *)malloc(sizeof(int) * (size_t)n);
  if (f && p && iso_sim_get_contact_counts(sim, iso_worlds_all(), f, p, NULL) == ISO_OK)
    for (int w = 0; w < n; ++w) *faces += f[w], *points += p[w];
  free(f), free(p);
}

/* A JSON string (quotes, backslashes and control characters escaped). */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

typedef struct runArgs {
  const char *scene, *record, *record_joints, *surfaces, *deformed, *package_path;
  long long worlds, steps, threads, max_contacts, max_candidates, max_def_contacts;
  double dt;
  int strict, quiet, allow_faults, grow;
  int point_model;      /* isoPointModel */
  double radius;        /* --characteristic-radius, 0: the default */
  isoBackendKind backend;
  initVel *iv;
  int niv;
  cliJointArg *ja; /* --joint-position, --joint-target, --effort, in command-line order */
  int nja;
} runArgs;

static int parse_args(int argc, char **argv, runArgs *a) {
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
      run_usage(stdout);
      return 0;
    } else if (strcmp(o, "--worlds") == 0) {
      if (!cli_parse_int(o, val, 1, 1 << 24, &a->worlds)) return 2;
      ++i;
    } else if (strcmp(o, "--steps") == 0) {
      if (!cli_parse_int(o, val, 0, 1LL << 40, &a->steps)) return 2;
      ++i;
    } else if (strcmp(o, "--threads") == 0) {
      if (!cli_parse_int(o, val, 1, 1024, &a->threads)) return 2;
      ++i;
    } else if (strcmp(o, "--dt") == 0) {
      char *end = NULL;
      a->dt = val ? strtod(val, &end) : 0;
      if (!val || *end != '\0' || !(a->dt > 0) || !isfinite(a->dt)) {
        fprintf(stderr, "isobar run: --dt expects a positive number of seconds, got '%s'\n", val ? val : "");
        return 2;
      }
      ++i;
    } else if (strcmp(o, "--backend") == 0) {
      if (!val || iso_backend_parse(val, &a->backend) != ISO_OK) {
        fprintf(stderr, "isobar run: --backend expects cpu, cuda or auto, got '%s'\n", val ? val : "");
        return 2;
      }
      ++i;
    } else if (strcmp(o, "--initial-velocity") == 0) {
      initVel *grown = (initVel *)realloc(a->iv, sizeof *a->iv * (size_t)(a->niv + 1));
      if (!grown) return 2;
      a->iv = grown;
      if (!parse_init_vel(val, &a->iv[a->niv])) return 2;
      a->niv++;
      ++i;
    } else if (strcmp(o, "--joint-position") == 0 || strcmp(o, "--joint-target") == 0 || strcmp(o, "--effort") == 0) {
      cliJointArg *grown = (cliJointArg *)realloc(a->ja, sizeof *a->ja * (size_t)(a->nja + 1));
      if (!grown) return 2;
      a->ja = grown;
      /* values: a floating joint's 7 positions, a target's q and v, one effort */
      const int most = strcmp(o, "--joint-position") == 0 ? 7 : strcmp(o, "--joint-target") == 0 ? 2 : 1;
      int ok = cli_parse_joint_arg(o, val, most, &a->ja[a->nja]);
      a->nja++; /* kept even when it failed: its name is freed with the rest */
      if (!ok) return 2;
      ++i;
    } else if (strcmp(o, "--record") == 0 || strcmp(o, "--record-joints") == 0 || strcmp(o, "--surfaces") == 0 ||
               strcmp(o, "--deformed") == 0) {
      if (!val) {
        fprintf(stderr, "isobar run: %s needs a file name\n", o);
        return 2;
      }
      if (strcmp(o, "--record") == 0) a->record = val;
      else if (o[2] == 'r') a->record_joints = val;
      else if (o[2] == 'd') a->deformed = val;
      else a->surfaces = val;
      ++i;
    } else if (strcmp(o, "--max-contacts") == 0) {
      if (!cli_parse_int(o, val, 1, 1 << 20, &a->max_contacts)) return 2;
      ++i;
    } else if (strcmp(o, "--max-candidates") == 0) {
      if (!cli_parse_int(o, val, 1, 1 << 24, &a->max_candidates)) return 2;
      ++i;
    } else if (strcmp(o, "--max-deformable-contacts") == 0) {
      if (!cli_parse_int(o, val, 1, 1 << 20, &a->max_def_contacts)) return 2;
      ++i;
    } else if (strcmp(o, "--package-path") == 0) {
      if (!val) {
        fprintf(stderr, "isobar run: --package-path needs a list\n");
        return 2;
      }
      a->package_path = val;
      ++i;
    } else if (strcmp(o, "--point-model") == 0) {
      if (val && strcmp(val, "drake") == 0) a->point_model = ISO_POINT_DRAKE;
      else if (val && strcmp(val, "legacy") == 0) a->point_model = ISO_POINT_LEGACY;
      else {
        fprintf(stderr, "isobar run: --point-model expects drake or legacy, got '%s'\n", val ? val : "");
        return 2;
      }
      ++i;
    } else if (strcmp(o, "--characteristic-radius") == 0) {
      char *end = NULL;
      a->radius = val ? strtod(val, &end) : 0;
      if (!val || *end != '\0' || !(a->radius > 0) || !isfinite(a->radius)) {
        fprintf(stderr, "isobar run: --characteristic-radius expects a positive length in metres, got '%s'\n",
                val ? val : "");
        return 2;
      }
      ++i;
    } else if (strcmp(o, "--strict") == 0) {
      a->strict = 1;
    } else if (strcmp(o, "--quiet") == 0) {
      a->quiet = 1;
    } else if (strcmp(o, "--allow-faults") == 0) {
      a->allow_faults = 1;
    } else if (strcmp(o, "--grow-capacities") == 0) {
      a->grow = 1;
    } else if (o[0] == '-' && o[1] != '\0') {
      fprintf(stderr, "isobar run: unknown option '%s' (try isobar run --help)\n", o);
      return 2;
    } else if (a->scene) {
      fprintf(stderr, "isobar run: one scene at a time ('%s' and '%s')\n", a->scene, o);
      return 2;
    } else {
      a->scene = o;
    }
  }
  if (!a->scene) {
    fprintf(stderr, "isobar run: which scene? (isobar run SCENE.sdf; try isobar run --help)\n");
    return 2;
  }
  const char *outs[4] = {a->record, a->record_joints, a->surfaces, a->deformed};
  for (int i = 0; i < 4; ++i)
    for (int k = i + 1; k < 4; ++k)
      if (outs[i] && outs[k] && strcmp(outs[i], outs[k]) == 0) {
        fprintf(stderr, "isobar run: '%s' is given for two outputs\n", outs[i]);
        return 2;
      }
  return -1;
}

/* A few bodies of world 0, for a person reading the output. */
static void print_state(const isoModel *m, const isoSim *sim) {
  int nb = iso_sim_body_count(sim), show = nb < 8 ? nb : 8;
  double *q = (double *)malloc(sizeof(double) * (7 * (size_t)nb + 1));
  double *v = (double *)malloc(sizeof(double) * (6 * (size_t)nb + 1));
  double t = 0;
  if (q && v && iso_sim_get_body_poses(sim, iso_worlds_one(0), q) == ISO_OK &&
      iso_sim_get_body_velocities(sim, iso_worlds_one(0), v) == ISO_OK &&
      iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t) == ISO_OK) {
    printf("world 0 at t = %.6g s:\n", t);
    for (int b = 0; b < show; ++b) {
      isoBodyDef bd;
      iso_model_get_body(m, b, &bd);
      printf("  %-32s p = (%9.5f, %9.5f, %9.5f)  v = (%8.4f, %8.4f, %8.4f)\n", bd.name, q[7 * b], q[7 * b + 1],
             q[7 * b + 2], v[6 * b + 3], v[6 * b + 4], v[6 * b + 5]);
    }
    if (show < nb) printf("  ... and %d more bodies\n", nb - show);
  }
  free(q);
  free(v);
  cli_print_deformables(m, sim);
}

/* The names of the fault bits set in `bits`, as JSON strings (no brackets). */
static void print_fault_names(uint32_t bits) {
  static const struct {
    uint32_t bit;
    const char *name;
  } names[] = {{ISO_WORLD_NONFINITE, "nonfinite"},   {ISO_WORLD_NOT_SPD, "not_spd"},
               {ISO_WORLD_OVERFLOW, "overflow"},     {ISO_WORLD_NOT_CONVERGED, "not_converged"},
               {ISO_WORLD_LINE_SEARCH, "line_search"}, {ISO_WORLD_RUNAWAY, "runaway"},
               {ISO_WORLD_FROZEN, "frozen"}};
  int first = 1;
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
    if (bits & names[k].bit) {
      printf("%s\"%s\"", first ? "" : ", ", names[k].name);
      first = 0;
    }
}

static int run(const runArgs *a) {
  isoLoadOptions lo = iso_default_load_options();
  lo.strict = a->strict;
  lo.package_path = a->package_path;
  lo.time_step = a->dt;
  isoModel *model = NULL;
  isoLoadReport *report = NULL;
  isoSim *sim = NULL;
  recordCsv rec;
  recordJoints rj;
  memset(&rec, 0, sizeof rec);
  memset(&rj, 0, sizeof rj);
  int rc = 1;
  isoStatus st = iso_scene_load(a->scene, &lo, &model, &report);
  if (st != ISO_OK) return fail("cannot load the scene", st);
  if (!a->quiet)
    for (int i = 0; i < iso_load_report_count(report); ++i) fprintf(stderr, "%s\n", iso_load_report_line(report, i));
  /* Before anything is written: an output must never be one of the files the scene came from. */
  if ((a->record && (st = out_check_not_input(a->record, "--record", a->scene, model)) != ISO_OK) ||
      (a->record_joints && (st = out_check_not_input(a->record_joints, "--record-joints", a->scene, model)) != ISO_OK) ||
      (a->surfaces && (st = out_check_not_input(a->surfaces, "--surfaces", a->scene, model)) != ISO_OK) ||
      (a->deformed && (st = out_check_not_input(a->deformed, "--deformed", a->scene, model)) != ISO_OK)) {
    rc = fail("refusing the output", st);
    goto done;
  }

  isoSimDef sd = iso_default_sim_def();
  sd.worlds = (int)a->worlds;
  sd.backend = a->backend;
  sd.threads = (int)a->threads;
  if (a->max_contacts > 0) sd.capacity.max_contacts = (int)a->max_contacts;
  if (a->max_candidates > 0) sd.capacity.max_candidates = (int)a->max_candidates;
  if (a->max_def_contacts > 0) sd.capacity.max_deformable_contacts = (int)a->max_def_contacts;
  sd.contact.point_model = (isoPointModel)a->point_model;
  if (a->radius > 0) sd.contact.characteristic_radius = a->radius;
  if ((st = iso_sim_create(model, &sd, &sim)) != ISO_OK) {
    rc = fail("creating the sim", st);
    goto done;
  }
  if (!a->quiet) fprintf(stderr, "isobar run: %s\n", iso_sim_backend_reason(sim));
  for (int i = 0; i < a->niv; ++i) {
    int b;
    if ((st = iso_scene_find_body(model, a->iv[i].body, &b)) != ISO_OK) {
      rc = fail("--initial-velocity", st);
      goto done;
    }
    if ((st = apply_init_vel(model, sim, b, &a->iv[i])) != ISO_OK) {
      rc = fail("--initial-velocity", st);
      goto done;
    }
  }
  if (!cli_apply_joint_args(model, sim, a->ja, a->nja)) goto done;
  if (a->record) {
    if ((st = record_csv_open(&rec, a->record, model, sim)) != ISO_OK || (st = record_csv_write(&rec, 0, sim)) != ISO_OK) {
      rc = fail("--record", st);
      goto done;
    }
  }
  if (a->record_joints) {
    if ((st = record_joints_open(&rj, a->record_joints, model, sim)) != ISO_OK ||
        (st = record_joints_write(&rj, 0, sim)) != ISO_OK) {
      rc = fail("--record-joints", st);
      goto done;
    }
  }

  cliGrow *grow = a->grow ? cli_grow_create(sim) : NULL;
  if (a->grow && !grow) {
    rc = fail("--grow-capacities", iso_fail(ISO_ERR_NOMEM, "out of memory keeping the worlds' states"));
    goto done;
  }
  cliProgress prog;
  cli_progress_start(&prog);
  double t0 = cli_now();
  for (long long s = 1; s <= a->steps; ++s) {
    if ((st = grow ? cli_grow_step(sim, grow, a->quiet) : iso_sim_step(sim)) != ISO_OK) {
      cli_grow_free(grow);
      cli_progress_end(&prog);
      rc = fail("stepping", st);
      goto done;
    }
    if (a->record && (st = record_csv_write(&rec, s, sim)) != ISO_OK) {
      cli_grow_free(grow);
      cli_progress_end(&prog);
      rc = fail("--record", st);
      goto done;
    }
    if (a->record_joints && (st = record_joints_write(&rj, s, sim)) != ISO_OK) {
      cli_grow_free(grow);
      cli_progress_end(&prog);
      rc = fail("--record-joints", st);
      goto done;
    }
    if ((s & 63) == 0) cli_progress_update(&prog, s, a->steps);
  }
  if (grow && !a->quiet && cli_grow_count(grow) > 0)
    fprintf(stderr, "isobar run: capacities grew %d time(s); they ended at max_contacts %d, max_candidates %d\n",
            cli_grow_count(grow), iso_sim_capacity(sim).max_contacts, iso_sim_capacity(sim).max_candidates);
  cli_grow_free(grow);
  /* Reading state back waits for the device, so the wall time covers all queued work. */
  double t_probe;
  st = iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t_probe);
  double wall = cli_now() - t0;
  cli_progress_update(&prog, a->steps, a->steps);
  cli_progress_end(&prog);
  if (st != ISO_OK) {
    rc = fail("reading the state", st);
    goto done;
  }
  if (a->record && (st = record_csv_close(&rec)) != ISO_OK) {
    rc = fail("--record", st);
    goto done;
  }
  if (a->record_joints && (st = record_joints_close(&rj)) != ISO_OK) {
    rc = fail("--record-joints", st);
    goto done;
  }
  if (a->surfaces && write_surfaces(a->surfaces, sim) != 0) goto done;
  if (a->deformed && (st = iso_sim_write_deformed_vtk(sim, 0, a->deformed)) != ISO_OK) {
    rc = fail("--deformed", st);
    goto done;
  }

  int faulted = 0;
  uint32_t bits = 0; /* every fault bit of every world */
  uint32_t *status = (uint32_t *)calloc((size_t)a->worlds, sizeof(uint32_t));
  if (!status || iso_sim_get_status(sim, iso_worlds_all(), status) != ISO_OK) {
    free(status);
    rc = fail("reading the status", ISO_ERR_NOMEM);
    goto done;
  }
  for (long long w = 0; w < a->worlds; ++w) {
    faulted += (status[w] & ISO_WORLD_FROZEN) != 0;
    bits |= status[w];
  }
  explain_faults(sim, status, a->worlds);
  free(status);
  if (!a->quiet) print_state(model, sim);
  uint64_t hash = 0;
  if ((st = cli_state_hash(sim, &hash)) != ISO_OK) {
    rc = fail("hashing the state", st);
    goto done;
  }
  double wsps = wall > 0 ? (double)a->worlds * (double)a->steps / wall : 0;
  long long nfaces = 0, npoints = 0;
  contact_totals(sim, &nfaces, &npoints);
  size_t world_bytes = 0;
  iso_sim_memory_per_world(sim, &world_bytes);
  printf("{\"scene\": ");
  json_string(stdout, a->scene);
  printf(", \"worlds\": %lld, \"bodies\": %d, \"geometries\": %d, \"steps\": %lld, \"dt\": %.10g, \"backend\": \"%s\", "
         "\"threads\": %d, \"wall_s\": %.6f, \"world_steps_per_s\": %.1f, \"contact_faces\": %lld, \"contact_points\": %lld, "
         "\"faulted_worlds\": %d, \"faults\": [",
         a->worlds, iso_model_body_count(model), iso_model_geometry_count(model), a->steps, iso_sim_time_step(sim),
         iso_backend_name(iso_sim_backend(sim)), iso_sim_threads(sim), wall, wsps, nfaces, npoints, faulted);
  print_fault_names(bits);
  printf("], \"report_lines\": %d, \"state_hash\": \"%016llx\", \"bytes_per_world\": %zu}\n",
         iso_load_report_count(report), (unsigned long long)hash, world_bytes);
  rc = bits && !a->allow_faults ? 3 : 0;
done:
  record_csv_abort(&rec); /* a recording is kept only when the run completed (closed above) */
  record_joints_abort(&rj);
  iso_sim_destroy(sim);
  iso_model_destroy(model);
  iso_load_report_free(report);
  return rc;
}

int cli_run(int argc, char **argv) {
  runArgs a;
  memset(&a, 0, sizeof a);
  a.worlds = 1;
  a.steps = 1000;
  a.backend = ISO_BACKEND_AUTO;
  int rc = parse_args(argc, argv, &a);
  if (rc < 0) rc = run(&a);
  for (int i = 0; i < a.niv; ++i) free((char *)a.iv[i].body);
  free(a.iv);
  cli_joint_args_free(a.ja, a.nja);
  return rc;
}
