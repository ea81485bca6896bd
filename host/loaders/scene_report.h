/* Internal: the load report (scene_report.c): what a file says that the load does not use,
 * one line each, or in strict mode an error. */
#ifndef ISO_HOST_SCENE_REPORT_H
#define ISO_HOST_SCENE_REPORT_H

#include "host/loaders/scene_desc.h"

/* Report element n as ignored, for `why`: a line "file:line: <element> ignored (why)", or
 * with strict, ISO_ERR_UNSUPPORTED with that element named. */
isoStatus scene_ignore(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *why);
/* The same for attribute `attr` of element n. */
isoStatus scene_ignore_attr(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, const char *why);

/* Report every element child of n whose name is not in `elements` and every attribute not in
 * `attrs` (NULL-terminated lists; either may be NULL: none known). Comments and white space are fine; other text is
 * reported too. */
isoStatus scene_check(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *const *elements,
                      const char *const *attrs);

/* isobar's namespace is its own: an isobar: child of n not in `known` is a mistake (a misspelt
 * weld would weld nothing, a misspelt pad sense nothing), so it is an ISO_ERR_INVALID naming
 * the child, not a reported line. Other children are left to scene_check. */
isoStatus scene_isobar_check(const sceneFile *f, xmlNode *n, const char *const *known);

/* Count a <visual> (or URDF <material>) for the one summary line. */
void scene_count_visual(sceneCtx *c, const sceneFile *f, xmlNode *n);

/* Add the summary lines at the end of a load. */
isoStatus scene_report_finish(sceneCtx *c);

/* A new empty report, and adding a line to one (copied). */
isoStatus scene_report_new(isoLoadReport **out);
isoStatus scene_report_add(isoLoadReport *r, const char *line);

#endif
