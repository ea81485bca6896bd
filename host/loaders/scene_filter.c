/* Drake's collision filter groups (drake:collision_filter_group), read as Drake's parsers read
 * them and turned into pair exclusions as Drake's CollisionFilterGroupResolver does:
 *   - a group has member links (drake:member) and may take in the members of other groups
 *     (drake:member_group);
 *   - a group A naming group B in drake:ignored_collision_filter_group excludes every pair of
 *     geometries of a link of A and a link of B; A naming itself excludes every pair within A;
 *   - ignore="true" drops the group;
 *   - names are relative to the model holding the group: "link" or "nested::link", and groups
 *     likewise, so an ignored group may be one of a nested model.
 * SDFormat gives names as element text, URDF in attributes (link= for members, name= for
 * groups). Names are resolved once every file is read: a member naming no link or an ignored
 * group naming no group fails with file:line. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_filter.h"
#include "host/loaders/scene_report.h"

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

static isoStatus add_entry(sceneCtx *c, int group, int kind, const char *scope, const char *name,
                           const sceneFile *f, xmlNode *n) {
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "needs a name");
  if (c->nfilter_entry == c->filter_entry_cap) {
    int cap = c->filter_entry_cap ? 2 * c->filter_entry_cap : 16;
    sceneFilterEntry *e = (sceneFilterEntry *)realloc(c->filter_entries, (size_t)cap * sizeof *e);
    if (!e) return nomem();
    c->filter_entries = e;
    c->filter_entry_cap = cap;
  }
  sceneFilterEntry *e = &c->filter_entries[c->nfilter_entry++];
  e->group = group;
  e->kind = kind;
  e->name = scope[0] ? scene_printf(&c->mem, "%s::%s", scope, name) : scene_strdup(&c->mem, name);
  e->file = f;
  e->line = scene_line(n);
  return e->name ? ISO_OK : nomem();
}

isoStatus scene_filter_group(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *scope, int urdf) {
  static const char *const elems[] = {"drake:member", "drake:member_group", "drake:ignored_collision_filter_group", NULL};
  static const char *const attrs[] = {"name", "ignore", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name");
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "needs a non-empty 'name' attribute");
  char *ign = scene_attr(&c->mem, n, "ignore");
  int ignore = 0;
  if (ign && (st = scene_bool(f, n, "ignore", ign, &ignore)) != ISO_OK) return st;
  if (ignore) return ISO_OK;
  if (c->nfilter_group == c->filter_group_cap) {
    int cap = c->filter_group_cap ? 2 * c->filter_group_cap : 8;
    sceneFilterGroup *g = (sceneFilterGroup *)realloc(c->filter_groups, (size_t)cap * sizeof *g);
    if (!g) return nomem();
    c->filter_groups = g;
    c->filter_group_cap = cap;
  }
  int gi = c->nfilter_group;
  sceneFilterGroup *g = &c->filter_groups[gi];
  g->name = scope[0] ? scene_printf(&c->mem, "%s::%s", scope, name) : scene_strdup(&c->mem, name);
  if (!g->name) return nomem();
  for (int i = 0; i < gi; ++i)
    if (strcmp(c->filter_groups[i].name, g->name) == 0)
      return scene_fail(f, n, ISO_ERR_PARSE, "a collision filter group named '%s' already exists", name);
  g->file = f;
  g->line = scene_line(n);
  c->nfilter_group++;
  for (xmlNode *k = n->children; k; k = k->next) {
    int kind = scene_is(k, "drake:member") ? SCENE_FILTER_MEMBER
               : scene_is(k, "drake:member_group") ? SCENE_FILTER_MEMBER_GROUP
               : scene_is(k, "drake:ignored_collision_filter_group") ? SCENE_FILTER_IGNORED
                                                                     : -1;
    if (kind < 0) continue;
    const char *attr = kind == SCENE_FILTER_MEMBER ? "link" : "name";
    static const char *const la[] = {"link", NULL}, *const na[] = {"name", NULL};
    if ((st = scene_check(c, f, k, NULL, urdf ? (kind == SCENE_FILTER_MEMBER ? la : na) : NULL)) != ISO_OK) return st;
    char *v = urdf ? scene_attr(&c->mem, k, attr) : scene_text(&c->mem, k);
    if (urdf && !v) return scene_fail(f, k, ISO_ERR_PARSE, "needs a '%s' attribute", attr);
    if (!v) return nomem();
    if ((st = add_entry(c, gi, kind, scope, v, f, k)) != ISO_OK) return st;
  }
  return ISO_OK;
}

static int find_group(const sceneCtx *c, const char *name) {
  for (int i = 0; i < c->nfilter_group; ++i)
    if (strcmp(c->filter_groups[i].name, name) == 0) return i;
  return -1;
}

/* Mark in `in` (nlink flags) the links of group g and of its member groups; `seen` guards
 * against groups that take each other in. */
