/* Scene files: the load report. Nothing in a file is dropped silently: every element and
 * attribute is either used or listed here, one line each, "file:line: <element> ignored (why)".
 * The library only collects the lines; the isobar tool prints them. In strict mode each would-be
 * line is an ISO_ERR_UNSUPPORTED error instead. <visual> elements are the one exception: a
 * simulator legitimately has no use for them, so they are counted into one summary line that
 * strict mode accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_report.h"

struct isoLoadReport {
  int count, cap;
  char **lines; /* (count) owned */
  long long *key;    /* (count) where each line points: file order << 32 | line, to sort them */
};

isoStatus scene_report_new(isoLoadReport **out) {
  isoLoadReport *r = (isoLoadReport *)calloc(1, sizeof *r);
  if (!r) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  *out = r;
  return ISO_OK;
}

static isoStatus add_keyed(isoLoadReport *r, const char *line, long long key) {
  if (r->count == r->cap) {
    int cap = r->cap ? 2 * r->cap : 16;
    char **l = (char **)realloc(r->lines, (size_t)cap * sizeof *l);
    if (l) r->lines = l;
    long long *k = l ? (long long *)realloc(r->key, (size_t)cap * sizeof *k) : NULL;
    if (!l || !k) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
    r->key = k;
    r->cap = cap;
  }
  char *copy = (char *)malloc(strlen(line) + 1);
  if (!copy) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  strcpy(copy, line);
  r->key[r->count] = key;
  r->lines[r->count++] = copy;
  return ISO_OK;
}

isoStatus scene_report_add(isoLoadReport *r, const char *line) { return add_keyed(r, line, 0x7fffffffLL); }

int iso_load_report_count(const isoLoadReport *r) { return r ? r->count : 0; }

const char *iso_load_report_line(const isoLoadReport *r, int i) {
  if (!r || i < 0 || i >= r->count) return NULL;
  return r->lines[i];
}

void iso_load_report_free(isoLoadReport *r) {
  if (!r) return;
  for (int i = 0; i < r->count; ++i) free(r->lines[i]);
  free(r->lines);
  free(r->key);
  free(r);
}

/* One line, or the strict-mode error. `what` is "<element>" or "<element> attribute 'x'". */
static isoStatus ignore(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *what, const char *why) {
  int line = scene_line(n);
  if (c->opt.strict) {
    if (strcmp(why, "unsupported") == 0)
      return iso_fail(ISO_ERR_UNSUPPORTED, "%s:%d: %s is not supported by isobar (strict mode rejects what "
                      "it would ignore)", f->path, line, what);
    return iso_fail(ISO_ERR_UNSUPPORTED, "%s:%d: %s would be ignored (%s); strict mode rejects it", f->path, line,
                    what, why);
  }
  char buf[1400];
  snprintf(buf, sizeof buf, "%s:%d: %s ignored (%s)", f->path, line, what, why);
  return add_keyed(c->report, buf, (long long)f->index << 32 | (long long)line);
}

isoStatus scene_ignore(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *why) {
  char qb[128], what[160];
  if (n->type == XML_ELEMENT_NODE)
    snprintf(what, sizeof what, "<%s>", scene_qname(n, qb, (int)sizeof qb));
  else
    snprintf(what, sizeof what, "text in <%s>", scene_qname(n->parent, qb, (int)sizeof qb));
  return ignore(c, f, n, what, why);
}

isoStatus scene_ignore_attr(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, const char *why) {
  char qb[128], what[300];
  snprintf(what, sizeof what, "<%s> attribute '%s'", scene_qname(n, qb, (int)sizeof qb), attr);
  return ignore(c, f, n, what, why);
}

