/* Internal: what the URDF parser (scene_urdf.c) shares with its joint reader
 * (scene_urdf_joint.c). */
#ifndef ISO_HOST_SCENE_URDF_H
#define ISO_HOST_SCENE_URDF_H

#include "host/loaders/scene_desc.h"
#include "host/model/name_map.h"

/* <origin xyz="..." rpy="..."/>, both optional; the identity for n = NULL. */
isoStatus scene_urdf_origin(sceneCtx *c, const sceneFile *f, xmlNode *n, xform *X);

/* A URDF numeric attribute: *out is left alone when it is absent; *given (may be NULL) says
 * whether it was there. */
isoStatus scene_urdf_number(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, double *out, int *given);

/* The joints of one robot as they are read: local name -> index in c->joints, and each joint's
 * effort limit (Drake keeps it for the transmission that may name the joint). */
typedef struct urdfJoints {
  nameMap names;
  double *effort; /* (n) by index - first */
  int first, n, cap;
} urdfJoints;

/* <joint> of robot `model`: appends a sceneJoint (links: local name -> link index). */
isoStatus scene_urdf_joint(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *model, const nameMap *links,
                           urdfJoints *joints);
/* <mimic> of joint element n, once every joint of the robot is read. */
isoStatus scene_urdf_mimic(sceneCtx *c, const sceneFile *f, xmlNode *n, const urdfJoints *joints);
/* <transmission>: an actuator, by Drake's rule (see scene_urdf_joint.c). */
isoStatus scene_urdf_transmission(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *model,
                                  const urdfJoints *joints);

#endif
