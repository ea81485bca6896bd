/* Scene files, uris: paths, file:// and ROS package uris.
 *
 * package://name/rest and model://name/rest (Drake treats the two schemes alike) resolve to
 * <root of package name>/rest, the root found, first match winning, in
 *   1. the name=dir entries of isoLoadOptions.package_path, in order;
 *   2. the folders above the referring file: the nearest one holding a package.xml whose
 *      <name> is the package (so a package's own files find it with no setup, as Drake's
 *      parser finds the packages upstream of the file it loads);
 *   3. the plain folders of isoLoadOptions.package_path, then of the ISOBAR_PACKAGE_PATH
 *      environment variable, crawled for package.xml files as ROS crawls ROS_PACKAGE_PATH: a
 *      folder holding a package.xml is a package and is not searched further, hidden folders
 *      are skipped, the crawl goes at most 16 folders deep and visits at most 100,000 folders.
 * ROS_PACKAGE_PATH itself is not read (Drake reads it only when asked to). */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#include "host/base/error.h"
#include "host/loaders/scene_uri.h"

#define CRAWL_DEPTH 16
#define CRAWL_FOLDERS 100000
#define MANIFEST_MAX (1 << 20) /* a package.xml bigger than this is not read */

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

static int is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The <name> of the package.xml in folder `dir`, copied into the load; NULL when there is none
 * or it cannot be read. */
static char *manifest_name(sceneMem *m, const char *dir) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/package.xml", dir) >= (int)sizeof path) return NULL;
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > MANIFEST_MAX) return NULL;
  xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) return NULL;
  char *name = NULL;
  xmlNode *root = xmlDocGetRootElement(doc);
  if (root && xmlStrcmp(root->name, (const xmlChar *)"package") == 0) {
    for (xmlNode *k = root->children; k; k = k->next) {
      if (k->type != XML_ELEMENT_NODE || xmlStrcmp(k->name, (const xmlChar *)"name") != 0) continue;
      xmlChar *t = xmlNodeGetContent(k);
      if (t) {
        const char *s = (const char *)t;
        while (isspace((unsigned char)*s)) ++s;
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1])) --n;
        name = (char *)scene_alloc(m, n + 1);
        if (name) memcpy(name, s, n);
        xmlFree(t);
      }
      break;
    }
  }
  xmlFreeDoc(doc);
  return name;
}

static isoStatus add_found(sceneMem *m, scenePackage ***tail, const char *name, const char *dir) {
  scenePackage *p = (scenePackage *)scene_alloc(m, sizeof *p);
  if (!p) return nomem();
  p->name = name;
  p->dir = scene_strdup(m, dir);
  if (!p->dir) return nomem();
  **tail = p;
  *tail = &p->next;
  return ISO_OK;
}

static isoStatus crawl(sceneMem *m, scenePackages *pk, scenePackage ***tail, const char *dir, int depth,
                       int *visited) {
  if (depth > CRAWL_DEPTH || ++*visited > CRAWL_FOLDERS) return ISO_OK;
  char *name = manifest_name(m, dir);
  if (name && name[0]) return add_found(m, tail, name, dir);
  DIR *d = opendir(dir);
  if (!d) return ISO_OK;
  /* Sorted, so that two packages of one name resolve the same way on every machine. */
  char **subs = NULL;
  int n = 0, cap = 0;
  isoStatus st = ISO_OK;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || !is_dir(path)) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      char **s = (char **)realloc(subs, (size_t)cap * sizeof *s);
      if (!s) {
        st = nomem();
        break;
      }
      subs = s;
    }
    if (!(subs[n++] = scene_strdup(m, path))) {
      st = nomem();
      break;
    }
  }
  closedir(d);
  for (int i = 1; i < n && st == ISO_OK; ++i)
    for (int j = i; j > 0 && strcmp(subs[j - 1], subs[j]) > 0; --j) {
      char *t = subs[j];
      subs[j] = subs[j - 1];
      subs[j - 1] = t;
    }
  for (int i = 0; i < n && st == ISO_OK; ++i) st = crawl(m, pk, tail, subs[i], depth + 1, visited);
  free(subs);
  return st;
}

/* Crawl the plain folders of a colon-separated list (name=dir entries are skipped). */
static isoStatus crawl_list(sceneMem *m, scenePackages *pk, scenePackage ***tail, const char *list,
                            int *visited) {
  isoStatus st = ISO_OK;
  for (const char *s = list; s && *s && st == ISO_OK;) {
    const char *e = strchr(s, ':');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len > 0 && len < PATH_MAX && !memchr(s, '=', len)) {
      char dir[PATH_MAX];
      memcpy(dir, s, len);
      dir[len] = '\0';
      if (is_dir(dir)) st = crawl(m, pk, tail, dir, 0, visited);
    }
    s = e ? e + 1 : s + len;
  }
  return st;
}

