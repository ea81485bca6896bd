/* Internal: Drake's collision filter groups (scene_filter.c): read from SDFormat <model>s and
 * URDF <robot>s into the description, applied as pair exclusions once the model's geometries
 * exist. */
#ifndef ISO_HOST_SCENE_FILTER_H
#define ISO_HOST_SCENE_FILTER_H

#include "host/loaders/scene_desc.h"

/* <drake:collision_filter_group> n of the model whose scoped name is `scope` ("" for none):
 * its members and ignored groups, names relative to that model. `urdf`: names are in
 * attributes (URDF) rather than element text (SDFormat). */
isoStatus scene_filter_group(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *scope, int urdf);

/* Resolve every group's names and exclude the pairs the groups ask for from model m: geom_id
 * (per scene geometry: its model geometry, -1 when none was added) and geom_body (its body). */
isoStatus scene_filter_apply(const sceneCtx *c, isoModel *m, const int *geom_id, const int *geom_body);

#endif
