/* Scene files: SDFormat and URDF with Drake's `drake:` proximity tags, loaded into a compiled
 * model, so a scene written for Drake runs unchanged in isobar.
 *
 * What is loaded
 *   SDFormat (.sdf, .world): <world> (gravity; physics/max_step_size as the time step), <model>
 *   (pose, static, nested models), <include> (uri: a path relative to the including file, an
 *   absolute one, file://, package:// or model:// (see Package uris), of an .sdf or .urdf file or of a folder holding model.sdf; name,
 *   pose and static overrides), <frame>, <link> (pose, inertial), <collision>
 *   (pose, geometry, surface/friction/ode/mu and mu2, drake:proximity_properties), <joint>
 *   (see Joints), <pose> with relative_to (a link, frame, joint or nested model of the same
 *   model, "__model__", or "world"), degrees="true" and rotation_format="quat_xyzw".
 *   URDF (.urdf): <robot>, <link> (inertial, collision), <joint>, <transmission> (see
 *   Joints), the "world" link (a joint's parent link "world" is the world also when the file
 *   declares no such link, as in Drake), Drake's <frame name link xyz rpy> (checked: its link
 *   must exist; Drake's URDF joints connect links only, so nothing isobar simulates names it),
 *   the same drake: tags (value in the `value` attribute), <drake_compliance> friction.
 *   Geometry: box, sphere (radius 0 is a contact point, as in Drake), cylinder, capsule
 *   (and URDF drake:capsule), ellipsoid (SDFormat <ellipsoid> or, in both formats,
 *   drake:ellipsoid with semi-axes a, b, c), plane (SDFormat; a half-space whose outward
 *   normal is the plane normal; the plane's <size> means nothing for a half-space and is not used, as in Drake), mesh
 *   (.obj, .gltf, .glb or .vtk; per-axis scale; drake:declare_convex makes it ISO_SHAPE_CONVEX).
 *   drake: tags, read as Drake's parser reads them: rigid_hydroelastic, compliant_hydroelastic,
 *   hydroelastic_modulus (ignored with a report line on a rigid geometry, as Drake warns),
 *   mesh_resolution_hint, hydroelastic_margin, hunt_crossley_dissipation, relaxation_time,
 *   point_contact_stiffness, mu_dynamic and mu_static (one alone serves both; dynamic >
 *   static is an error), and isobar's own drake:slab_thickness for a compliant plane.
 *   Friction when a file gives no drake:mu_*: SDFormat's <surface><friction><ode> <mu>
 *   (static) and <mu2> (dynamic), each 1.0 when absent; otherwise 1.0 and 1.0 — Drake's
 *   parser default, which differs from the API default of 0.5.
 *
 * Bodies and names
 *   Every link not merged or welded becomes one body named by its scoped name: `model::link`
 *   (nested models add their names: `outer::inner::link`; a URDF robot's name is its model
 *   name). Links joined
 *   by fixed joints are merged into the parent link's body (the root of the fixed-joint tree
 *   names it): mass, centre of mass and inertia combined by the parallel-axis theorem, the
 *   child's collisions re-attached with composed poses. Links of a static model, links fixed
 *   to `world` and the URDF `world` link are welded: their collisions are attached to
 *   ISO_WORLD_BODY and they add no body. Geometry names are `model::link::collision` (a
 *   collision without a name is named after its shape: `box`, `box1`, ...).
 *   Mass properties: an SDFormat link without <inertial> gets SDFormat's defaults (the
 *   specification's <inertial>: mass 1, ixx = iyy = izz = 1, products 0, at the link origin);
 *   a URDF link without <inertial> gets zero mass, as in the URDF specification and Drake's
 *   parser — fine when merged into or welded to something with mass, an error for a free body.
 *   The body frame is the root link's frame; its initial pose is the link's pose in the file.
 *
 * Joints (iso_model_add_joint; read as Drake's parsers read them)
 *   SDFormat: revolute, continuous (revolute without position limits), prismatic, ball, fixed.
 *   The joint frame J is where the joint's <pose> puts it (relative to the child link unless
 *   relative_to says otherwise) with every link at its initial pose: M = J on the child, F = J
 *   on the parent, so at q = 0 each link sits where the file puts it. <axis><xyz> is in J, or
 *   in the frame its expressed_in names (SDFormat 1.4's use_parent_model_frame: the model
 *   frame). <limit> lower/upper/velocity (absent: none), <dynamics><damping>. A revolute,
 *   continuous or prismatic joint whose <effort> is not exactly 0 gets an actuator named after
 *   it (absent or negative: no effort limit), with drake:controller_gains (p, d),
 *   drake:rotor_inertia and drake:gear_ratio; drake:mimic (joint, multiplier, offset) couples
 *   it to another joint of its model.
 *   URDF: revolute, continuous, prismatic, fixed, floating. <origin> places J in the parent;
 *   the child link's frame is J. <axis xyz> in J (default 1 0 0), <limit lower upper velocity
 *   effort> (absent: none), <dynamics damping>, <mimic joint multiplier offset>. Actuators
 *   come only from SimpleTransmission <transmission>s: one per transmission, named by its
 *   <actuator>, on its <joint>, with that joint's effort limit (a limit of 0 skips it), and the
 *   actuator's drake:controller_gains, drake:rotor_inertia and drake:gear_ratio.
 *   Joint, actuator and joint-owned names are scoped like links ("model::joint"; a URDF
 *   actuator "robot::actuator"). Fixed joints are merged (below); moving joints connect the
 *   bodies of their links, with frames taken in those bodies. Bodies are added parents first.
 *
 * Deformable bodies (SDFormat only, as in Drake; include/isobar/deformable.h)
 *   A <link> holding <drake:deformable_properties> is a deformable body named like a link
 *   ("model::link"), its mesh placed at the link's pose: exactly one <collision> whose
 *   <geometry> is a <mesh> naming a .vtk tetrahedral mesh (<uri>, <scale>); the properties
 *   drake:youngs_modulus, drake:poissons_ratio, drake:mass_density, drake:mass_damping,
 *   drake:stiffness_damping and drake:material_model ("linear_corotated"; Drake's other models
 *   are rejected as unsupported); the collision's drake:proximity_properties drake:mu_dynamic
 *   (static and dynamic friction, 1.0 when absent), drake:hunt_crossley_dissipation and
 *   drake:relaxation_time; and any number of <drake:wall_boundary_condition>s
 *   (<drake:point_on_plane>, <drake:outward_normal>, world frame) holding the vertices behind
 *   the plane. As in Drake, several collisions, a mesh that is not .vtk, a <sphere>, a second
 *   <visual>, another drake: element and a joint attached to the link are errors; <inertial>
 *   and a collision <pose> are reported as ignored. A URDF <drake:deformable_properties> is
 *   reported as ignored: Drake's URDF parser skips it and the link stays rigid.
 *   isobar's extension, any number of <isobar:weld>s in the deformable link, welds the
 *   vertices inside a shape to a rigid link (iso_model_weld_deformable): <isobar:body> names
 *   the link as a joint's <parent> does ("world", or a static model's link, holds them in
 *   place; a free link or one a joint moves carries them), an optional <pose> places the shape
 *   in that link's frame (no relative_to) at the link's initial pose, and <geometry> holds a
 *   <box>, <sphere>, <cylinder>, <capsule> or <ellipsoid>. An unknown link, another shape, a
 *   shape that holds no vertex and an isobar: element out of place are errors. Drake warns that it ignores the
 *   element and loads the rest.
 *
 * Collision filter groups (drake:collision_filter_group; SDFormat: in a <model>, names as
 *   element text; URDF: in the <robot>, names in link= and name= attributes)
 *   drake:member links, drake:member_group (the members of another group) and
 *   drake:ignored_collision_filter_group, names relative to the model holding the group
 *   ("link", "nested::link", "nested::group"); ignore="true" drops the group. As in Drake, a
 *   group that ignores group B excludes (iso_model_exclude_pair) every pair of a geometry of
 *   one of its links and a geometry of one of B's; a group ignoring itself excludes every pair
 *   within it. A member naming no link or a group naming no group is an error (file:line).
 *
 * Package uris (mesh <uri>/filename and <include><uri>)
 *   package://name/path and model://name/path (alike, as in Drake) are path under the root
 *   folder of package `name`, the folder of a package.xml whose <name> is `name`, looked up in
 *   this order, the first found winning: the name=dir entries of isoLoadOptions.package_path;
 *   the folders above the file holding the uri (the nearest such package.xml); the folders of
 *   isoLoadOptions.package_path and then of the environment variable ISOBAR_PACKAGE_PATH
 *   (colon-separated, like ROS_PACKAGE_PATH), each crawled for package.xml files as ROS does
 *   (a package's folder is not searched further, hidden folders are skipped; at most 16 deep
 *   and 100,000 folders). ROS_PACKAGE_PATH is not read: Drake reads it only on request, so
 *   set ISOBAR_PACKAGE_PATH=$ROS_PACKAGE_PATH to use it. Drake's own files find their package
 *   ("drake", share/drake/package.xml) by the upward search; Drake downloads the separate
 *   "drake_models" package on demand, isobar does not: point package_path at a copy.
 *
 * What is rejected (the call fails, the message names file:line and the element)
 *   malformed XML; a missing file or mesh; a value that is not a finite number; a negative
 *   mass; a free body without mass; an inertia the model rejects (its message is kept); an
 *   unknown geometry; a relative_to naming no frame, or frames placed in a cycle; SDFormat universal,
 *   screw, gearbox and revolute2 joints and URDF planar joints, joints that form a loop or a
 *   link that is the child of two joints, a mimic or transmission naming no joint, and what
 *   would change the motion if ignored (drake:joint, bushings,
 *   joint springs, constraints, placement_frame,
 *   <include merge="true">, <pose frame=...>, uri schemes other than file://, package://
 *   and model://) with ISO_ERR_UNSUPPORTED; drake:soft_hydroelastic, and rigid + compliant
 *   together; a package uri naming a package that cannot be found (ISO_ERR_IO, naming it).
 *
 * What is reported (isoLoadReport; with strict set, each is an ISO_ERR_UNSUPPORTED error)
 *   every element or attribute isobar does not use (plugins, joint axes of fixed joints,
 *   joint friction (not modelled, as in Drake), <initial_position> (Drake does not read it),
 *   a modulus on a rigid geometry, ...), one line each,
 *   in document order: "file:line: <element> ignored (why)" or "file:line: <element>
 *   attribute 'name' ignored (why)". <visual> elements (and URDF <material>) are legitimately
 *   irrelevant to a simulator: they are counted into one summary line at the end of the
 *   report, which strict mode does not reject. */
