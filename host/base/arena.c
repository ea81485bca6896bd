/* Planning arrays in one block (host/base/arena.h). */
#include "host/base/arena.h"

#include <stdint.h>

int arena_plan(isoArena *a, size_t count, size_t elem, size_t *offset) {
  if (elem != 0 && count > SIZE_MAX / elem) return -1;
  size_t bytes = count * elem;
  size_t start = (a->size + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
  if (start < a->size || bytes > SIZE_MAX - start) return -1;
  *offset = start;
  a->size = start + bytes;
  return 0;
}
