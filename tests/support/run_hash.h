/* Hashes of whole runs, for the determinism tests: FNV-1a 64 over the raw bytes of the values,
 * nothing canonicalised (-0.0 and 0.0 differ, every NaN payload differs), because the point is
 * to see any change of a single bit. The bytes are the machine's (little-endian on x86-64). */
#ifndef ISO_TESTS_RUN_HASH_H
#define ISO_TESTS_RUN_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "isobar/sim.h"

/* FNV-1a's offset basis: the hash of nothing, where every running hash starts. */
#define RUN_HASH_SEED 0xcbf29ce484222325ull

/* Fold `n` bytes at `p` into hash `h`. */
uint64_t run_hash_bytes(uint64_t h, const void *p, size_t n);

/* Fold `n` doubles (their bytes in memory order) into hash `h`. */
uint64_t run_hash_doubles(uint64_t h, const double *x, size_t n);

/* Fold state field `field` of every world, packed world after world as iso_sim_get_state gives
 * it, into *h; `scratch` holds at least worlds · iso_sim_state_width(sim, field) doubles, so
 * the caller allocates once for a whole run. */
isoStatus run_hash_state(uint64_t *h, const isoSim *sim, isoStateField field, double *scratch);

/* The hash `isobar run` prints as "state_hash": RUN_HASH_SEED, then q of every world, then v
 * of every world. The calling test fails when the state cannot be read. */
uint64_t run_hash_final_state(const isoSim *sim);

#endif
