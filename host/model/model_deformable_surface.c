/* The surface of a deformable body's tet mesh (model_deformable.h): the faces that belong to
 * exactly one tet. Each face is keyed by its sorted vertex triple and the keys sorted, so that
 * equal faces meet in O(n log n); the parity of the sorting permutation tells from which side a
 * tet sees a face, and a shared face must be seen from both. The output is in (tet, face)
 * order, which does not depend on the sort. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_deformable.h"

/* Face f of a positively oriented tet is the one opposite local vertex f, wound so that its
 * right-handed normal points away from that vertex (out of the tet); the same table as
 * host/assets/mesh_core.c. */
static const int kFaceOut[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

typedef struct faceKey {
  int k[3];   /* vertex indices, ascending */
  int tet, f; /* owning tet and local face */
  int parity; /* 0 or 1: parity of the permutation sorting the outward triple into k */
} faceKey;

/* Total order (key, tet, face), so the sorted order is unique. */
static int face_cmp(const void *pa, const void *pb) {
  const faceKey *a = (const faceKey *)pa, *b = (const faceKey *)pb;
  for (int i = 0; i < 3; ++i)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  if (a->tet != b->tet) return a->tet < b->tet ? -1 : 1;
  return (a->f > b->f) - (a->f < b->f);
}

static faceKey make_face(const int *t, int e, int f) {
  faceKey q;
  int v[3] = {t[kFaceOut[f][0]], t[kFaceOut[f][1]], t[kFaceOut[f][2]]};
  int parity = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < 2 - pass; ++i)
      if (v[i] > v[i + 1]) {
        int s = v[i];
        v[i] = v[i + 1];
        v[i + 1] = s;
        parity ^= 1;
      }
  memcpy(q.k, v, sizeof v);
  q.tet = e;
  q.f = f;
  q.parity = parity;
  return q;
}

isoStatus model_deformable_surface(const int *tet, int ntet, int *tri, int *tri_tet, int *ntri, const char *what) {
  size_t nf = (size_t)ntet * 4;
  faceKey *faces = (faceKey *)malloc((nf ? nf : 1) * sizeof(faceKey));
  unsigned char *once = (unsigned char *)calloc(nf ? nf : 1, 1); /* per (tet, face) */
  isoStatus st = ISO_OK;
  if (!faces || !once) {
    st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory extracting the surface of %d tetrahedra", what, ntet);
    goto done;
  }
  for (int e = 0; e < ntet; ++e)
    for (int f = 0; f < 4; ++f) faces[4 * (size_t)e + f] = make_face(tet + 4 * (size_t)e, e, f);
  qsort(faces, nf, sizeof *faces, face_cmp);
  for (size_t i = 0; i < nf;) {
    size_t j = i + 1;
    while (j < nf && memcmp(faces[j].k, faces[i].k, sizeof faces[i].k) == 0) ++j;
    if (j - i == 1) {
      once[4 * (size_t)faces[i].tet + faces[i].f] = 1;
    } else if (j - i == 2 && faces[i].parity == faces[i + 1].parity) {
      st = iso_fail(ISO_ERR_INVALID, "%s: tetrahedra %d and %d overlap (both lie on the same side of face (%d, %d, %d))",
                    what, faces[i].tet, faces[i + 1].tet, faces[i].k[0], faces[i].k[1], faces[i].k[2]);
      goto done;
    } else if (j - i > 2) {
      st = iso_fail(ISO_ERR_INVALID, "%s: face (%d, %d, %d) is shared by %d tetrahedra (%d, %d, ...); at most two may "
                    "share a face", what, faces[i].k[0], faces[i].k[1], faces[i].k[2], (int)(j - i), faces[i].tet,
                    faces[i + 1].tet);
      goto done;
    }
    i = j;
  }
  int n = 0;
  for (int e = 0; e < ntet; ++e)
    for (int f = 0; f < 4; ++f)
      if (once[4 * (size_t)e + f]) {
        for (int k = 0; k < 3; ++k) tri[3 * n + k] = tet[4 * e + kFaceOut[f][k]];
        tri_tet[n++] = e;
      }
  *ntri = n;
done:
  free(faces);
  free(once);
  return st;
}
