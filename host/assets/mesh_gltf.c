/* glTF 2.0 meshes (.gltf with external or base64 data: buffers, and binary .glb), read as a
 * triangle soup for collision the way Drake reads them: every triangle primitive of every mesh
 * that a node of the scene places, with the node transforms applied, and glTF's y-up frame
 * turned into Drake's z-up one (x, y, z) -> (x, -z, y). Only geometry is read (POSITION and
 * indices); materials, textures, normals and animations are not. Everything is bounds-checked
 * against the buffers before it is read, so a malformed file fails with a message naming the
 * file and the part at fault (accessor 3, bufferView 1, ...), never reads out of bounds. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "host/assets/mesh.h"
#include "host/assets/mesh_read.h"
#include "host/base/error.h"

#define MAX_NODE_DEPTH 64

typedef struct gltfBuf {
  unsigned char *data;
  size_t len;
  int owned; /* freed at the end (not the .glb's BIN chunk, which lives in the file buffer) */
} gltfBuf;

typedef struct gltfCtx {
  const char *path;
  cJSON *root;
  gltfBuf *bufs;
  int nbuf;
  /* The soup: vertices (3 doubles each, z-up, not yet scaled) and triangles. */
  double *vert;
  size_t nvert, vert_cap;
  int *tri;
  size_t ntri, tri_cap;
} gltfCtx;

static isoStatus bad(const gltfCtx *g, const char *what) {
  return iso_fail(ISO_ERR_PARSE, "%s: malformed glTF: %s", g->path, what);
}

static cJSON *item(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* A JSON number as a non-negative integer index; -2 when it is not one (negative, fractional,
 * beyond 9e15 — converting those to an integer type would be undefined). */
static long long index_value(const cJSON *v) {
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 9e15 || floor(v->valuedouble) != v->valuedouble)
    return -2;
  return (long long)v->valuedouble;
}

/* A non-negative integer member; `def` when absent (-1 if required), -2 when not an integer. */
static long long int_of(const cJSON *o, const char *key, long long def) {
  const cJSON *v = item(o, key);
  return v ? index_value(v) : def;
}

/* ---- buffers ------------------------------------------------------------------------------ */

static int b64(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

static isoStatus decode_base64(const gltfCtx *g, int i, const char *s, gltfBuf *out) {
  size_t n = strlen(s);
  unsigned char *d = (unsigned char *)malloc(n / 4 * 3 + 3);
  if (!d) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", g->path);
  size_t len = 0;
  unsigned acc = 0;
  int bits = 0;
  for (size_t k = 0; k < n; ++k) {
    if (s[k] == '=') break;
    int v = b64((unsigned char)s[k]);
    if (v < 0) {
      free(d);
      char msg[96];
      snprintf(msg, sizeof msg, "buffer %d: the data uri is not base64", i);
      return bad(g, msg);
    }
    acc = (acc << 6) | (unsigned)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      d[len++] = (unsigned char)(acc >> bits);
    }
  }
  out->data = d;
  out->len = len;
  out->owned = 1;
  return ISO_OK;
}

