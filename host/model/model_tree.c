/* The trees of a model and the layout of a world's generalized coordinates, decided at compile.
 *
 * Parents are added before their children (iso_model_add_joint checks it), so body index order
 * is already a topological order. A tree is a root body (a free body, or the child of a joint
 * whose parent is the world) and everything below it; trees are numbered by their root body.
 * A world's q and v are the trees' coordinates one tree after another, and within a tree the
 * bodies' inboard joints in body order, so each tree owns a contiguous range of v — one clique
 * of the SAP problem. A model of free bodies alone keeps the layout it always had: body b's
 * q at 7·b and v at 6·b. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"

void model_tree_free(modelTrees *t) {
  free(t->body_joint);
  free(t->body_tree);
  free(t->body_q0);
  free(t->body_v0);
  free(t->order);
  free(t->tree_body0);
  free(t->tree_q0);
  free(t->tree_v0);
  free(t->tree_free);
  free(t->tree_clique);
  free(t->tree_a0);
  free(t->joint_q0);
  free(t->joint_v0);
  memset(t, 0, sizeof *t);
}

static int *ints(int n) { return (int *)calloc((size_t)(n > 0 ? n : 1), sizeof(int)); }

/* A free body's implicit joint, or an explicit floating joint to the world with identity frames:
 * stepped by the free-body code (kernels/rigid/free_body.h), bit for bit as before joints. */
static int is_plain_free(const isoModel *m, int body) {
  const int j = m->trees.body_joint[body];
  if (j < 0) return 1;
  const isoJointDef *d = &m->joint[j];
  if (d->type != ISO_JOINT_FLOATING || d->parent != -1) return 0;
  for (int k = 0; k < 3; ++k)
    if (d->parent_position[k] != 0 || d->child_position[k] != 0) return 0;
  return d->parent_quaternion[0] == 1 && d->child_quaternion[0] == 1;
}

isoStatus model_tree_build(isoModel *m) {
  modelTrees *t = &m->trees;
  model_tree_free(t);
  const int nb = m->nbody;
  t->nbody = nb;
  t->body_joint = ints(nb), t->body_tree = ints(nb), t->body_q0 = ints(nb), t->body_v0 = ints(nb);
  t->order = ints(nb), t->tree_body0 = ints(nb + 1), t->tree_q0 = ints(nb + 1), t->tree_v0 = ints(nb + 1);
  t->tree_free = ints(nb), t->tree_clique = ints(nb), t->tree_a0 = ints(nb), t->joint_q0 = ints(m->njoint), t->joint_v0 = ints(m->njoint);
  int *nbody_of = ints(nb); /* bodies per tree, by tree */
  if (!t->body_joint || !t->body_tree || !t->body_q0 || !t->body_v0 || !t->order || !t->tree_body0 || !t->tree_q0 ||
      !t->tree_v0 || !t->tree_free || !t->tree_clique || !t->tree_a0 || !t->joint_q0 || !t->joint_v0 || !nbody_of) {
    free(nbody_of);
    model_tree_free(t);
    return iso_fail(ISO_ERR_NOMEM, "iso_model_compile: out of memory for the joint trees");
  }
  for (int b = 0; b < nb; ++b) t->body_joint[b] = -1;
  for (int j = 0; j < m->njoint; ++j) t->body_joint[m->joint[j].child] = j;
  /* trees: a root starts one; every other body joins its parent's (parent < child) */
  for (int b = 0; b < nb; ++b) {
    const int j = t->body_joint[b];
    const int parent = j >= 0 ? m->joint[j].parent : -1;
    t->body_tree[b] = parent < 0 ? t->ntree++ : t->body_tree[parent];
    nbody_of[t->body_tree[b]]++;
  }
  for (int k = 0; k < t->ntree; ++k) t->tree_body0[k + 1] = t->tree_body0[k] + nbody_of[k];
  memset(nbody_of, 0, sizeof(int) * (size_t)(nb > 0 ? nb : 1));
  for (int b = 0; b < nb; ++b) {
    const int k = t->body_tree[b];
    t->order[t->tree_body0[k] + nbody_of[k]++] = b;
  }
  free(nbody_of);
  /* coordinates: tree by tree, bodies in order within a tree */
  int q = 0, v = 0;
  for (int k = 0; k < t->ntree; ++k) {
    t->tree_q0[k] = q, t->tree_v0[k] = v;
    for (int i = t->tree_body0[k]; i < t->tree_body0[k + 1]; ++i) {
      const int b = t->order[i], j = t->body_joint[b];
      const isoJointType type = j >= 0 ? m->joint[j].type : ISO_JOINT_FLOATING;
      t->body_q0[b] = q, t->body_v0[b] = v;
      if (j >= 0) t->joint_q0[j] = q, t->joint_v0[j] = v;
      q += iso_joint_type_nq(type);
      v += iso_joint_type_nv(type);
    }
    t->tree_free[k] = t->tree_body0[k + 1] - t->tree_body0[k] == 1 && is_plain_free(m, t->order[t->tree_body0[k]]);
  }
  t->tree_q0[t->ntree] = q, t->tree_v0[t->ntree] = v;
  /* cliques: the trees with DoFs, in tree order, each with its block of A */
  for (int k = 0; k < t->ntree; ++k) {
    const int nt = t->tree_v0[k + 1] - t->tree_v0[k], nbt = t->tree_body0[k + 1] - t->tree_body0[k];
    t->tree_clique[k] = nt > 0 ? t->nclique++ : -1;
    t->tree_a0[k] = t->a_size;
    t->a_size += nt * nt;
    if (nt > t->max_nt) t->max_nt = nt;
    if (nbt > t->max_tree_bodies) t->max_tree_bodies = nbt;
    if (!t->tree_free[k]) t->jointed = 1;
  }
  t->nq = q, t->nv = v;
  return ISO_OK;
}
