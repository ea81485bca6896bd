/* Internal: one block of memory carved into aligned arrays, planned before the block exists.
 *
 * A sim's per-world arrays come from one arena: the data table (host/sim/sim_data.h) plans every
 * array (arena_plan returns its offset), the owner allocates arena.size bytes once in whatever
 * memory space it uses (host or device), and arrays are found at base + offset. So creation is
 * one allocation however many arrays there are, freeing is one call, nothing is allocated
 * afterwards, and the bytes a sim holds are known exactly (arena.size). The arena knows nothing
 * of backends: that is why it can sit below them. */
#ifndef ISO_HOST_ARENA_H
#define ISO_HOST_ARENA_H

#include <stddef.h>

/* Every array starts this many bytes after a multiple of it from the block's start: a cache line,
 * a multiple of every element's alignment and of a GPU memory transaction's sector (32 B). With
 * cudaMalloc's 256-B blocks every array is 64-B aligned on the device; on the host the block has
 * malloc's alignment (16 B), which every element type needs at most. Larger would waste up to
 * that much per array, which at one world is per-world memory. */
#define ARENA_ALIGN 64

typedef struct isoArena {
  size_t size; /* bytes planned so far (the size to allocate) */
  char *base;  /* the block once allocated, in its owner's memory space; NULL before */
} isoArena;

/* Plan an array of `count` elements of `elem` bytes; *offset receives where it will start.
 * Returns 0, or -1 when the total would overflow size_t (nothing planned then). */
int arena_plan(isoArena *a, size_t count, size_t elem, size_t *offset);

/* The address of the array planned at `offset` (base must be set). */
static inline void *arena_at(const isoArena *a, size_t offset) { return a->base + offset; }

#endif