static isoStatus load_buffers(gltfCtx *g, const unsigned char *bin, size_t bin_len) {
  const cJSON *arr = item(g->root, "buffers");
  int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
  if (n == 0) return ISO_OK;
  g->bufs = (gltfBuf *)calloc((size_t)n, sizeof *g->bufs);
  if (!g->bufs) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", g->path);
  g->nbuf = n;
  int i = 0;
  const cJSON *b;
  cJSON_ArrayForEach(b, arr) {
    char msg[1400];
    long long blen = int_of(b, "byteLength", -1);
    if (blen < 0) {
      snprintf(msg, sizeof msg, "buffer %d has no valid byteLength", i);
      return bad(g, msg);
    }
    const cJSON *u = item(b, "uri");
    isoStatus st;
    if (!u) {
      if (i != 0 || !bin) {
        snprintf(msg, sizeof msg, "buffer %d has no uri (only a .glb's first buffer may omit it)", i);
        return bad(g, msg);
      }
      g->bufs[i].data = (unsigned char *)bin;
      g->bufs[i].len = bin_len;
    } else if (!cJSON_IsString(u)) {
      snprintf(msg, sizeof msg, "buffer %d: uri is not a string", i);
      return bad(g, msg);
    } else if (strncmp(u->valuestring, "data:", 5) == 0) {
      const char *comma = strstr(u->valuestring, ";base64,");
      if (!comma) {
        snprintf(msg, sizeof msg, "buffer %d: a data uri must be base64", i);
        return bad(g, msg);
      }
      if ((st = decode_base64(g, i, comma + 8, &g->bufs[i])) != ISO_OK) return st;
    } else {
      if (strstr(u->valuestring, "://") || u->valuestring[0] == '/') {
        snprintf(msg, sizeof msg, "buffer %d: uri '%.200s' must be a path relative to the file", i, u->valuestring);
        return bad(g, msg);
      }
      const char *slash = strrchr(g->path, '/');
      char file[4096];
      int w = slash ? snprintf(file, sizeof file, "%.*s/%s", (int)(slash - g->path), g->path, u->valuestring)
                    : snprintf(file, sizeof file, "%s", u->valuestring);
      if (w < 0 || (size_t)w >= sizeof file) return iso_fail(ISO_ERR_IO, "%s: buffer %d: the path is too long", g->path, i);
      char *text = NULL;
      size_t len = 0;
      if ((st = mesh_read_slurp(file, &text, &len)) != ISO_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", iso_last_error());
        return iso_fail(st, "%s: buffer %d: %s", g->path, i, why);
      }
      g->bufs[i].data = (unsigned char *)text;
      g->bufs[i].len = len;
      g->bufs[i].owned = 1;
    }
    if ((unsigned long long)blen > g->bufs[i].len) {
      snprintf(msg, sizeof msg, "buffer %d: byteLength %lld is more than its %zu bytes of data", i, blen, g->bufs[i].len);
      return bad(g, msg);
    }
    g->bufs[i].len = (size_t)blen;
    ++i;
  }
  return ISO_OK;
}

/* ---- accessors ---------------------------------------------------------------------------- */

typedef struct gltfView {
  const unsigned char *base; /* first element */
  size_t count, stride;
  int comp, ncomp;           /* componentType, components per element */
} gltfView;

static int comp_size(int comp) {
  switch (comp) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
  }
}

/* Accessor `a`, checked to be `type` ("VEC3", "SCALAR") with its every byte inside its buffer. */
static isoStatus accessor(const gltfCtx *g, long long a, const char *type, gltfView *out) {
  char msg[256];
  const cJSON *arr = item(g->root, "accessors");
  const cJSON *acc = a >= 0 && cJSON_IsArray(arr) && a < cJSON_GetArraySize(arr) ? cJSON_GetArrayItem(arr, (int)a) : NULL;
  if (!acc) {
    snprintf(msg, sizeof msg, "accessor %lld does not exist", a);
    return bad(g, msg);
  }
  const cJSON *t = item(acc, "type");
  long long view = int_of(acc, "bufferView", -1), off = int_of(acc, "byteOffset", 0), count = int_of(acc, "count", -1);
  long long comp = int_of(acc, "componentType", -1);
  if (item(acc, "sparse")) {
    snprintf(msg, sizeof msg, "accessor %lld: sparse accessors are not supported", a);
    return iso_fail(ISO_ERR_UNSUPPORTED, "%s: %s", g->path, msg);
  }
  if (!cJSON_IsString(t) || strcmp(t->valuestring, type) != 0 || view < 0 || off < 0 || count < 0 ||
      comp_size((int)comp) == 0) {
    snprintf(msg, sizeof msg, "accessor %lld: expected a %s accessor with bufferView, count and componentType", a, type);
    return bad(g, msg);
  }
  const cJSON *views = item(g->root, "bufferViews");
  const cJSON *bv = cJSON_IsArray(views) && view < cJSON_GetArraySize(views) ? cJSON_GetArrayItem(views, (int)view) : NULL;
  long long buf = bv ? int_of(bv, "buffer", -1) : -1, voff = bv ? int_of(bv, "byteOffset", 0) : -1;
  long long vlen = bv ? int_of(bv, "byteLength", -1) : -1, stride = bv ? int_of(bv, "byteStride", 0) : -1;
  if (!bv || buf < 0 || buf >= g->nbuf || voff < 0 || vlen < 0 || stride < 0) {
    snprintf(msg, sizeof msg, "accessor %lld: bufferView %lld does not exist or names no buffer", a, view);
    return bad(g, msg);
  }
  int ncomp = strcmp(type, "VEC3") == 0 ? 3 : 1, esize = comp_size((int)comp) * ncomp;
  if (stride == 0) stride = esize;
  if (stride < esize) {
    snprintf(msg, sizeof msg, "bufferView %lld: byteStride %lld is less than an element (%d bytes)", view, stride, esize);
    return bad(g, msg);
  }
  /* Every element within the view, the view within the buffer. */
  unsigned long long need = count == 0 ? 0 : (unsigned long long)off + (unsigned long long)(count - 1) * stride + esize;
  if ((unsigned long long)voff + (unsigned long long)vlen > g->bufs[buf].len || need > (unsigned long long)vlen) {
    snprintf(msg, sizeof msg, "accessor %lld: its %lld elements run past the end of bufferView %lld or its buffer", a,
             count, view);
    return bad(g, msg);
  }
  out->base = g->bufs[buf].data + voff + off;
  out->count = (size_t)count;
  out->stride = (size_t)stride;
  out->comp = (int)comp;
  out->ncomp = ncomp;
  return ISO_OK;
}

