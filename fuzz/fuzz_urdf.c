/* libFuzzer harness: the URDF loader (iso_scene_load on a .urdf file), strict and lenient.
 * Mesh files a robot names are looked up beside the input, where there are none,
 * or at absolute paths: the loader's refusals of those are exercised too. */
#include "fuzz/fuzz_common.h"
#include "isobar/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write_input(data, size, ".urdf");
  isoLoadOptions opt = iso_default_load_options();
  opt.strict = size && (data[size - 1] & 1);
  isoModel *model = NULL;
  isoLoadReport *report = NULL;
  if (iso_scene_load(path, &opt, &model, &report) == ISO_OK) {
    for (int i = 0; i < iso_load_report_count(report); ++i) (void)iso_load_report_line(report, i);
    iso_model_destroy(model);
  }
  iso_load_report_free(report);
  return 0;
}
