/* Internal: the description a scene load builds (scene_desc.c), over the XML layer.
 *
 * A load runs in three stages over one sceneCtx:
 *   1. a format parser (scene_sdf.c, scene_urdf.c) reads the XML (scene_xml.h) into a plain
 *      description: links with their world pose and mass properties, collision geometries
 *      with their pose in their link and their proximity properties (scene_props.c), and
 *      joints with their actuators and mimic couplings. Elements it does not use go to the
 *      report (scene_report.c).
 *   2. scene_build (scene_build.c) merges links joined by fixed joints, welds what is fixed to
 *      the world, and adds bodies (parents before children), geometries, joints, actuators
 *      and couplers to a new model.
 *   3. the model is compiled.
 * Nothing here outlives the load except the model and the report. */
#ifndef ISO_HOST_SCENE_DESC_H
#define ISO_HOST_SCENE_DESC_H

#include "host/loaders/scene_uri.h"
#include "host/loaders/scene_xml.h"
#include "host/model/name_map.h"
#include "isobar/deformable.h"
#include "isobar/geometry.h"
#include "isobar/joint.h"
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

/* An <isobar:tactile_pad> of a collision: a taxel grid on its geometry (iso_model_add_tactile_pad),
 * its frame P fixed on the geometry's link. The sizes are as written; the model checks them
 * when scene_build adds the pad, and a failure names the pad's line. */
typedef struct scenePad {
  int geom;              /* index in sceneCtx.geoms */
  int rows, cols;        /* taxels along P's y and x */
  double spacing;        /* m */
  xform X_CP;            /* P in the frame sceneGeom.X_LG places: the collision frame G composed
                            with the shape's canonical frame C (not G only for a plane), so
                            X_LP = X_LG · X_CP with X_CP = X_GC⁻¹ · X_GP */
  const sceneFile *file; /* where the <isobar:tactile_pad> is */
  int line;
  const char *geom_name; /* the collision's scoped name, for messages */
} scenePad;

/* An <isobar:weld> of a deformable link: its vertices inside a shape posed on a rigid link are
 * welded to that link's body (iso_model_weld_deformable), or held where they are when the link
 * is fixed to the world. */
typedef struct sceneWeld {
  const char *body;      /* the link as written in <isobar:body>, looked up in model scope `scope` */
  int scope;             /* SDFormat: the deformable link's model scope */
  int link;              /* index in sceneCtx.links once bound; -1: the world */
  isoShape shape;        /* box, sphere, cylinder, capsule or ellipsoid */
  double size[3];        /* as isoGeometryDef.size */
  xform X_LG;            /* the shape in the link's frame */
  const sceneFile *file; /* where the <isobar:weld> is */
  xmlNode *node, *body_node; /* the <isobar:weld> and its <isobar:body>, for messages */
} sceneWeld;

/* A deformable body: an SDFormat <link> holding <drake:deformable_properties>. Its mesh is
 * placed at the link's pose; a wall holds the vertices behind a plane given in the world. */
typedef struct sceneDeformable {
  isoDeformableDef def;  /* name (scoped, "model::link") and mesh_file owned by the context;
                            position and quaternion set once frames resolve */
  double (*wall)[6];     /* (nwall) point_on_plane, outward_normal, world frame; context memory */
  int nwall;
  sceneWeld *welds;      /* (nweld) in document order, context memory; made after the bodies */
  int nweld;
  int frame;             /* SDFormat: its link's frame in the parser's frame graph */
  const sceneFile *file; /* where the <link> is */
  int line;
} sceneDeformable;

/* A joint between two links. Fixed joints are merged by scene_build; the others become model
 * joints between the links' bodies. Frames as Drake's parsers make them: the joint frame J at
 * q = 0 is fixed on the parent (F = J) and on the child (M = J). */