static double read_comp(const unsigned char *p, int comp) {
  switch (comp) {
    case 5121: return p[0];
    case 5123: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return v; }
    case 5126: { float v; memcpy(&v, p, 4); return v; }
    case 5120: return (int8_t)p[0];
    case 5122: { int16_t v; memcpy(&v, p, 2); return v; }
    default: return NAN;
  }
}

/* ---- nodes and primitives ----------------------------------------------------------------- */

/* 4x4 column-major transforms, as glTF writes them. */
static void mat_mul(const double *a, const double *b, double *out) {
  double r[16];
  for (int c = 0; c < 4; ++c)
    for (int rr = 0; rr < 4; ++rr) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += a[k * 4 + rr] * b[c * 4 + k];
      r[c * 4 + rr] = s;
    }
  memcpy(out, r, sizeof r);
}

static isoStatus numbers(const gltfCtx *g, const cJSON *arr, int n, double *out, const char *what, int node) {
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != n) goto fail;
  int i = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, arr) {
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) goto fail;
    out[i++] = v->valuedouble;
  }
  return ISO_OK;
fail:;
  char msg[128];
  snprintf(msg, sizeof msg, "node %d: %s must be %d finite numbers", node, what, n);
  return bad(g, msg);
}

static isoStatus node_local(const gltfCtx *g, const cJSON *nd, int index, double *M) {
  static const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  memcpy(M, I, sizeof I);
  isoStatus st;
  const cJSON *m = item(nd, "matrix");
  if (m) return numbers(g, m, 16, M, "matrix", index);
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
  if (item(nd, "translation") && (st = numbers(g, item(nd, "translation"), 3, t, "translation", index)) != ISO_OK) return st;
  if (item(nd, "rotation") && (st = numbers(g, item(nd, "rotation"), 4, q, "rotation", index)) != ISO_OK) return st;
  if (item(nd, "scale") && (st = numbers(g, item(nd, "scale"), 3, s, "scale", index)) != ISO_OK) return st;
  double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(nq > 1e-12)) return bad(g, "a node rotation is a zero quaternion");
  double x = q[0] / nq, y = q[1] / nq, z = q[2] / nq, w = q[3] / nq;
  double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                 2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                 2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)}; /* columns */
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) M[c * 4 + r] = R[c * 3 + r] * s[c];
  M[12] = t[0];
  M[13] = t[1];
  M[14] = t[2];
  return ISO_OK;
}

static int push_vert(gltfCtx *g, const double *M, const double *p) {
  if (!mesh_read_reserve((void **)&g->vert, &g->vert_cap, g->nvert + 1, 3 * sizeof(double))) return 0;
  double x = M[0] * p[0] + M[4] * p[1] + M[8] * p[2] + M[12];
  double y = M[1] * p[0] + M[5] * p[1] + M[9] * p[2] + M[13];
  double z = M[2] * p[0] + M[6] * p[1] + M[10] * p[2] + M[14];
  double *v = g->vert + 3 * g->nvert++;
  v[0] = x; /* y-up to z-up */
  v[1] = -z;
  v[2] = y;
  return 1;
}

