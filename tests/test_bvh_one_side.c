/* The tree-vs-tree walk as a GPU thread runs it: one prepared side per tree (BVH_SIDES 1, the
 * last node met), where the CPU keeps 256 per tree. Every test of tests/test_bvh.c runs again
 * with it, so both forms give the brute-force pairs in the same order. */
#define BVH_SIDES 1
#include "test_bvh.c"
