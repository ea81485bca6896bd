/* Internal: loading scene files (include/isobar/scene.h), shared by host/scene_*.c.
 *
 * A load runs in three stages over one sceneCtx:
 *   1. a format parser (scene_sdf.c, scene_urdf.c) reads the XML (scene_xml.c) into a plain
 *      description: links with their world pose and mass properties, collision geometries
 *      with their pose in their link and their proximity properties (scene_props.c), and
 *      fixed joints. Elements it does not use go to the report (scene_report.c).
 *   2. scene_build (scene_build.c) merges links joined by fixed joints, welds what is fixed to
 *      the world, and adds bodies and geometries to a new model in document order.
 *   3. the model is compiled.
 * Nothing here outlives the load except the model and the report. */
#ifndef ISO_HOST_SCENE_INTERNAL_H
#define ISO_HOST_SCENE_INTERNAL_H

#include <libxml/tree.h>

#include "isobar/geometry.h"
#include "isobar/scene.h"
#include "kernels/math/transform.h"

/* One parsed file. Its document stays alive until the load ends: nodes point into it. */
typedef struct sceneFile {
  char *path;  /* as opened: relative to the working directory or absolute */
  char *dir;   /* its folder, against which relative uris resolve ("." when none) */
  xmlDoc *doc;
} sceneFile;

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
  sceneFile **files;     /* (nfile) every file opened, includes too */
  int nfile, file_cap;
  sceneLink *links;      /* (nlink) in document order */
  int nlink, link_cap;
  sceneGeom *geoms;      /* (ngeom) in document order */
  int ngeom, geom_cap;
  sceneJoint *joints;    /* (njoint) */
  int njoint, joint_cap;
  double gravity[3];     /* world gravity, m/s² (default Drake's (0, 0, -9.81)) */
  double time_step;      /* the scene's time step, s; 0 when it gives none */
  int nvisual;           /* <visual> and URDF <material> elements seen, for the summary */
  int nmaterial;         /* of which URDF <material>s */
  const sceneFile *visual_file;
  int visual_line;       /* where the first one is */
  void **allocs;         /* (nalloc) every string and block of the load, freed at the end */
  int nalloc, alloc_cap;
} sceneCtx;

/* ---- memory (scene_xml.c) ----------------------------------------------------------------- */

/* Zeroed memory or a copy of a string, owned by the load; NULL only when out of memory (the
 * callers turn that into ISO_ERR_NOMEM). */
void *scene_alloc(sceneCtx *c, size_t size);
char *scene_strdup(sceneCtx *c, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
char *scene_printf(sceneCtx *c, const char *fmt, ...);

/* Append an entry to the description; *out points at it (zeroed). */
isoStatus scene_new_link(sceneCtx *c, sceneLink **out, int *index);
isoStatus scene_new_geom(sceneCtx *c, sceneGeom **out);
isoStatus scene_new_joint(sceneCtx *c, sceneJoint **out);

/* ---- XML (scene_xml.c) -------------------------------------------------------------------- */

/* Open and parse an XML file. ISO_ERR_IO when it cannot be read, ISO_ERR_PARSE with the
 * parser's own message and line when it is malformed. `from`/`from_node` (may be NULL) say
 * which element asked for it, for the message. */
isoStatus scene_open(sceneCtx *c, const char *path, const sceneFile *from, xmlNode *from_node,
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
char *scene_attr(sceneCtx *c, xmlNode *n, const char *name);
char *scene_text(sceneCtx *c, xmlNode *n);

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
isoStatus scene_text_numbers(sceneCtx *c, const sceneFile *f, xmlNode *n, int count, double *out);
/* A boolean: true/false/1/0. */
isoStatus scene_bool(const sceneFile *f, xmlNode *n, const char *what, const char *s, int *out);

/* R = Rz(yaw)·Ry(pitch)·Rx(roll): SDFormat's and URDF's fixed-axis roll-pitch-yaw. */
quat scene_rpy(double roll, double pitch, double yaw);

/* The inertia (Ixx Iyy Izz Ixy Ixz Iyz) I_B re-expressed in frame A: R_AB I_B R_ABᵀ. */
void scene_rotate_inertia(quat q_AB, const double *I_B, double *I_A);

/* Resolve a uri found in file f (a relative path, an absolute one, or file://) to a path and
 * check that the file can be opened: ISO_ERR_IO naming the element when it cannot,
 * ISO_ERR_UNSUPPORTED for package:// and other schemes. */
isoStatus scene_resolve_uri(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *uri, char **path);

/* The scoped name of a new collision of link `link`: "<link name>::<name>", or with no name
 * given, "<link name>::<shape>" made unique among the link's geometries ("box", "box1", ...),
 * as Drake names unnamed URDF geometries. NULL when out of memory. */
char *scene_geometry_name(sceneCtx *c, int link, const char *name, isoShape shape);

/* 1 when `path` ends with `ext` (".obj"), ignoring case. */
int scene_has_ext(const char *path, const char *ext);

/* ---- the report (scene_report.c) ----------------------------------------------------------- */

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

/* Count a <visual> (or URDF <material>) for the one summary line. */
void scene_count_visual(sceneCtx *c, const sceneFile *f, xmlNode *n);

/* Add the summary lines at the end of a load. */
isoStatus scene_report_finish(sceneCtx *c);

/* A new empty report, and adding a line to one (copied). */
isoStatus scene_report_new(isoLoadReport **out);
isoStatus scene_report_add(isoLoadReport *r, const char *line);

/* ---- proximity properties (scene_props.c) -------------------------------------------------- */

/* Read <drake:proximity_properties> element `props` of a <collision> into g, as Drake's
 * ParseProximityProperties does. `urdf`: values are in `value` attributes instead of text.
 * *has_friction is set when drake:mu_dynamic or drake:mu_static was given. */
isoStatus scene_proximity(sceneCtx *c, const sceneFile *f, xmlNode *props, int urdf, isoGeometryDef *g,
                          int *has_friction);

/* A geometry definition with the parsers' defaults: the API's (Drake's) except friction,
 * which Drake's parsers set to 1.0 static and dynamic when the file gives none. */
isoGeometryDef scene_default_geometry(void);

/* Check a friction pair as Drake's CoulombFriction does: both >= 0, dynamic <= static. */
isoStatus scene_check_friction(const sceneFile *f, xmlNode *n, double mu_static, double mu_dynamic);

/* ---- formats and the build ----------------------------------------------------------------- */

isoStatus scene_sdf_load(sceneCtx *c, const char *path);

/* SDFormat elements (scene_sdf_elements.c). A pose as written: X relative to frame `rel_to`
 * (NULL: the element's default frame), resolved once every frame is known. */
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
isoStatus scene_urdf_load(sceneCtx *c, const char *path);

/* Parse URDF <robot> element `robot` of file f as a model named `model` (the robot's name when
 * NULL). Links are appended with their pose in the model frame; [*first, *end) are their
 * indices. Used for .urdf files and for URDF files included from SDFormat. */
isoStatus scene_urdf_robot(sceneCtx *c, const sceneFile *f, xmlNode *robot, const char *model,
                           int *first, int *end);

/* Merge, weld and build the compiled model. */
isoStatus scene_build(sceneCtx *c, isoModel **out);

#endif