/* The root of package `name` (len chars), or NULL. */
static isoStatus find_package(sceneMem *m, scenePackages *pk, const sceneFile *f, const char *name, size_t len,
                              const char **root) {
  *root = NULL;
  /* 1. name=dir entries of the option. */
  for (const char *s = pk->option; s && *s;) {
    const char *e = strchr(s, ':');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    const char *eq = (const char *)memchr(s, '=', n);
    if (eq && (size_t)(eq - s) == len && strncmp(s, name, len) == 0) {
      char *dir = (char *)scene_alloc(m, n - len);
      if (!dir) return nomem();
      memcpy(dir, eq + 1, n - len - 1);
      *root = dir;
      return ISO_OK;
    }
    s = e ? e + 1 : s + n;
  }
  /* 2. Upward from the referring file. */
  char dir[PATH_MAX];
  if (realpath(f->dir, dir)) {
    for (;;) {
      char *mn = manifest_name(m, dir);
      if (mn && strlen(mn) == len && strncmp(mn, name, len) == 0) {
        *root = scene_strdup(m, dir);
        return *root ? ISO_OK : nomem();
      }
      char *slash = strrchr(dir, '/');
      if (!slash || slash == dir) break;
      *slash = '\0';
    }
  }
  /* 3. The crawled folders. */
  if (!pk->crawled) {
    pk->crawled = 1;
    scenePackage **tail = &pk->found;
    int visited = 0;
    isoStatus st = crawl_list(m, pk, &tail, pk->option, &visited);
    if (st == ISO_OK) st = crawl_list(m, pk, &tail, getenv("ISOBAR_PACKAGE_PATH"), &visited);
    if (st != ISO_OK) return st;
  }
  for (const scenePackage *p = pk->found; p; p = p->next)
    if (strlen(p->name) == len && strncmp(p->name, name, len) == 0) {
      *root = p->dir;
      return ISO_OK;
    }
  return ISO_OK;
}

isoStatus scene_resolve_uri(sceneMem *m, scenePackages *pk, const sceneFile *f, xmlNode *n, const char *uri,
                            char **path) {
  const char *rest = uri;
  char *p = NULL;
  if (strncmp(uri, "package://", 10) == 0 || strncmp(uri, "model://", 8) == 0) {
    const char *name = strstr(uri, "://") + 3, *slash = strchr(name, '/');
    size_t len = slash ? (size_t)(slash - name) : strlen(name);
    if (len == 0 || !slash || !slash[1])
      return scene_fail(f, n, ISO_ERR_PARSE, "uri '%s': expected %.*s://<package>/<path>", uri,
                        (int)(name - 3 - uri), uri);
    const char *root;
    isoStatus st = find_package(m, pk, f, name, len, &root);
    if (st != ISO_OK) return st;
    if (!root)
      return scene_fail(f, n, ISO_ERR_IO,
                        "uri '%s': package '%.*s' not found (no package.xml naming it in a folder above "
                        "this file, in isoLoadOptions.package_path or under ISOBAR_PACKAGE_PATH)",
                        uri, (int)len, name);
    p = scene_printf(m, "%s/%s", root, slash + 1);
    if (!p) return nomem();
  } else {
    if (strncmp(uri, "file://", 7) == 0) {
      rest = uri + 7;
    } else {
      const char *scheme = strstr(uri, "://");
      if (scheme)
        return scene_fail(f, n, ISO_ERR_UNSUPPORTED,
                          "uri '%s': the scheme '%.*s://' is not supported (give a path relative to this "
                          "file, an absolute path, file://, package:// or model://)",
                          uri, (int)(scheme - uri), uri);
    }
    if (!*rest) return scene_fail(f, n, ISO_ERR_PARSE, "the uri is empty");
    if (rest[0] == '/' || strcmp(f->dir, ".") == 0)
      p = scene_strdup(m, rest);
    else
      p = scene_printf(m, "%s/%s", f->dir, rest);
    if (!p) return nomem();
  }
  struct stat sb;
  if (stat(p, &sb) != 0)
    return scene_fail(f, n, ISO_ERR_IO, "cannot open '%s' (from uri '%s'): %s", p, uri, strerror(errno));
  *path = p;
  return ISO_OK;
}

int scene_has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  if (n < e) return 0;
  for (size_t i = 0; i < e; ++i)
    if (tolower((unsigned char)path[n - e + i]) != tolower((unsigned char)ext[i])) return 0;
  return 1;
}
