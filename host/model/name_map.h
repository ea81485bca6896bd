/* Internal: a hash map from names to indices, so looking a name up costs the same with 10 or
 * 100,000 names (the model's bodies and geometries, the scene loaders' frames, scopes and
 * links). Before it, every add checked uniqueness by a linear scan, and a 65k-body scene took
 * minutes to load.
 *
 * A key is a name of `len` bytes (not NUL-terminated: a prefix of a scoped name can be looked
 * up in place) within a namespace `ns` (a model scope; 0 when there is only one), so the same
 * name in two scopes is two keys. The map does not copy keys: the caller keeps every key's
 * bytes alive and unchanged as long as the map. Open addressing with linear probing, at most
 * half full; no removal, because nothing isobar names is ever unnamed. */
#ifndef ISO_HOST_NAME_MAP_H
#define ISO_HOST_NAME_MAP_H

#include <stddef.h>

typedef struct nameSlot {
  const char *key;   /* NULL: empty slot */
  size_t len;
  unsigned hash;
  int ns;
  int value;
} nameSlot;

typedef struct nameMap {
  nameSlot *slot; /* (cap) cap a power of two, or 0 when nothing was ever put */
  int cap, count;
} nameMap;

/* The value of (ns, key[0..len)), or -1 when absent. */
int name_map_get(const nameMap *m, int ns, const char *key, size_t len);

/* Put (ns, key[0..len)) -> value (value >= 0). Returns 1 when added, 0 when the key was
 * present (its first value is kept), -1 when out of memory (the map is unchanged). */
int name_map_put(nameMap *m, int ns, const char *key, size_t len, int value);

void name_map_free(nameMap *m);

#endif
