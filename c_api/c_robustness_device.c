/* Bad-input cases of tfd/device.h (see c_robustness.h): names that do not
 * parse or name devices the process lacks are TF_INVALID_ARGUMENT naming
 * them; NULL and "" mean the host. The default device is the host again
 * at the end, so the other parts' cases run where they always do. */
#include <string.h>

#include "c_api/c_robustness.h"

/* `name` is refused with TF_INVALID_ARGUMENT and a message that quotes it. */
static void ExpectRefused(const char* name, TF_Status* s) {
  TFD_SetDefaultDevice(name, s);
  if (TF_GetCode(s) != TF_INVALID_ARGUMENT || strstr(TF_Message(s), name) == NULL) {
    fprintf(stderr,
            "TFD_SetDefaultDevice(\"%s\"): expected INVALID_ARGUMENT naming it, got %d \"%s\"\n",
            name, (int)TF_GetCode(s), TF_Message(s));
    ++failures;
  }
  TF_SetStatus(s, TF_OK, "");
}

int DeviceCases(void) {
  TF_Status* s = TF_NewStatus();
  COVERS(TFD_SetDefaultDevice);
  ExpectRefused("gpu0", s);             /* does not parse */
  ExpectRefused("/device:TPU:0", s);    /* a device type tfd does not have */
  ExpectRefused("/device:GPU:-1", s);   /* a negative index */
  ExpectRefused("/device:GPU:4096", s); /* more GPUs than any machine */
  ExpectRefused("/device:CPU:3", s);    /* the host is CPU:0 */
  /* The host, however it is said. */
  TFD_SetDefaultDevice(NULL, s);
  EXPECT_OK(s);
  TFD_SetDefaultDevice("", s);
  EXPECT_OK(s);
  TFD_SetDefaultDevice(" CPU ", s);
  EXPECT_OK(s);
  TFD_SetDefaultDevice("/job:localhost/replica:0/task:0/device:CPU:0", s);
  EXPECT_OK(s);
  /* A NULL status: nothing to report to, no crash. */
  TFD_SetDefaultDevice("gpu0", NULL);
  TFD_SetDefaultDevice(NULL, NULL);
  TF_DeleteStatus(s);
  return failures;
}
