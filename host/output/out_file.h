/* Internal: output files that never destroy (DESIGN.md, "Errors, faults, limits").
 *
 * Every file isobar writes goes to a temporary name beside the target (same folder, so the
 * rename cannot cross file systems) and is renamed over the target only when every byte was
 * written, flushed and synced: a failed or interrupted write leaves an existing target as it
 * was, and the only thing ever removed is the temporary isobar itself created. A target that
 * exists and is not a regular file (a device such as /dev/full, a FIFO, a folder) is refused
 * before anything is created: renaming over it would replace a device node, writing into it
 * gives no way back. An existing target keeps its permission bits; a new one gets the usual
 * 0666 less the umask. A symbolic link is followed, so the file it names is replaced and the
 * link stays. */
#ifndef ISO_HOST_OUT_FILE_H
#define ISO_HOST_OUT_FILE_H

#include <stdio.h>

#include "isobar/model.h"
#include "isobar/status.h"

typedef struct outFile {
  FILE *f;      /* the temporary, open for writing; NULL when closed */
  char *target; /* the file to replace, symbolic links resolved */
  char *tmp;    /* the temporary's path; NULL once renamed or removed */
} outFile;

/* Create the temporary for `path` (ISO_ERR_IO naming the path, or the folder when the
 * temporary cannot be created there). On failure *o is zeroed and nothing exists. */
isoStatus out_open(outFile *o, const char *path);

/* Flush, sync, close and rename over the target. ISO_ERR_IO naming the target when any write
 * failed, and then the temporary is removed and the target untouched. *o is zeroed. */
isoStatus out_commit(outFile *o);

/* Close and remove the temporary, leaving the target as it was; safe on a zeroed outFile. */
void out_abort(outFile *o);

/* ISO_ERR_INVALID when output `out` (named `what` in the message, "--record") is the same file
 * as the scene `scene` or as one of the model's mesh files, compared by device and inode (so a
 * relative and an absolute path, or a link, are caught); ISO_OK when `out` does not exist. */
isoStatus out_check_not_input(const char *out, const char *what, const char *scene, const isoModel *model);

#endif
