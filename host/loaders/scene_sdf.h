/* Internal: what the SDFormat parser (scene_sdf.c) shares with its element readers
 * (scene_sdf_elements.c) and its joint reader (scene_sdf_joint.c): the frame graph of the
 * parse and the joints as read. */
#ifndef ISO_HOST_SCENE_SDF_H
#define ISO_HOST_SCENE_SDF_H

#include "host/loaders/scene_desc.h"
#include "host/model/name_map.h"

/* A pose as written: X relative to frame `rel_to` (NULL: the element's default frame),
 * resolved once every frame is known. */
typedef struct scenePose {
  xform X;
  const char *rel_to;
  const sceneFile *file; /* where it is written, for messages */
  xmlNode *node;
} scenePose;

/* <pose>: "x y z roll pitch yaw" (radians, or degrees with degrees="true"), or with
 * rotation_format="quat_xyzw" "x y z qx qy qz qw"; empty is the identity. */
isoStatus scene_sdf_pose(sceneCtx *c, const sceneFile *f, xmlNode *n, scenePose *out);
/* <inertial> of link `link` (index in c->links): mass, centre of mass, inertia in the link. */
isoStatus scene_sdf_inertial(sceneCtx *c, const sceneFile *f, xmlNode *n, int link);
/* <collision> of link `link` in model scope `scope`: appends a sceneGeom (none for <empty/>). */
isoStatus scene_sdf_collision(sceneCtx *c, const sceneFile *f, xmlNode *n, int scope, int link);

/* The deformable body of <link> n (it holds <drake:deformable_properties>) of model scope
 * `scope`, named `name` and placed by frame `frame`, as Drake's
 * AddDeformableLinkFromSpecification reads it, with its <isobar:weld>s: appends a
 * sceneDeformable (scene_sdf_deformable.c). */
isoStatus scene_sdf_deformable(sceneCtx *c, const sceneFile *f, xmlNode *n, int scope, const char *name, int frame);

/* The shape of <geometry> n into g (shape, size, mesh); *empty for <empty/>; *X_GC the shape's
 * canonical frame in the geometry frame (not the identity only for a plane). */
isoStatus scene_sdf_geometry(sceneCtx *c, const sceneFile *f, xmlNode *n, isoGeometryDef *g, xform *X_GC,
                             int *empty);

/* A <joint> as read, before the frame graph resolves it. */
typedef struct sdfJointSpec {
  sceneJoint j;          /* type, axis as written, limits, damping; frames and links later */
  const char *axis_in;   /* the frame the axis is expressed in; NULL: the joint frame */
  xmlNode *axis_node;    /* <xyz> (or <axis>), for messages */
  int actuated;          /* an actuator is made: a 1-dof joint with an effort limit != 0 */
  sceneActuator act;     /* its parameters; name and joint filled later */
  xmlNode *mimic;        /* <drake:mimic>, or NULL */
  const char *mimic_joint;
  double mimic_multiplier, mimic_offset;
} sdfJointSpec;

/* ---- the parser's frame graph (scene_sdf.c) ---------------------------------------------- */

enum { F_WORLD, F_MODEL, F_LINK, F_FRAME, F_JOINT, F_DEFORMABLE /* a deformable link */ };

typedef struct sdfFrame {
  const char *name;      /* local name in `scope`; a model frame is looked up via its scope */
  int kind;              /* F_* */
  int scope;             /* the model scope the frame belongs to */
  int rel_scope;         /* the scope `rel_to` and `def_rel` are looked up in */
  const char *rel_to;    /* <pose relative_to>, NULL when absent */
  const char *def_rel;   /* the default when absent; NULL means rel_scope's model frame */
  xform X;               /* pose relative to that frame */
  int link;              /* F_LINK: index in ctx links */
  int joint;             /* F_JOINT: index in the parser's joints */
  const sceneFile *file; /* where it is declared */
  xmlNode *node;
  int state;             /* 0 unresolved, 1 resolving (a cycle when met again), 2 resolved */
  xform X_W;             /* resolved pose in the world */
} sdfFrame;

typedef struct sdfScope {
  const char *name;      /* the model's name; "" for the world */
  const char *path;      /* scoped name "outer::inner"; "" for the world */
  int parent;            /* parent scope, -1 for the world */
  int is_static;
  int frame;             /* its model frame */
} sdfScope;

typedef struct sdfJoint {
  int scope;
  const char *parent, *child;
  const sceneFile *file;
  xmlNode *node;
  int frame;             /* its frame J */
  int index;             /* in ctx joints, once bound */
  sdfJointSpec spec;     /* type, axis, limits, actuator, mimic as read */
} sdfJoint;

typedef struct sdfParser {
  sceneCtx *c;
  sdfScope *scopes;
  int nscope, scope_cap;
  sdfFrame *frames;
  int nframe, frame_cap;
  sdfJoint *joints;
  int njoint, joint_cap;
  nameMap frame_names; /* (scope, name) -> frame, links, joints and <frame>s only */
  nameMap scope_names; /* (parent scope, name) -> nested model scope */
  int depth; /* include nesting */
  int nincl; /* includes followed, against ISO_SCENE_MAX_INCLUDES */
} sdfParser;

/* The frame `name` means in model scope `scope` ("world", "__model__", a frame of the scope, a
 * nested model's frame, "inner::name" descending), or -1. */
int scene_sdf_lookup(const sdfParser *P, int scope, const char *name);

/* Once every link is known: each <isobar:body> of every deformable's welds names a link (or
 * the world), looked up as a joint's parent is (scene_sdf_deformable.c). */
isoStatus scene_sdf_bind_welds(const sdfParser *P);

/* ---- joints (scene_sdf_joint.c) ----------------------------------------------------------- */

/* Read <joint> n named `name` of type `type` (both present): everything but its frames and
 * links. Unsupported types fail naming the type. */
isoStatus scene_sdf_joint(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *name, const char *type,
                          sdfJointSpec *out);

/* Once every frame is resolved: joint j's links, frames and axis become a sceneJoint (and its
 * actuator); then, once every joint is bound, its drake:mimic a sceneCoupler. */
isoStatus scene_sdf_bind_joint(sdfParser *P, sdfJoint *j);
isoStatus scene_sdf_bind_mimic(sdfParser *P, const sdfJoint *j);

#endif