static isoStatus primitive(gltfCtx *g, const cJSON *prim, int mesh, const double *M) {
  char msg[160];
  long long mode = int_of(prim, "mode", 4);
  if (mode >= 0 && mode <= 3) return ISO_OK; /* points and lines bound no volume */
  if (mode < 4 || mode > 6) {
    snprintf(msg, sizeof msg, "mesh %d: a primitive mode is not a glTF mode (0-6)", mesh);
    return bad(g, msg);
  }
  long long pa = int_of(item(prim, "attributes"), "POSITION", -1);
  if (pa < 0) {
    snprintf(msg, sizeof msg, "mesh %d: a primitive has no POSITION attribute", mesh);
    return bad(g, msg);
  }
  gltfView pos, idx;
  isoStatus st = accessor(g, pa, "VEC3", &pos);
  if (st != ISO_OK) return st;
  if (pos.comp != 5126) {
    snprintf(msg, sizeof msg, "accessor %lld: POSITION must be float (componentType 5126)", pa);
    return bad(g, msg);
  }
  long long ia = int_of(prim, "indices", -1);
  if (ia == -2) return bad(g, "a primitive's indices is not an accessor index");
  if (ia >= 0) {
    if ((st = accessor(g, ia, "SCALAR", &idx)) != ISO_OK) return st;
    if (idx.comp != 5121 && idx.comp != 5123 && idx.comp != 5125) {
      snprintf(msg, sizeof msg, "accessor %lld: indices must be unsigned integers", ia);
      return bad(g, msg);
    }
  }
  size_t first = g->nvert, n = ia >= 0 ? idx.count : pos.count;
  if (pos.count + g->nvert > (size_t)MESH_MAX_ITEMS) return iso_fail(ISO_ERR_CAPACITY, "%s: too many vertices", g->path);
  for (size_t k = 0; k < pos.count; ++k) {
    const unsigned char *p = pos.base + k * pos.stride;
    double v[3] = {read_comp(p, 5126), read_comp(p + 4, 5126), read_comp(p + 8, 5126)};
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
      snprintf(msg, sizeof msg, "accessor %lld: vertex %zu is not finite", pa, k);
      return bad(g, msg);
    }
    if (!push_vert(g, M, v)) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", g->path);
  }
  size_t ntri = mode == 4 ? n / 3 : n >= 3 ? n - 2 : 0;
  if (g->ntri + ntri > (size_t)MESH_MAX_ITEMS) return iso_fail(ISO_ERR_CAPACITY, "%s: too many triangles", g->path);
  if (!mesh_read_reserve((void **)&g->tri, &g->tri_cap, g->ntri + ntri, 3 * sizeof(int)))
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", g->path);
  for (size_t t = 0; t < ntri; ++t) {
    size_t c[3];
    if (mode == 4) c[0] = 3 * t, c[1] = 3 * t + 1, c[2] = 3 * t + 2;
    else if (mode == 5) c[0] = t, c[1] = t % 2 ? t + 2 : t + 1, c[2] = t % 2 ? t + 1 : t + 2;
    else c[0] = 0, c[1] = t + 1, c[2] = t + 2;
    int *out = g->tri + 3 * g->ntri;
    for (int k = 0; k < 3; ++k) {
      double v = ia >= 0 ? read_comp(idx.base + c[k] * idx.stride, idx.comp) : (double)c[k];
      if (!(v >= 0 && v < (double)pos.count)) {
        snprintf(msg, sizeof msg, "accessor %lld: index %.0f is out of range (%zu vertices)", ia, v, pos.count);
        return bad(g, msg);
      }
      out[k] = (int)(first + (size_t)v);
    }
    g->ntri++;
  }
  return ISO_OK;
}