static void collect(const sceneCtx *c, const int *member_link, int g, char *in, char *seen) {
  if (seen[g]) return;
  seen[g] = 1;
  for (int e = 0; e < c->nfilter_entry; ++e) {
    const sceneFilterEntry *fe = &c->filter_entries[e];
    if (fe->group != g) continue;
    if (fe->kind == SCENE_FILTER_MEMBER) in[member_link[e]] = 1;
    else if (fe->kind == SCENE_FILTER_MEMBER_GROUP) collect(c, member_link, member_link[e], in, seen);
  }
}

static int cmp_pair(const void *a, const void *b) {
  const int *p = (const int *)a, *q = (const int *)b;
  return p[0] != q[0] ? (p[0] < q[0] ? -1 : 1) : (p[1] < q[1] ? -1 : p[1] > q[1]);
}

isoStatus scene_filter_apply(const sceneCtx *c, isoModel *m, const int *geom_id, const int *geom_body) {
  if (c->nfilter_group == 0) return ISO_OK;
  const int nl = c->nlink, ng = c->ngeom, ngr = c->nfilter_group;
  /* Resolve every name: a member to its link, a member group or ignored group to its group. */
  int *target = (int *)malloc(sizeof(int) * (size_t)(c->nfilter_entry + 1));
  char *in = (char *)calloc((size_t)ngr * (size_t)(nl + 1) + (size_t)ngr, 1);
  int *pairs = NULL;
  size_t npair = 0, cap = 0;
  isoStatus st = target && in ? ISO_OK : nomem();
  for (int e = 0; e < c->nfilter_entry && st == ISO_OK; ++e) {
    const sceneFilterEntry *fe = &c->filter_entries[e];
    target[e] = -1;
    if (fe->kind == SCENE_FILTER_MEMBER) {
      for (int l = 0; l < nl && target[e] < 0; ++l)
        if (strcmp(c->links[l].name, fe->name) == 0) target[e] = l;
    } else {
      target[e] = find_group(c, fe->name);
    }
    if (target[e] < 0)
      st = iso_fail(ISO_ERR_PARSE, "%s:%d: <drake:%s>: '%s' names no %s", fe->file->path, fe->line,
                    fe->kind == SCENE_FILTER_MEMBER         ? "member"
                    : fe->kind == SCENE_FILTER_MEMBER_GROUP ? "member_group"
                                                            : "ignored_collision_filter_group",
                    fe->name, fe->kind == SCENE_FILTER_MEMBER ? "link" : "collision filter group");
  }
  char *seen = in + (size_t)ngr * (size_t)(nl + 1);
  for (int g = 0; g < ngr && st == ISO_OK; ++g) {
    memset(seen, 0, (size_t)ngr);
    collect(c, target, g, in + (size_t)g * (size_t)(nl + 1), seen);
  }
  /* Every (A ignores B): the pairs of geometries of links of A and B on different bodies. */
  for (int e = 0; e < c->nfilter_entry && st == ISO_OK; ++e) {
    const sceneFilterEntry *fe = &c->filter_entries[e];
    if (fe->kind != SCENE_FILTER_IGNORED) continue;
    const char *A = in + (size_t)fe->group * (size_t)(nl + 1), *B = in + (size_t)target[e] * (size_t)(nl + 1);
    for (int i = 0; i < ng && st == ISO_OK; ++i) {
      if (!A[c->geoms[i].link] || geom_id[i] < 0) continue;
      for (int j = 0; j < ng; ++j) {
        if (j == i || !B[c->geoms[j].link] || geom_id[j] < 0 || geom_body[i] == geom_body[j]) continue;
        if (npair == cap) {
          cap = cap ? 2 * cap : 256;
          int *p = (int *)realloc(pairs, cap * 2 * sizeof(int));
          if (!p) {
            st = nomem();
            break;
          }
          pairs = p;
        }
        int a = geom_id[i], b = geom_id[j];
        pairs[2 * npair] = a < b ? a : b;
        pairs[2 * npair + 1] = a < b ? b : a;
        ++npair;
      }
    }
  }
  if (st == ISO_OK && npair) qsort(pairs, npair, 2 * sizeof(int), cmp_pair);
  for (size_t k = 0; k < npair && st == ISO_OK; ++k)
    if (k == 0 || cmp_pair(&pairs[2 * k], &pairs[2 * k - 2]) != 0)
      st = iso_model_exclude_pair(m, pairs[2 * k], pairs[2 * k + 1]);
  free(pairs);
  free(target);
  free(in);
  return st;
}
