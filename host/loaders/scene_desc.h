/* Internal: the description a scene load builds (scene_desc.c), over the XML layer.
 *
 * A load runs in three stages over one sceneCtx:
 *   1. a format parser (scene_sdf.c, scene_urdf.c) reads the XML (scene_xml.h) into a plain
 *      description: links with their world pose and mass properties, collision geometries
 *      with their pose in their link and their proximity properties (scene_props.c), and
 *      fixed joints. Elements it does not use go to the report (scene_report.c).
 *   2. scene_build (scene_build.c) merges links joined by fixed joints, welds what is fixed to
 *      the world, and adds bodies and geometries to a new model in document order.
 *   3. the model is compiled.
 * Nothing here outlives the load except the model and the report. */
#ifndef ISO_HOST_SCENE_DESC_H
#define ISO_HOST_SCENE_DESC_H

#include "host/loaders/scene_xml.h"
#include "host/model/name_map.h"
#include "isobar/geometry.h"
#include "isobar/scene.h"
#include "kernels/math/transform.h"

/* A link as the file describes it, before fixed joints are merged. */
typedef struct sceneLink {
  const char *name;      /* scoped name, "model::link" */
  const sceneFile *file; /* where the <link> is */
  int line;
  int inertial_line;     /* line of its <inertial>, or of the <link> when it has none */
  double mass;           /* kg, finite, >= 0 */
  double com[3];         /* centre of mass in the link frame L, m */
  double inertia[6];     /* about the COM in L's axes: Ixx Iyy Izz Ixy Ixz Iyz, kg m² */
  xform X_WL;            /* initial pose in the world (SDFormat: set once frames resolve) */
  int welded;            /* 1: part of the world (static model, URDF "world" link) */
  int frame;             /* SDFormat: its frame in the parser's frame graph; -1 otherwise */
} sceneLink;

/* A collision geometry of a link. */
typedef struct sceneGeom {
  int link;              /* index in sceneCtx.links */
  xform X_LG;            /* pose in the link frame (SDFormat: set once frames resolve) */
  isoGeometryDef def;    /* shape, size, mesh, properties; name and mesh_file are owned by the
                            context; body and pose are filled by scene_build */
  const sceneFile *file; /* where the <collision> is */
  int line;
  /* SDFormat only: the pose is given relative to frame `rel_to` of model scope `rel_scope`
   * (NULL: the link frame). */
  const char *rel_to;
  int rel_scope;
} sceneGeom;

/* A fixed joint (every other kind is rejected by the parsers). */
typedef struct sceneJoint {
  const char *name;
  int parent;            /* link index, or -1 for the world */
  int child;             /* link index */
  const sceneFile *file;
  int line;
} sceneJoint;

/* Everything one load owns. */
typedef struct sceneCtx {
  isoLoadOptions opt;
  isoLoadReport *report;
  sceneMem mem;          /* the parsed files and every string and block of the load */
  sceneLink *links;      /* (nlink) in document order */
  int nlink, link_cap;
  sceneGeom *geoms;      /* (ngeom) in document order */
  int ngeom, geom_cap;
  nameMap geom_names;    /* every name scene_geometry_name gave, for making new ones unique */
  sceneJoint *joints;    /* (njoint) */
  int njoint, joint_cap;
  double gravity[3];     /* world gravity, m/s² (default Drake's (0, 0, -9.81)) */
  double time_step;      /* the scene's time step, s; 0 when it gives none */
  int nvisual;           /* <visual> and URDF <material> elements seen, for the summary */
  int nmaterial;         /* of which URDF <material>s */
  const sceneFile *visual_file;
  int visual_line;       /* where the first one is */
} sceneCtx;

/* Append an entry to the description; *out points at it (zeroed). */
isoStatus scene_new_link(sceneCtx *c, sceneLink **out, int *index);
isoStatus scene_new_geom(sceneCtx *c, sceneGeom **out);
isoStatus scene_new_joint(sceneCtx *c, sceneJoint **out);

/* A geometry definition with the parsers' defaults: the API's (Drake's) except friction,
 * which Drake's parsers set to 1.0 static and dynamic when the file gives none. */
isoGeometryDef scene_default_geometry(void);

/* The scoped name of a new collision of link `link`: "<link name>::<name>", or with no name
 * given, "<link name>::<shape>" made unique among the link's geometries ("box", "box1", ...),
 * as Drake names unnamed URDF geometries. NULL when out of memory. */
char *scene_geometry_name(sceneCtx *c, int link, const char *name, isoShape shape);

/* R = Rz(yaw)·Ry(pitch)·Rx(roll): SDFormat's and URDF's fixed-axis roll-pitch-yaw. */
quat scene_rpy(double roll, double pitch, double yaw);

/* The inertia (Ixx Iyy Izz Ixy Ixz Iyz) I_B re-expressed in frame A: R_AB I_B R_ABᵀ. */
void scene_rotate_inertia(quat q_AB, const double *I_B, double *I_A);

#endif