static int listed(const char *const *names, const char *name) {
  for (int i = 0; names && names[i]; ++i)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

static int blank(const xmlChar *s) {
  for (; s && *s; ++s)
    if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return 0;
  return 1;
}

isoStatus scene_check(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *const *elements,
                      const char *const *attrs) {
  isoStatus st;
  for (xmlAttr *a = n->properties; a; a = a->next) {
    char name[160];
    if (a->ns && a->ns->prefix)
      snprintf(name, sizeof name, "%s:%s", (const char *)a->ns->prefix, (const char *)a->name);
    else
      snprintf(name, sizeof name, "%s", (const char *)a->name);
    if (!listed(attrs, name) && (st = scene_ignore_attr(c, f, n, name, "unsupported")) != ISO_OK) return st;
  }
  int text_reported = 0;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (k->type == XML_ELEMENT_NODE) {
      char qb[128];
      if (!listed(elements, scene_qname(k, qb, (int)sizeof qb)) &&
          (st = scene_ignore(c, f, k, "unsupported")) != ISO_OK)
        return st;
    } else if ((k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE) && !blank(k->content) &&
               !text_reported && elements) {
      /* Text where child elements are expected (elements with a value have no list). */
      text_reported = 1;
      if ((st = scene_ignore(c, f, k, "text content is not used here")) != ISO_OK) return st;
    }
  }
  return ISO_OK;
}

isoStatus scene_isobar_check(const sceneFile *f, xmlNode *n, const char *const *known) {
  for (xmlNode *k = n->children; k; k = k->next) {
    char qb[128], pb[128];
    if (k->type != XML_ELEMENT_NODE) continue;
    const char *qn = scene_qname(k, qb, (int)sizeof qb);
    if (strncmp(qn, "isobar:", 7) == 0 && !listed(known, qn))
      return scene_fail(f, k, ISO_ERR_INVALID, "<%s> does not belong in <%s>", qn, scene_qname(n, pb, (int)sizeof pb));
  }
  return ISO_OK;
}

void scene_count_visual(sceneCtx *c, const sceneFile *f, xmlNode *n) {
  if (scene_is(n, "material")) c->nmaterial++;
  if (c->nvisual++ == 0) {
    c->visual_file = f;
    c->visual_line = scene_line(n);
  }
}

typedef struct keyedLine {
  long long key;
  int at; /* position before sorting: equal keys keep their order */
  char *line;
} keyedLine;

static int by_key(const void *pa, const void *pb) {
  const keyedLine *a = (const keyedLine *)pa, *b = (const keyedLine *)pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->at > b->at) - (a->at < b->at);
}

isoStatus scene_report_finish(sceneCtx *c) {
  isoLoadReport *r = c->report;
  isoStatus st;
  for (int i = 0; i < c->mem.nnote; ++i) {
    const sceneNote *n = &c->mem.notes[i];
    if ((st = add_keyed(r, n->line, (long long)n->file << 32 | (long long)n->at)) != ISO_OK) return st;
  }
  /* Parsers check a parent's children before reading them, so lines arrive out of order: put
   * them in document order, file by file. A stable sort in n log n: a scene may hold millions
   * of ignored elements. */
  if (r->count > 1) {
    keyedLine *k = (keyedLine *)malloc((size_t)r->count * sizeof *k);
    if (!k) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
    for (int i = 0; i < r->count; ++i) k[i] = (keyedLine){r->key[i], i, r->lines[i]};
    qsort(k, (size_t)r->count, sizeof *k, by_key);
    for (int i = 0; i < r->count; ++i) {
      r->key[i] = k[i].key;
      r->lines[i] = k[i].line;
    }
    free(k);
  }
  if (c->nvisual == 0) return ISO_OK;
  char buf[1400], materials[64] = "";
  if (c->nmaterial)
    snprintf(materials, sizeof materials, ", %d of them <material>", c->nmaterial);
  snprintf(buf, sizeof buf, "%s:%d: <visual> ignored (%d visual element%s in all%s: visual geometry is not simulated)",
           c->visual_file->path, c->visual_line, c->nvisual, c->nvisual == 1 ? "" : "s", materials);
  return scene_report_add(c->report, buf);
}
