/* Internal: list primitives for the count-scan-emit pattern of stages 2-5.
 *
 * A stage that emits a variable number of items per input counts them first, turns the counts
 * into write offsets with list_exclusive_scan, then writes every item at its offset; lists are
 * ordered by stable keys with list_sort_by_key, and surviving items are gathered with
 * list_compact. None of them allocates: each takes a caller-provided workspace in the
 * backend's memory space, sized once at creation by list_workspace_bytes(b, n_max), so a step
 * stays allocation-free (and, where no host value is asked for, capturable in a CUDA graph).
 *
 * Results are exact integers: on the CPU backend they are bitwise identical for any thread
 * count, and the CUDA backend gives the same results as the CPU.
 *
 * Common rules for the three primitives:
 *  - all arrays live in the backend's memory space (device memory for CUDA), except the
 *    host outputs `total` and `count`;
 *  - n < 0 is ISO_ERR_INVALID; n == 0 returns at once (array and workspace pointers may then
 *    be NULL), otherwise NULL arrays are ISO_ERR_NULL;
 *  - a workspace smaller than this call needs is ISO_ERR_CAPACITY naming both sizes; any
 *    alignment of `ws` works (it is aligned inside, and the slack is part of the query);
 *  - a call refused by these checks (or by the overflow check) has written nothing;
 *  - CUDA: work is queued on b->stream; calls that return a host value (total, count)
 *    synchronise the stream, the others return before the work is done. */
#ifndef ISO_HOST_LIST_H
#define ISO_HOST_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "host/backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of workspace (backend memory) large enough for any primitive below on up to n_max
 * items with this backend (CPU: also depends on b->threads). 0 when n_max <= 0. On CUDA, a
 * failed size query returns 0 and records the reason in iso_last_error(); the primitives
 * then fail with ISO_ERR_CAPACITY. */
size_t list_workspace_bytes(const isoBackend *b, int n_max);

/* Exclusive prefix sum: out[i] = in[0] + ... + in[i-1], out[0] = 0 (n items). in and out may
 * be the same array (in place) but must not overlap otherwise. *total (host; NULL = not
 * wanted) receives the sum of all n items.
 * Overflow (ISO_ERR_CAPACITY, nothing written): the CPU checks every prefix and the total
 * against the int range. CUDA checks the total, summed in 64 bits, only when `total` is
 * non-NULL (that check costs a stream synchronisation); for non-negative inputs (counts) a
 * total within range implies every prefix is. With total == NULL, CUDA does not check. */
isoStatus list_exclusive_scan(const isoBackend *b, const int *in, int *out, int n, int *total,
                              void *ws, size_t ws_bytes);

/* Stable ascending sort of keys[0..n) by their full 64-bit value, applying the same
 * permutation to values[0..n); in place. Items with equal keys keep their input order. */
isoStatus list_sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                           size_t ws_bytes);

/* Stream compaction of indices: out_index[0..*count) receives, in ascending order, every i in
 * [0, n) with flags[i] != 0; *count (host, required) is their number. out_index must hold n
 * items; entries past *count are left unspecified. */
isoStatus list_compact(const isoBackend *b, const int *flags, int n, int *out_index, int *count,
                       void *ws, size_t ws_bytes);

/* The CUDA backend's versions (kernels/cuda/list.cu over CUB; failing stubs in
 * host/backend/cuda_off_list.c when built without nvcc). Called by the functions above after they
 * have checked n and the pointers and handled n == 0; these check the workspace size. */
size_t cuda_list_workspace_bytes(const isoBackend *b, int n_max);
isoStatus cuda_list_scan(const isoBackend *b, const int *in, int *out, int n, int *total,
                         void *ws, size_t ws_bytes);
isoStatus cuda_list_sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                                size_t ws_bytes);
isoStatus cuda_list_compact(const isoBackend *b, const int *flags, int n, int *out_index,
                            int *count, void *ws, size_t ws_bytes);

#ifdef __cplusplus
}
#endif
#endif
