/* Internal: the XML layer of the scene loaders (scene_xml.c), a leaf: it includes no other
 * loader header, and nothing in it knows the description the parsers build (scene_desc.h).
 * libxml2 documents, the memory of a load, names and numbers; every failure names the
 * file, the line and the element. */
#ifndef ISO_HOST_SCENE_XML_H
#define ISO_HOST_SCENE_XML_H

#include <stddef.h>

#include <libxml/tree.h>

#include "isobar/status.h"

/* Limits of one load, generous for real robots and there so that a hostile or broken scene
 * fails in seconds with a message instead of exhausting time or memory. The largest Drake
 * example scenes hold a few thousand elements and tens of includes; 10 million elements is a
 * 100,000-link scene with its collisions many times over (and about 2 GB of libxml2 trees), and
 * 10,000 includes is a hundred robots of a hundred parts each. Without the include cap a chain
 * of 30 small files that each include the next twice asks for 2^30 parses. */
#define ISO_SCENE_MAX_ELEMENTS 10000000 /* XML elements over every file parsed */
#define ISO_SCENE_MAX_INCLUDES 10000    /* <include>s followed */

/* One parsed file. Its document stays alive until the load ends: nodes point into it. */
typedef struct sceneFile {
  char *path;  /* as opened: relative to the working directory or absolute */
  char *dir;   /* its folder, against which relative uris resolve ("." when none) */
  xmlDoc *doc;
  int index;   /* in sceneMem.files: the order files were opened in */
} sceneFile;

/* A libxml2 warning: "file:line: XML warning: message", and where it points (the index the
 * file has in sceneMem.files, and the line) so the report can put it in document order. */
typedef struct sceneNote {
  char *line;
  int file, at;
} sceneNote;

/* What a load owns below its description: every file parsed (their documents stay alive until
 * the load ends) and every string and block handed out. Freed in one go by scene_mem_free. */
typedef struct sceneMem {
  sceneFile **files;     /* (nfile) every file opened, includes too */
  int nfile, file_cap;
  void **allocs;         /* (nalloc) every string and block of the load, freed at the end */
  int nalloc, alloc_cap;
  long nelement;         /* XML elements in every file parsed, against ISO_SCENE_MAX_ELEMENTS */
  sceneNote *notes;      /* (nnote) libxml2's warnings, for the load report, at most 100 */
  int nnote, note_cap;
} sceneMem;

/* ---- memory ------------------------------------------------------------------------------- */

/* Zeroed memory or a copy of a string, owned by the load; NULL only when out of memory (the
 * callers turn that into ISO_ERR_NOMEM). */
void *scene_alloc(sceneMem *m, size_t size);
char *scene_strdup(sceneMem *m, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
char *scene_printf(sceneMem *m, const char *fmt, ...);

/* Free every document and block of the load (the sceneMem itself is the caller's). */
void scene_mem_free(sceneMem *m);

/* ---- XML ---------------------------------------------------------------------------------- */

/* Open and parse an XML file. ISO_ERR_IO when it cannot be read or is not a regular file (a
 * FIFO or a device would block or never end), ISO_ERR_PARSE with the parser's own message and
 * line when it is malformed (any parser error, also one libxml2 recovers from, and a document
 * without a root), ISO_ERR_CAPACITY past ISO_SCENE_MAX_ELEMENTS. Nothing is printed.
 * `from`/`from_node` (may be NULL) say which element asked for it, for the message. */
isoStatus scene_open(sceneMem *m, const char *path, const sceneFile *from, xmlNode *from_node,
                     sceneFile **out);

/* The element's qualified name as written ("link", "drake:mu_static"), whether or not the
 * file declares the drake namespace. */
const char *scene_qname(xmlNode *n, char *buf, int len);
int scene_is(xmlNode *n, const char *qname);
/* First element child named `qname`, or NULL. */
xmlNode *scene_child(xmlNode *n, const char *qname);
int scene_line(xmlNode *n);

/* An attribute or the element's whitespace-trimmed text, copied into the load; NULL when the
 * attribute is absent (text is "" when empty). */
char *scene_attr(sceneMem *m, xmlNode *n, const char *name);
char *scene_text(sceneMem *m, xmlNode *n);

/* Fail with a message "file:line: <element>: what" (the element named with its name
 * attribute when it has one). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
isoStatus scene_fail(const sceneFile *f, xmlNode *n, isoStatus st, const char *fmt, ...);

/* Parse exactly `count` finite numbers separated by white space from `s` (an attribute or
 * text of element n, named `what` in the message). ISO_ERR_PARSE otherwise. */
isoStatus scene_numbers(const sceneFile *f, xmlNode *n, const char *what, const char *s, int count,
                        double *out);
/* The text of element n as `count` numbers. */
isoStatus scene_text_numbers(sceneMem *m, const sceneFile *f, xmlNode *n, int count, double *out);
/* A boolean: true/false/1/0. */
isoStatus scene_bool(const sceneFile *f, xmlNode *n, const char *what, const char *s, int *out);

#endif