typedef struct sceneJoint {
  const char *name;      /* scoped name, "model::joint" */
  isoJointType type;
  int parent;            /* link index, or -1 for the world */
  int child;             /* link index */
  xform X_PJ;            /* J in the parent link's frame (the world's for -1) */
  xform X_CJ;            /* J in the child link's frame */
  double axis[3];        /* revolute and prismatic: the axis in J, unit */
  double lower, upper;   /* position limits; ±INFINITY: none */
  double velocity;       /* velocity limit, > 0; INFINITY: none */
  double damping;        /* >= 0 */
  const sceneFile *file;
  int line;
} sceneJoint;

/* An actuator on a revolute or prismatic joint (Drake's JointActuator). */
typedef struct sceneActuator {
  const char *name;      /* scoped name */
  int joint;             /* index in sceneCtx.joints */
  double effort;         /* > 0; INFINITY: unlimited */
  double kp, kd;         /* PD gains; 0 and 0: none */
  double rotor_inertia, gear_ratio;
  const sceneFile *file;
  int line;
} sceneActuator;

/* A mimic joint: q_follower = gear_ratio·q_leader + offset (Drake's coupler constraint). */
typedef struct sceneCoupler {
  int follower, leader;  /* indices in sceneCtx.joints, both revolute or prismatic */
  double gear_ratio, offset;
  const sceneFile *file;
  int line;
} sceneCoupler;

/* A collision filter group (scene_filter.c) and the names in it. */
typedef struct sceneFilterGroup {
  const char *name;      /* scoped, "model::group" */
  const sceneFile *file;
  int line;
} sceneFilterGroup;

enum { SCENE_FILTER_MEMBER, SCENE_FILTER_MEMBER_GROUP, SCENE_FILTER_IGNORED };

typedef struct sceneFilterEntry {
  int group;             /* index in sceneCtx.filter_groups */
  int kind;              /* SCENE_FILTER_* */
  const char *name;      /* scoped name of a link (member) or a group */
  const sceneFile *file;
  int line;
} sceneFilterEntry;

/* Everything one load owns. */
typedef struct sceneCtx {
  isoLoadOptions opt;
  isoLoadReport *report;
  sceneMem mem;          /* the parsed files and every string and block of the load */
  scenePackages packages; /* how package:// uris resolve (scene_uri.h) */
  sceneLink *links;      /* (nlink) in document order */
  int nlink, link_cap;
  sceneGeom *geoms;      /* (ngeom) in document order */
  int ngeom, geom_cap;
  nameMap geom_names;    /* every name scene_geometry_name gave, for making new ones unique */
  scenePad *pads;        /* (npad) tactile pads in document order */
  int npad, pad_cap;
  sceneDeformable *deformables; /* (ndeformable) in document order */
  int ndeformable, deformable_cap;
  sceneJoint *joints;    /* (njoint) */
  int njoint, joint_cap;
  sceneActuator *actuators; /* (nactuator) */
  int nactuator, actuator_cap;
  sceneCoupler *couplers;   /* (ncoupler) */
  int ncoupler, coupler_cap;
  sceneFilterGroup *filter_groups; /* (nfilter_group) */
  int nfilter_group, filter_group_cap;
  sceneFilterEntry *filter_entries; /* (nfilter_entry) */
  int nfilter_entry, filter_entry_cap;
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
isoStatus scene_new_pad(sceneCtx *c, scenePad **out);
isoStatus scene_new_deformable(sceneCtx *c, sceneDeformable **out);
isoStatus scene_new_joint(sceneCtx *c, sceneJoint **out);
isoStatus scene_new_actuator(sceneCtx *c, sceneActuator **out);
isoStatus scene_new_coupler(sceneCtx *c, sceneCoupler **out);

/* A joint with the defaults: fixed, identity frames, axis (0, 0, 1), no limits, no damping.
 * An actuator with Drake's defaults: unlimited effort, no gains, no rotor, gear ratio 1. */
sceneJoint scene_default_joint(void);
sceneActuator scene_default_actuator(void);

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
