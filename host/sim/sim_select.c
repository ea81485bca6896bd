/* World selections (isoWorlds) and the row copies between a caller's packed arrays and a sim's
 * world-major backend arrays.
 *
 * A selection is checked once (sim_select) and then walked with sel_next, which needs no
 * storage: getters that take a `const isoSim *` write nothing shared, so two threads may read
 * one sim. Copies of many worlds are batched: on the CUDA backend a selection of more than one
 * world moves the whole array once (download, gather or scatter on the host, upload) instead of
 * one synchronous copy per world; on the CPU backend a copy per row is a memcpy. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"

isoWorlds iso_worlds_all(void) {
  isoWorlds w;
  memset(&w, 0, sizeof w);
  w.kind = ISO_WORLDS_ALL;
  return w;
}

isoWorlds iso_worlds_one(int world) {
  isoWorlds w = iso_worlds_all();
  w.kind = ISO_WORLDS_ONE;
  w.world = world;
  return w;
}

isoWorlds iso_worlds_list(const int *worlds, int count) {
  isoWorlds w = iso_worlds_all();
  w.kind = ISO_WORLDS_LIST;
  w.list = worlds;
  w.count = count;
  return w;
}

isoWorlds iso_worlds_mask(const unsigned char *mask) {
  isoWorlds w = iso_worlds_all();
  w.kind = ISO_WORLDS_MASK;
  w.mask = mask;
  return w;
}

isoStatus sim_select(const isoSim *s, isoWorlds w, const char *fn, simSel *out) {
  out->w = w;
  out->nworld = s->nworld;
  out->n = 0;
  switch (w.kind) {
    case ISO_WORLDS_ALL:
      out->n = s->nworld;
      return ISO_OK;
    case ISO_WORLDS_ONE:
      if (w.world < 0 || w.world >= s->nworld)
        return iso_fail(ISO_ERR_INVALID, "%s: world %d is out of range [0, %d)", fn, w.world, s->nworld);
      out->n = 1;
      return ISO_OK;
    case ISO_WORLDS_LIST:
      if (w.count < 0 || w.count > s->nworld)
        return iso_fail(ISO_ERR_INVALID, "%s: world list of %d entries (the sim has %d worlds)", fn,
                        w.count, s->nworld);
      if (w.count > 0 && !w.list) return iso_fail(ISO_ERR_NULL, "%s: world list is NULL", fn);
      for (int i = 0; i < w.count; ++i)
        if (w.list[i] < 0 || w.list[i] >= s->nworld)
          return iso_fail(ISO_ERR_INVALID, "%s: world list entry %d is %d, out of range [0, %d)", fn, i,
                          w.list[i], s->nworld);
      out->n = w.count;
      return ISO_OK;
    case ISO_WORLDS_MASK:
      if (!w.mask) return iso_fail(ISO_ERR_NULL, "%s: world mask is NULL", fn);
      for (int i = 0; i < s->nworld; ++i) out->n += w.mask[i] != 0;
      return ISO_OK;
    default:
      return iso_fail(ISO_ERR_INVALID, "%s: unknown world selection kind %d", fn, (int)w.kind);
  }
}

isoStatus sim_select_unique(isoSim *s, isoWorlds w, const char *fn, simSel *out) {
  isoStatus st = sim_select(s, w, fn, out);
  if (st != ISO_OK || w.kind != ISO_WORLDS_LIST) return st;
  /* a write with a repeated world would depend on which copy lands last */
  memset(s->seen, 0, (size_t)s->nworld);
  for (int i = 0; i < w.count; ++i) {
    if (s->seen[w.list[i]]) return iso_fail(ISO_ERR_INVALID, "%s: world %d appears twice in the list", fn, w.list[i]);
    s->seen[w.list[i]] = 1;
  }
  return ISO_OK;
}

int sel_next(const simSel *q, int *it) {
  switch (q->w.kind) {
    case ISO_WORLDS_ALL: return *it < q->nworld ? (*it)++ : -1;
    case ISO_WORLDS_ONE: return *it == 0 ? (++*it, q->w.world) : -1;
    case ISO_WORLDS_LIST: return *it < q->w.count ? q->w.list[(*it)++] : -1;
    case ISO_WORLDS_MASK:
      while (*it < q->nworld && !q->w.mask[*it]) ++*it;
      return *it < q->nworld ? (*it)++ : -1;
  }
  return -1;
}

/* One copy of the whole array is cheaper than a synchronous copy per world on the GPU. */
static int whole_array(const isoSim *s, const simSel *q) { return s->be.kind == ISO_BACKEND_CUDA && q->n > 1; }

isoStatus sim_gather_rows(const isoSim *s, const simSel *q, const void *base, long stride, size_t row,
                          void *out) {
  if (q->n == 0) return ISO_OK;
  const char *src = (const char *)base;
  char *dst = (char *)out;
  if (q->w.kind == ISO_WORLDS_ALL && (size_t)stride == row)
    return backend_download(&s->be, out, base, row * (size_t)q->n);
  isoStatus st = ISO_OK;
  if (stride == 0) { /* a value shared by every world */
    st = backend_download(&s->be, dst, base, row);
    for (int k = 1; st == ISO_OK && k < q->n; ++k) memcpy(dst + row * (size_t)k, dst, row);
    return st;
  }
  if (whole_array(s, q)) {
    size_t bytes = (size_t)stride * (size_t)(s->nworld - 1) + row;
    char *all = (char *)malloc(bytes);
    if (all) {
      st = backend_download(&s->be, all, base, bytes);
      int it = 0, k = 0;
      for (int w; st == ISO_OK && (w = sel_next(q, &it)) >= 0; ++k)
        memcpy(dst + row * (size_t)k, all + (size_t)stride * (size_t)w, row);
      free(all);
      return st;
    }
  }
  int it = 0, k = 0;
  for (int w; st == ISO_OK && (w = sel_next(q, &it)) >= 0; ++k)
    st = backend_download(&s->be, dst + row * (size_t)k, src + (size_t)stride * (size_t)w, row);
  return st;
}

isoStatus sim_scatter_rows(const isoSim *s, const simSel *q, void *base, long stride, size_t row,
                           const void *in, int same_row) {
  if (q->n == 0) return ISO_OK;
  char *dst = (char *)base;
  const char *src = (const char *)in;
  size_t in_step = same_row ? 0 : row;
  isoStatus st = ISO_OK;
  if (whole_array(s, q) && stride > 0) {
    size_t bytes = (size_t)stride * (size_t)(s->nworld - 1) + row;
    char *all = (char *)malloc(bytes);
    if (all) {
      /* rows between the selected ones (and any padding of a stride) keep their values */
      st = q->w.kind == ISO_WORLDS_ALL && (size_t)stride == row ? ISO_OK : backend_download(&s->be, all, base, bytes);
      int it = 0, k = 0;
      for (int w; st == ISO_OK && (w = sel_next(q, &it)) >= 0; ++k)
        memcpy(all + (size_t)stride * (size_t)w, src + in_step * (size_t)k, row);
      if (st == ISO_OK) st = backend_upload(&s->be, base, all, bytes);
      free(all);
      return st;
    }
  }
  int it = 0, k = 0;
  for (int w; st == ISO_OK && (w = sel_next(q, &it)) >= 0; ++k)
    st = backend_upload(&s->be, dst + (size_t)stride * (size_t)w, src + in_step * (size_t)k, row);
  return st;
}