static isoStatus visit(gltfCtx *g, long long node, const double *parent, int depth) {
  char msg[96];
  const cJSON *nodes = item(g->root, "nodes");
  const cJSON *nd = node >= 0 && cJSON_IsArray(nodes) && node < cJSON_GetArraySize(nodes)
                        ? cJSON_GetArrayItem(nodes, (int)node) : NULL;
  if (!nd) {
    snprintf(msg, sizeof msg, "node %lld does not exist", node);
    return bad(g, msg);
  }
  if (depth > MAX_NODE_DEPTH) return bad(g, "the node hierarchy is deeper than 64 (a cycle?)");
  double L[16], M[16];
  isoStatus st = node_local(g, nd, (int)node, L);
  if (st != ISO_OK) return st;
  mat_mul(parent, L, M);
  long long mesh = int_of(nd, "mesh", -1);
  if (mesh == -2) return bad(g, "a node's mesh is not a mesh index");
  if (mesh >= 0) {
    const cJSON *meshes = item(g->root, "meshes");
    const cJSON *me = cJSON_IsArray(meshes) && mesh < cJSON_GetArraySize(meshes) ? cJSON_GetArrayItem(meshes, (int)mesh) : NULL;
    const cJSON *prims = me ? item(me, "primitives") : NULL;
    if (!cJSON_IsArray(prims)) {
      snprintf(msg, sizeof msg, "node %lld: mesh %lld does not exist or has no primitives", node, mesh);
      return bad(g, msg);
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, prims) if ((st = primitive(g, p, (int)mesh, M)) != ISO_OK) return st;
  }
  const cJSON *kids = item(nd, "children"), *k;
  if (kids && !cJSON_IsArray(kids)) return bad(g, "a node's children is not an array");
  cJSON_ArrayForEach(k, kids) {
    if (index_value(k) < 0) return bad(g, "a node's child is not a node index");
    if ((st = visit(g, index_value(k), M, depth + 1)) != ISO_OK) return st;
  }
  return ISO_OK;
}

/* The scene's root nodes (the default scene, else the first); with no scenes, every node that
 * is no other's child. */
static isoStatus walk(gltfCtx *g) {
  static const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const cJSON *scenes = item(g->root, "scenes");
  isoStatus st;
  if (cJSON_IsArray(scenes) && cJSON_GetArraySize(scenes) > 0) {
    long long s = int_of(g->root, "scene", 0);
    if (s < 0 || s >= cJSON_GetArraySize(scenes)) return bad(g, "the default scene does not exist");
    const cJSON *roots = item(cJSON_GetArrayItem(scenes, (int)s), "nodes"), *r;
    cJSON_ArrayForEach(r, roots) {
      if (index_value(r) < 0) return bad(g, "a scene's node is not a node index");
      if ((st = visit(g, index_value(r), I, 0)) != ISO_OK) return st;
    }
    return ISO_OK;
  }
  const cJSON *nodes = item(g->root, "nodes");
  int n = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
  char *child = (char *)calloc((size_t)n + 1, 1);
  if (!child) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", g->path);
  const cJSON *nd, *k;
  cJSON_ArrayForEach(nd, nodes) cJSON_ArrayForEach(k, item(nd, "children")) if (cJSON_IsNumber(k) &&
                                                                                 k->valuedouble >= 0 &&
                                                                                 k->valuedouble < n) child[(int)k->valuedouble] = 1;
  st = ISO_OK;
  for (int i = 0; i < n && st == ISO_OK; ++i)
    if (!child[i]) st = visit(g, i, I, 0);
  free(child);
  return st;
}

