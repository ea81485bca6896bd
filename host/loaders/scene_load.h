/* Internal: the stages of a scene load that iso_scene_load (scene_build.c) runs: a format
 * parser fills the description, the build makes the model. */
#ifndef ISO_HOST_SCENE_LOAD_H
#define ISO_HOST_SCENE_LOAD_H

#include "host/loaders/scene_desc.h"

isoStatus scene_sdf_load(sceneCtx *c, const char *path);
isoStatus scene_urdf_load(sceneCtx *c, const char *path);

/* Parse URDF <robot> element `robot` of file f as a model named `model` (the robot's name when
 * NULL). Links are appended with their pose in the model frame; [*first, *end) are their
 * indices. Used for .urdf files and for URDF files included from SDFormat. */
isoStatus scene_urdf_robot(sceneCtx *c, const sceneFile *f, xmlNode *robot, const char *model,
                           int *first, int *end);

/* Merge, weld and build the compiled model. */
isoStatus scene_build(sceneCtx *c, isoModel **out);

#endif
