/* Internal to the isobar tool: shared helpers of its subcommands. */
#ifndef ISO_CLI_H
#define ISO_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "isobar/model.h"
#include "isobar/sim.h"

/* Wall-clock seconds from a monotonic clock. */
double cli_now(void);

/* A progress bar on stderr, shown only on a terminal and only once a run has lasted 1 s. */
typedef struct cliProgress {
  double start, last;
  int shown, tty;
} cliProgress;
void cli_progress_start(cliProgress *p);
void cli_progress_update(cliProgress *p, long long done, long long total);
void cli_progress_end(cliProgress *p);

/* Parse helpers: fail with a message on stderr and return 0. */
int cli_parse_int(const char *opt, const char *s, long long lo, long long hi, long long *out);

/* A joint flag of isobar run (--joint-position, --joint-target, --effort): JOINT=x[,x...]. */
typedef struct cliJointArg {
  const char *flag; /* the flag, as spelled above */
  char *joint;      /* the joint's name as given (owned) */
  double x[7];      /* the values, finite */
  int n;
} cliJointArg;

/* Parse "JOINT=x1,x2,..." (at most max_values finite numbers) for `flag`; on failure print why
 * on stderr, naming the flag and the joint, and return 0 (out->joint may hold a name to free). */
int cli_parse_joint_arg(const char *flag, const char *s, int max_values, cliJointArg *out);
/* Free n parsed flags and the array. */
void cli_joint_args_free(cliJointArg *a, int n);
/* Apply the flags in order to every world of `sim`: --joint-position sets the joint's q (as many
 * values as its positions), --joint-target its actuator's PD targets (q, and v or 0), --effort
 * its actuator's effort. 0 with the reason on stderr (an unknown or ambiguous joint, a wrong
 * number of values, a joint without an actuator or, for a target, without PD gains). */
int cli_apply_joint_args(const isoModel *m, isoSim *sim, const cliJointArg *a, int n);

/* --grow-capacities (host/cli/cli_grow.c): steps that grow the contact capacities of the sim
 * instead of freezing the worlds that overflow them, re-taking the step from the kept state. */
typedef struct cliGrow cliGrow;
cliGrow *cli_grow_create(const isoSim *sim); /* NULL when out of memory */
void cli_grow_free(cliGrow *g);
isoStatus cli_grow_step(isoSim *sim, cliGrow *g, int quiet);
int cli_grow_count(const cliGrow *g);

/* FNV-1a 64 of the final q, then v, then the deformable vertices' positions and velocities, of
 * every world (tests/support/run_hash.c computes the same for models without deformable
 * bodies, and tests/test_cli_run.c holds the two together). Raw bytes, nothing canonicalised:
 * the hash is for seeing whether two runs ended bitwise alike, e.g. on two machines. */
isoStatus cli_state_hash(const isoSim *sim, uint64_t *out);

/* World 0's deformable bodies on stdout: the mean of each one's vertex positions and velocities
 * (the first 8, then how many more). */
void cli_print_deformables(const isoModel *m, const isoSim *sim);

int cli_bench(int argc, char **argv);
int cli_run(int argc, char **argv);

#endif
