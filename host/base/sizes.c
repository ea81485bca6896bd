/* iso_sizeof (include/isobar/status.h): the public structs' sizes, for bindings that mirror them. */
#include <string.h>

#include "isobar/isobar.h"

unsigned long iso_sizeof(const char *type) {
  if (!type) return 0;
#define ISO_SIZE(T) \
  if (strcmp(type, #T) == 0) return (unsigned long)sizeof(T);
  ISO_SIZE(isoSimDef)
  ISO_SIZE(isoCapacityDef)
  ISO_SIZE(isoContactDef)
  ISO_SIZE(isoSolverDef)
  ISO_SIZE(isoLoadOptions)
  ISO_SIZE(isoWorlds)
  ISO_SIZE(isoView)
  ISO_SIZE(isoSlice)
  ISO_SIZE(isoActuatorDef)
  ISO_SIZE(isoSolverStats)
  ISO_SIZE(isoTactilePadDef)
#undef ISO_SIZE
  return 0;
}
