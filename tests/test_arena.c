/* The arena (host/base/arena.h): planned arrays are aligned, disjoint and in order, the size is
 * exactly what the last array needs, and an overflowing plan is refused without changing it. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "host/base/arena.h"

Test(arena, arrays_are_aligned_disjoint_and_sized) {
  isoArena a = {0, NULL};
  size_t counts[5] = {3, 0, 1000, 1, 77}, elems[5] = {8, 4, 4, 1, 24}, off[5];
  for (int k = 0; k < 5; ++k) cr_assert_eq(arena_plan(&a, counts[k], elems[k], &off[k]), 0);
  for (int k = 0; k < 5; ++k) {
    cr_expect_eq(off[k] % ARENA_ALIGN, 0, "array %d at %zu", k, off[k]);
    if (k > 0) cr_expect_geq(off[k], off[k - 1] + counts[k - 1] * elems[k - 1], "array %d overlaps", k);
  }
  cr_expect_eq(a.size, off[4] + counts[4] * elems[4]);
}

Test(arena, overflow_is_refused) {
  isoArena a = {0, NULL};
  size_t off = 0;
  cr_assert_eq(arena_plan(&a, 10, 8, &off), 0);
  size_t before = a.size;
  cr_expect_eq(arena_plan(&a, SIZE_MAX / 4, 8, &off), -1);
  cr_expect_eq(arena_plan(&a, 1, SIZE_MAX - 8, &off), -1);
  cr_expect_eq(a.size, before);
}
