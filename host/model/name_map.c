/* Names to indices by hashing (host/model/name_map.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/model/name_map.h"

/* FNV-1a over the namespace's bytes then the name's: simple, and good enough on names that
 * differ in a trailing number ("b1", "b2", ...), the common case of generated scenes. */
static unsigned hash_key(int ns, const char *key, size_t len) {
  uint32_t h = 2166136261u;
  uint32_t n = (uint32_t)ns;
  for (int i = 0; i < 4; ++i) {
    h ^= (n >> (8 * i)) & 0xffu;
    h *= 16777619u;
  }
  for (size_t i = 0; i < len; ++i) {
    h ^= (unsigned char)key[i];
    h *= 16777619u;
  }
  return h;
}

/* The slot holding the key, or the empty slot where it would go. */
static nameSlot *probe(nameSlot *slot, int cap, unsigned h, int ns, const char *key, size_t len) {
  size_t mask = (size_t)cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    nameSlot *s = &slot[i];
    if (!s->key) return s;
    if (s->hash == h && s->ns == ns && s->len == len && memcmp(s->key, key, len) == 0) return s;
  }
}

int name_map_get(const nameMap *m, int ns, const char *key, size_t len) {
  if (!m->cap) return -1;
  nameSlot *s = probe(m->slot, m->cap, hash_key(ns, key, len), ns, key, len);
  return s->key ? s->value : -1;
}

static int grow(nameMap *m) {
  int cap = m->cap ? 2 * m->cap : 64;
  if (cap <= 0 || (size_t)cap > SIZE_MAX / sizeof(nameSlot)) return -1;
  nameSlot *slot = (nameSlot *)calloc((size_t)cap, sizeof *slot);
  if (!slot) return -1;
  for (int i = 0; i < m->cap; ++i)
    if (m->slot[i].key) *probe(slot, cap, m->slot[i].hash, m->slot[i].ns, m->slot[i].key, m->slot[i].len) = m->slot[i];
  free(m->slot);
  m->slot = slot;
  m->cap = cap;
  return 0;
}

int name_map_put(nameMap *m, int ns, const char *key, size_t len, int value) {
  if (2 * (m->count + 1) > m->cap && grow(m) != 0) return -1;
  unsigned h = hash_key(ns, key, len);
  nameSlot *s = probe(m->slot, m->cap, h, ns, key, len);
  if (s->key) return 0;
  s->key = key;
  s->len = len;
  s->hash = h;
  s->ns = ns;
  s->value = value;
  m->count++;
  return 1;
}

void name_map_free(nameMap *m) {
  free(m->slot);
  memset(m, 0, sizeof *m);
}
