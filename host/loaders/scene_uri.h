/* Internal: uris of scene files (scene_uri.c): relative and absolute paths, file://, and ROS
 * package uris, package://name/path and model://name/path (Drake resolves both schemes alike,
 * through its package map). Over the XML layer; knows nothing of the description. */
#ifndef ISO_HOST_SCENE_URI_H
#define ISO_HOST_SCENE_URI_H

#include "host/loaders/scene_xml.h"

/* A package found on the way: its name and root folder (the folder of its package.xml). */
typedef struct scenePackage {
  const char *name;
  const char *dir;
  struct scenePackage *next;
} scenePackage;

/* How a load finds packages (see isoLoadOptions.package_path in include/isobar/scene.h). The
 * folders of the option and of ISOBAR_PACKAGE_PATH are crawled once, when a package uri first
 * needs them; what is found is kept for the rest of the load (in its sceneMem). */
typedef struct scenePackages {
  const char *option;      /* isoLoadOptions.package_path, or NULL */
  int crawled;             /* the folders were crawled */
  scenePackage *found;     /* from the crawl, in search order */
} scenePackages;

/* Resolve a uri found in element n of file f to a path and check that it exists: a path
 * relative to f's folder, an absolute one, file://, or package:// and model:// through `pk`.
 * ISO_ERR_IO naming the element when the file cannot be found or a package is unknown (the
 * message names the package and where it was looked for), ISO_ERR_UNSUPPORTED for other
 * schemes (http://, ...). */
isoStatus scene_resolve_uri(sceneMem *m, scenePackages *pk, const sceneFile *f, xmlNode *n, const char *uri,
                            char **path);

/* 1 when `path` ends with `ext` (".obj"), ignoring case. */
int scene_has_ext(const char *path, const char *ext);

#endif
