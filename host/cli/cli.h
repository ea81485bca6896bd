/* Internal to the isobar tool: shared helpers of its subcommands. */
#ifndef ISO_CLI_H
#define ISO_CLI_H

#include <stdio.h>

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

int cli_bench(int argc, char **argv);
int cli_run(int argc, char **argv);

#endif
