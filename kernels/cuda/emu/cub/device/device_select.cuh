// The emulated device's CUB: all of it is in ../emu.h.
#include "../emu.h"