#ifndef ISOBAR_SCENE_H
#define ISOBAR_SCENE_H

#include "isobar/model.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a scene file is loaded. */
typedef struct isoLoadOptions {
  int strict;       /* non-zero: every element or attribute that would be reported as ignored
                       is an ISO_ERR_UNSUPPORTED error instead (the visual summary excepted);
                       default 0 */
  double time_step; /* > 0: the model's time step, s, whatever the scene says; 0: the scene's
                       (SDFormat <physics><max_step_size>), else 1e-3; default 0 */
  const char *package_path; /* where package://name/... and model://name/... uris look for
                       package `name`, besides the folders above the referring file: a
                       colon-separated list whose entries are either name=dir (package `name`
                       is folder dir; these come first, before the folders above the file) or
                       a folder crawled for package.xml files, after them and before the
                       ISOBAR_PACKAGE_PATH environment variable (same form, folders only);
                       NULL or "" for none; default NULL. See "Package uris" above. */
  int defer_compile; /* non-zero: the model is returned before iso_model_compile, so that the
                       API can add to it (tactile pads, fixed vertices, ...); the caller
                       compiles it (errors of the compile then name no file line); default 0 */
} isoLoadOptions;

/* The defaults documented on each field. */
isoLoadOptions iso_default_load_options(void);