/* ---- the file ----------------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

isoStatus mesh_read_gltf(const char *path, const double scale[3], triMesh *out) {
  double s[3];
  int mirror;
  isoStatus st = mesh_read_scale(path, scale, s, &mirror);
  if (st != ISO_OK) return st;
  char *text = NULL;
  size_t len = 0;
  if ((st = mesh_read_slurp(path, &text, &len)) != ISO_OK) return st;
  gltfCtx g;
  memset(&g, 0, sizeof g);
  g.path = path;
  const unsigned char *bin = NULL, *u = (const unsigned char *)text;
  size_t bin_len = 0;
  const char *json = text;
  size_t json_len = len;
  if (len >= 4 && memcmp(text, "glTF", 4) == 0) {
    /* .glb: a 12-byte header, a JSON chunk, then an optional BIN chunk. */
    /* the declared length must hold the header and a chunk header, and the file must hold it
     * (a declared length under 20 made the chunk check below wrap around) */
    if (len < 20 || le32(u + 4) != 2 || le32(u + 8) > len || le32(u + 8) < 20) {
      st = bad(&g, "the .glb header is not glTF 2.0 or claims more bytes than the file holds");
      goto done;
    }
    size_t total = le32(u + 8), clen = le32(u + 12);
    if (le32(u + 16) != 0x4E4F534Au || clen > total - 20) {
      st = bad(&g, "the .glb's first chunk is not JSON or runs past the end");
      goto done;
    }
    json = text + 20;
    json_len = clen;
    size_t at = 20 + clen;
    if (at + 8 <= total) {
      size_t blen = le32(u + at);
      if (le32(u + at + 4) != 0x004E4942u || blen > total - at - 8) {
        st = bad(&g, "the .glb's second chunk is not BIN or runs past the end");
        goto done;
      }
      bin = u + at + 8;
      bin_len = blen;
    }
  }
  g.root = cJSON_ParseWithLength(json, json_len);
  if (!g.root || !cJSON_IsObject(g.root)) {
    st = bad(&g, "the JSON does not parse (or is not an object)");
    goto done;
  }
  const cJSON *asset = item(g.root, "asset"), *ver = asset ? item(asset, "version") : NULL;
  if (!cJSON_IsString(ver) || strncmp(ver->valuestring, "2.", 2) != 0) {
    st = bad(&g, "asset.version is not 2.x (only glTF 2.0 is read)");
    goto done;
  }
  if ((st = load_buffers(&g, bin, bin_len)) != ISO_OK) goto done;
  if ((st = walk(&g)) != ISO_OK) goto done;
  if (g.ntri == 0) {
    st = bad(&g, "the scene holds no triangles");
    goto done;
  }
  /* Drop triangles of zero area (they bound nothing) and unused vertices stay: a hull or a
   * surface reads only what the triangles reference or the vertex positions. */
  size_t keep = 0;
  for (size_t t = 0; t < g.ntri; ++t) {
    int *c = g.tri + 3 * t;
    const double *a = g.vert + 3 * c[0], *b = g.vert + 3 * c[1], *d = g.vert + 3 * c[2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    if (n[0] == 0 && n[1] == 0 && n[2] == 0) continue;
    memmove(g.tri + 3 * keep++, c, 3 * sizeof(int));
  }
  if (keep == 0) {
    st = bad(&g, "every triangle has zero area");
    goto done;
  }
  triMesh m;
  memset(&m, 0, sizeof m);
  if ((st = tri_mesh_alloc(&m, (int)g.nvert, (int)keep)) != ISO_OK) goto done;
  for (size_t v = 0; v < g.nvert; ++v)
    for (int k = 0; k < 3; ++k) m.vert[3 * v + k] = (real)(g.vert[3 * v + k] * s[k]);
  for (size_t t = 0; t < keep; ++t) {
    m.tri[3 * t] = g.tri[3 * t];
    m.tri[3 * t + 1] = g.tri[3 * t + (mirror ? 2 : 1)];
    m.tri[3 * t + 2] = g.tri[3 * t + (mirror ? 1 : 2)];
  }
  if ((st = tri_mesh_normals(&m, path)) != ISO_OK) {
    tri_mesh_free(&m);
    goto done;
  }
  *out = m;
done:
  for (int i = 0; i < g.nbuf; ++i)
    if (g.bufs[i].owned) free(g.bufs[i].data);
  free(g.bufs);
  free(g.vert);
  free(g.tri);
  cJSON_Delete(g.root);
  free(text);
  return st;
}

static int ends_with(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  if (n < e) return 0;
  for (size_t i = 0; i < e; ++i) {
    char c = path[n - e + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != ext[i]) return 0;
  }
  return 1;
}

isoStatus mesh_read_surface(const char *path, const double scale[3], triMesh *out) {
  if (ends_with(path, ".gltf") || ends_with(path, ".glb")) return mesh_read_gltf(path, scale, out);
  if (ends_with(path, ".obj")) return mesh_read_obj(path, scale, 0, out);
  return iso_fail(ISO_ERR_UNSUPPORTED, "%s: a surface mesh must be .obj, .gltf or .glb", path);
}
