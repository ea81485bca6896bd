/* Scene files, the XML layer: memory of a load, reading XML with libxml2 (errors captured with
 * their line instead of printed), names and numbers (uris are scene_uri.c's). Every failure
 * names the file, the line and the element, so a user can go straight to the mistake. A leaf: nothing here knows
 * the description the parsers build (scene_desc.c). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

#include "host/base/error.h"
#include "host/loaders/scene_xml.h"

/* ---- memory ------------------------------------------------------------------------------ */

void *scene_alloc(sceneMem *m, size_t size) {
  if (m->nalloc == m->alloc_cap) {
    int cap = m->alloc_cap ? 2 * m->alloc_cap : 64;
    void **a = (void **)realloc(m->allocs, (size_t)cap * sizeof *a);
    if (!a) return NULL;
    m->allocs = a;
    m->alloc_cap = cap;
  }
  void *p = calloc(1, size ? size : 1);
  if (p) m->allocs[m->nalloc++] = p;
  return p;
}

char *scene_strdup(sceneMem *m, const char *s) {
  if (!s) return NULL;
  char *d = (char *)scene_alloc(m, strlen(s) + 1);
  if (d) strcpy(d, s);
  return d;
}

char *scene_printf(sceneMem *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *d = (char *)scene_alloc(m, (size_t)n + 1);
  if (!d) return NULL;
  va_start(ap, fmt);
  vsnprintf(d, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return d;
}

void scene_mem_free(sceneMem *m) {
  for (int i = 0; i < m->nfile; ++i) xmlFreeDoc(m->files[i]->doc);
  free(m->files);
  for (int i = 0; i < m->nalloc; ++i) free(m->allocs[i]);
  free(m->allocs);
  free(m->notes);
}

/* ---- XML ---------------------------------------------------------------------------------- */

/* Every diagnostic of a parse lands in this thread's capture, so nothing is printed and two
 * threads loading at once do not mix their messages. libxml2 2.9 reports some errors (encoding
 * conversion among them) without a parser context, through the thread's structured handler
 * rather than the context's: both are pointed here for the length of a parse. */
typedef struct xmlCapture {
  sceneMem *mem;     /* where warnings go */
  const char *path;
  int have;
  int line;
  char msg[256];
  char generic[256]; /* the first unstructured message, "" when none */
} xmlCapture;

static _Thread_local xmlCapture *tl_capture;

/* A warning does not fail the load but is not dropped either: it becomes a report line. Past
 * 100 the rest are dropped, so a hostile file cannot grow the report without end. Memory
 * failure loses the note, nothing else. */
static void add_note(xmlCapture *cap, const xmlError *err) {
  sceneMem *m = cap->mem;
  if (m->nnote >= 100) return;
  if (m->nnote == m->note_cap) {
    int nc = m->note_cap ? 2 * m->note_cap : 8;
    sceneNote *n = (sceneNote *)realloc(m->notes, (size_t)nc * sizeof *n);
    if (!n) return;
    m->notes = n;
    m->note_cap = nc;
  }
  char msg[256];
  snprintf(msg, sizeof msg, "%s", err->message ? err->message : "");
  size_t len = strlen(msg);
  while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' ')) msg[--len] = '\0';
  char *line = scene_printf(m, "%s:%d: XML warning: %s", cap->path, err->line, msg);
  if (!line) return;
  m->notes[m->nnote].line = line;
  m->notes[m->nnote].file = m->nfile; /* the index the file gets once parsed */
  m->notes[m->nnote].at = err->line;
  m->nnote++;
}