/* The lines a load reports: elements and attributes the file has and isobar does not use. */
typedef struct isoLoadReport isoLoadReport;

/* Load an SDFormat (.sdf, .world) or URDF (.urdf) file, chosen by its extension (any other is
 * ISO_ERR_INVALID). `opt` may be NULL for the defaults. On success *out is a compiled model
 * (not yet compiled with opt->defer_compile; free it with iso_model_destroy) and, when `report` is not NULL, *report is the load report
 * (free it with iso_load_report_free; it may hold no line). On failure both are set to NULL
 * and iso_last_error() names the file, the line and the element: ISO_ERR_IO (a file cannot
 * be read, or is not a regular file: a FIFO, a device or a folder is refused before it is
 * opened), ISO_ERR_PARSE (malformed XML, any libxml2 error included, a bad value, an unknown
 * element where a known one is required), ISO_ERR_INVALID (a value out of range, as the model
 * builder rejects it), ISO_ERR_UNSUPPORTED (see the top of this header, or anything reported,
 * in strict mode), ISO_ERR_CAPACITY (past a limit of one load: 10,000 <include>s followed or
 * 10 million XML elements over all files, each far past real robots, there so that a broken
 * or hostile scene fails in seconds). A mesh file may hold at most 256 MiB. Nothing is printed. */
isoStatus iso_scene_load(const char *path, const isoLoadOptions *opt, isoModel **out,
                         isoLoadReport **report);

/* Number of lines in a report (0 for NULL). */
int iso_load_report_count(const isoLoadReport *report);

/* Line `i` (0 <= i < count) without a trailing newline, owned by the report; NULL when out of
 * range. */
const char *iso_load_report_line(const isoLoadReport *report, int i);

/* Free a report (NULL is fine). */
void iso_load_report_free(isoLoadReport *report);

/* Find a body of a loaded model by name: its full scoped name (`model::link`), or any tail of
 * it after a `::` (the plain link name `link`, or `inner::link`) when exactly one body has that
 * tail. ISO_ERR_NOT_FOUND when none matches and ISO_ERR_INVALID when several do; both
 * messages list the candidates (the matching bodies, or every body of the model). Works on any
 * model, also one built through the API. */
isoStatus iso_scene_find_body(const isoModel *model, const char *name, int *id);

/* Find a joint by name the same way: the loaders name joints `model::joint`, and the plain joint
 * name (or any tail after a `::`) works when exactly one joint has it. The same errors, listing
 * the joints. */
isoStatus iso_scene_find_joint(const isoModel *model, const char *name, int *id);

#ifdef __cplusplus
}
#endif
#endif