/* libxml2 2.12 made the handler's error const. */
#if LIBXML_VERSION >= 21200
static void capture_error(void *data, const xmlError *err) {
#else
static void capture_error(void *data, xmlErrorPtr err) {
#endif
  (void)data;
  xmlCapture *cap = tl_capture;
  if (cap && err && err->level == XML_ERR_WARNING) {
    add_note(cap, err);
    return;
  }
  /* Namespace complaints (a drake: prefix without its xmlns declaration) do not make a file
   * malformed, and Drake reads such files. Keep the first real error. */
  if (!cap || !err || cap->have || err->level < XML_ERR_ERROR || err->domain == XML_FROM_NAMESPACE)
    return;
  cap->have = 1;
  cap->line = err->line;
  snprintf(cap->msg, sizeof cap->msg, "%s", err->message ? err->message : "malformed XML");
  size_t n = strlen(cap->msg);
  while (n > 0 && (cap->msg[n - 1] == '\n' || cap->msg[n - 1] == ' ')) cap->msg[--n] = '\0';
}

/* Unstructured messages (printf-style, sometimes in pieces) accompany a structured error in
 * 2.9 and are not errors by themselves; the first is kept, for a failure that has no other. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void capture_generic(void *data, const char *fmt, ...) {
  (void)data;
  xmlCapture *cap = tl_capture;
  if (!cap || cap->generic[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cap->generic, sizeof cap->generic, fmt, ap);
  va_end(ap);
  size_t n = strlen(cap->generic);
  while (n > 0 && (cap->generic[n - 1] == '\n' || cap->generic[n - 1] == ' ')) cap->generic[--n] = '\0';
}

static char *dirname_of(sceneMem *m, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return scene_strdup(m, ".");
  if (slash == path) return scene_strdup(m, "/");
  char *d = scene_strdup(m, path);
  if (d) d[slash - path] = '\0';
  return d;
}

/* What a file that is not a regular one is, for the message. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/* Open a scene file for reading, refusing anything but a regular file: a FIFO or a device
 * would block the load forever or feed it without end. The stat comes first so a FIFO is never
 * opened; O_NONBLOCK covers a FIFO swapped in between, and the fstat checks what was opened. */
static isoStatus open_regular(const char *path, const char *where, int *fd_out) {
  struct stat sb;
  if (stat(path, &sb) != 0)
    return iso_fail(ISO_ERR_IO, "%scannot open scene file '%s': %s", where, path, strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return iso_fail(ISO_ERR_IO, "%scannot open scene file '%s': it is %s, not a regular file", where, path,
                    file_kind(sb.st_mode));
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return iso_fail(ISO_ERR_IO, "%scannot open scene file '%s': %s", where, path, strerror(errno));
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return iso_fail(ISO_ERR_IO, "%scannot open scene file '%s': it changed into %s while opened", where, path,
                    file_kind(sb.st_mode));
  }
  *fd_out = fd;
  return ISO_OK;
}

/* Elements in a tree, stopping once past `limit` (the count is only compared with it). */
static long count_elements(xmlNode *n, long limit) {
  long count = 0;
  for (; n && count <= limit; n = n->next)
    if (n->type == XML_ELEMENT_NODE) count += 1 + count_elements(n->children, limit - count);
  return count;
}

static xmlDoc *parse_fd(int fd, const char *path, xmlCapture *cap) {
  xmlParserCtxtPtr pc = xmlNewParserCtxt();
  if (!pc) return NULL;
  pc->sax->serror = capture_error;
  xmlCapture *saved = tl_capture;
  xmlStructuredErrorFunc saved_serror = xmlStructuredError;
  void *saved_sdata = xmlStructuredErrorContext;
  xmlGenericErrorFunc saved_generic = xmlGenericError;
  void *saved_gdata = xmlGenericErrorContext;
  tl_capture = cap;
  xmlSetStructuredErrorFunc(NULL, capture_error);
  xmlSetGenericErrorFunc(NULL, capture_generic);
  /* NONET: a scene never reaches the network; no entity substitution, so no external
   * entity is ever read. BIG_LINES: true line numbers past 65535. */
  xmlDoc *doc = xmlCtxtReadFd(pc, fd, path, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
  xmlSetGenericErrorFunc(saved_gdata, saved_generic);
  xmlSetStructuredErrorFunc(saved_sdata, saved_serror);
  tl_capture = saved;
  xmlFreeParserCtxt(pc);
  return doc;
}

isoStatus scene_open(sceneMem *m, const char *path, const sceneFile *from, xmlNode *from_node,
                     sceneFile **out) {
  char where[1200] = "";
  if (from && from_node)
    snprintf(where, sizeof where, "%s:%d: ", from->path, scene_line(from_node));
  int fd = -1;
  isoStatus st = open_regular(path, where, &fd);
  if (st != ISO_OK) return st;
  xmlCapture cap;
  memset(&cap, 0, sizeof cap);
  cap.mem = m;
  cap.path = path;
  xmlDoc *doc = parse_fd(fd, path, &cap);
  close(fd);
  /* libxml2 recovers from some errors (bad bytes in a declared encoding) and returns a partial
   * or empty document: any error makes the file malformed, whatever came back. */
  if (!doc || cap.have) {
    if (doc) xmlFreeDoc(doc);
    if (cap.have && cap.line > 0)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: malformed XML: %s", path, cap.line, cap.msg);
    if (cap.have) return iso_fail(ISO_ERR_PARSE, "%s: malformed XML: %s", path, cap.msg);
    if (cap.generic[0]) return iso_fail(ISO_ERR_PARSE, "%s: malformed XML: %s", path, cap.generic);
    return iso_fail(ISO_ERR_PARSE, "%s: malformed XML", path);
  }
  if (!xmlDocGetRootElement(doc)) {
    xmlFreeDoc(doc);
    return iso_fail(ISO_ERR_PARSE, "%s: malformed XML: no root element", path);
  }
  long limit = ISO_SCENE_MAX_ELEMENTS - m->nelement;
  long nel = count_elements(xmlDocGetRootElement(doc), limit);
  if (nel > limit) {
    xmlFreeDoc(doc);
    return iso_fail(ISO_ERR_CAPACITY, "%s%s: the scene passes the limit of %d XML elements in one load", where, path,
                    ISO_SCENE_MAX_ELEMENTS);
  }
  m->nelement += nel;
  sceneFile *f = (sceneFile *)scene_alloc(m, sizeof *f);
  if (f) {
    f->path = scene_strdup(m, path);
    f->dir = dirname_of(m, path);
  }
  if (m->nfile == m->file_cap) {
    int cap2 = m->file_cap ? 2 * m->file_cap : 8;
    sceneFile **fs = (sceneFile **)realloc(m->files, (size_t)cap2 * sizeof *fs);
    if (fs) {
      m->files = fs;
      m->file_cap = cap2;
    }
  }
  if (!f || !f->path || !f->dir || m->nfile == m->file_cap) {
    xmlFreeDoc(doc);
    return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  }
  f->doc = doc;
  f->index = m->nfile;
  m->files[m->nfile++] = f;
  *out = f;
  return ISO_OK;
}

const char *scene_qname(xmlNode *n, char *buf, int len) {
  const char *name = n && n->name ? (const char *)n->name : "?";
  if (n && n->ns && n->ns->prefix) {
    snprintf(buf, (size_t)len, "%s:%s", (const char *)n->ns->prefix, name);
    return buf;
  }
  return name;
}

int scene_is(xmlNode *n, const char *qname) {
  char buf[128];
  return n && n->type == XML_ELEMENT_NODE && strcmp(scene_qname(n, buf, (int)sizeof buf), qname) == 0;
}

xmlNode *scene_child(xmlNode *n, const char *qname) {
  for (xmlNode *k = n ? n->children : NULL; k; k = k->next)
    if (scene_is(k, qname)) return k;
  return NULL;
}

int scene_line(xmlNode *n) { return n ? (int)xmlGetLineNo(n) : 0; }

char *scene_attr(sceneMem *m, xmlNode *n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v) return NULL;
  char *s = scene_strdup(m, (const char *)v);
  xmlFree(v);
  return s ? s : scene_strdup(m, "");
}

char *scene_text(sceneMem *m, xmlNode *n) {
  xmlChar *v = xmlNodeGetContent(n);
  const char *s = v ? (const char *)v : "";
  while (isspace((unsigned char)*s)) ++s;
  size_t len = strlen(s);
  while (len > 0 && isspace((unsigned char)s[len - 1])) --len;
  char *d = (char *)scene_alloc(m, len + 1);
  if (d) memcpy(d, s, len);
  if (v) xmlFree(v);
  return d;
}

isoStatus scene_fail(const sceneFile *f, xmlNode *n, isoStatus st, const char *fmt, ...) {
  char msg[1024], buf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *qn = scene_qname(n, buf, (int)sizeof buf);
  xmlChar *name = n ? xmlGetProp(n, (const xmlChar *)"name") : NULL;
  isoStatus r;
  if (name)
    r = iso_fail(st, "%s:%d: <%s name='%s'>: %s", f ? f->path : "?", scene_line(n), qn,
                 (const char *)name, msg);
  else
    r = iso_fail(st, "%s:%d: <%s>: %s", f ? f->path : "?", scene_line(n), qn, msg);
  if (name) xmlFree(name);
  return r;
}

isoStatus scene_numbers(const sceneFile *f, xmlNode *n, const char *what, const char *s, int count,
                        double *out) {
  const char *p = s ? s : "";
  for (int i = 0; i < count; ++i) {
    while (isspace((unsigned char)*p)) ++p;
    if (!*p)
      return scene_fail(f, n, ISO_ERR_PARSE, "%s '%s' has %d value%s, expected %d", what, s ? s : "", i,
                        i == 1 ? "" : "s", count);
    char *end = NULL;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || (*end && !isspace((unsigned char)*end)) || !isfinite(v)) {
      int len = 0;
      while (p[len] && !isspace((unsigned char)p[len]) && len < 60) ++len;
      return scene_fail(f, n, ISO_ERR_PARSE, "%s: '%.*s' is not a finite number", what, len, p);
    }
    out[i] = v;
    p = end;
  }
  while (isspace((unsigned char)*p)) ++p;
  if (*p)
    return scene_fail(f, n, ISO_ERR_PARSE, "%s '%s' has more than the %d value%s expected", what, s, count,
                      count == 1 ? "" : "s");
  return ISO_OK;
}

isoStatus scene_text_numbers(sceneMem *m, const sceneFile *f, xmlNode *n, int count, double *out) {
  char *t = scene_text(m, n);
  if (!t) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  char buf[128];
  return scene_numbers(f, n, scene_qname(n, buf, (int)sizeof buf), t, count, out);
}

isoStatus scene_bool(const sceneFile *f, xmlNode *n, const char *what, const char *s, int *out) {
  if (s && (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)) {
    *out = 1;
    return ISO_OK;
  }
  if (s && (strcmp(s, "false") == 0 || strcmp(s, "0") == 0)) {
    *out = 0;
    return ISO_OK;
  }
  return scene_fail(f, n, ISO_ERR_PARSE, "%s: '%s' is not a boolean (true, false, 1 or 0)", what, s ? s : "");
}
