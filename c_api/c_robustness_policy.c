/* Bad-input cases of tfd/mixed_precision.h (see c_robustness.h): names
 * that are no policy, or no floating policy, are TF_INVALID_ARGUMENT and
 * leave the global policy as it was; the loss-scale getters refuse NULL,
 * an uncompiled model and one whose optimizer does no loss scaling. The
 * global policy is float32 again at the end, so the other parts' cases
 * build float32 models. */
#include <string.h>

#include "c_api/c_robustness.h"

/* `name` is refused with TF_INVALID_ARGUMENT and a message that quotes it
 * and names the valid policies; the global policy stays `kept`. */
static void ExpectRefused(const char* name, const char* valid_hint, const char* kept,
                          TF_Status* s) {
  TFD_SetGlobalPolicy(name, s);
  if (TF_GetCode(s) != TF_INVALID_ARGUMENT || strstr(TF_Message(s), name) == NULL ||
      strstr(TF_Message(s), valid_hint) == NULL) {
    fprintf(stderr,
            "TFD_SetGlobalPolicy(\"%s\"): expected INVALID_ARGUMENT naming it and \"%s\", "
            "got %d \"%s\"\n",
            name, valid_hint, (int)TF_GetCode(s), TF_Message(s));
    ++failures;
  }
  TF_SetStatus(s, TF_OK, "");
  EXPECT(strcmp(TFD_GlobalPolicy(), kept) == 0);
}

static void GlobalPolicy(TF_Status* s) {
  COVERS(TFD_GlobalPolicy);
  EXPECT(strcmp(TFD_GlobalPolicy(), "float32") == 0);
  COVERS(TFD_SetGlobalPolicy);
  TFD_SetGlobalPolicy("mixed_bfloat16", s);
  EXPECT_OK(s);
  ExpectRefused("mixed_float8", "mixed_bfloat16", "mixed_bfloat16", s);
  ExpectRefused("", "mixed_float16", "mixed_bfloat16", s);
  ExpectRefused("Float32", "mixed_float16", "mixed_bfloat16", s);
  ExpectRefused("int32", "floating-point", "mixed_bfloat16", s);
  /* NULL is Keras's None: the default again. */
  TFD_SetGlobalPolicy(NULL, s);
  EXPECT_OK(s);
  EXPECT(strcmp(TFD_GlobalPolicy(), "float32") == 0);
  /* A NULL status: nothing to report to, no crash, nothing changed. */
  TFD_SetGlobalPolicy("bogus", NULL);
  EXPECT(strcmp(TFD_GlobalPolicy(), "float32") == 0);
}

static void LossScale(TF_Status* s) {
  COVERS(TFD_ModelLossScale);
  EXPECT(TFD_ModelLossScale(NULL, s) == 0.0f);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelLossScaleGoodSteps);
  EXPECT(TFD_ModelLossScaleGoodSteps(NULL, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelDtypePolicy);
  EXPECT(TFD_ModelDtypePolicy(NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);

  int64_t shape[1] = {4};
  TFD_Model* m = TFD_NewSequential(NULL, NULL, s);
  TFD_AddInput(m, shape, 1, TF_FLOAT, s);
  TFD_AddDense(m, 2, NULL, NULL, s);
  EXPECT_OK(s);
  EXPECT(strcmp(TFD_ModelDtypePolicy(m, s), "float32") == 0);
  /* Not compiled yet. */
  EXPECT(TFD_ModelLossScale(m, s) == 0.0f);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  EXPECT(TFD_ModelLossScaleGoodSteps(m, s) == 0);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  /* Compiled, but float32: no loss scaling. */
  TFD_ModelCompile(m, "sgd", NULL, "mse", NULL, NULL, 0, s);
  EXPECT_OK(s);
  EXPECT(TFD_ModelLossScale(m, s) == 0.0f);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  EXPECT(TFD_ModelLossScaleGoodSteps(m, s) == 0);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  TFD_DeleteModel(m);

  /* A layer's "dtype" option that is no policy, nor a dtype. */
  m = TFD_NewSequential(NULL, NULL, s);
  TFD_AddInput(m, shape, 1, TF_FLOAT, s);
  EXPECT_OK(s);
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetString(o, "dtype", "mixed_float8", s);
  TFD_AddDense(m, 2, NULL, o, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetString(o, "dtype", "float12", s);
  TFD_AddDense(m, 2, NULL, o, s);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TFD_DeleteOptions(o);
  TFD_DeleteModel(m);
}

int PolicyCases(void) {
  TF_Status* s = TF_NewStatus();
  GlobalPolicy(s);
  LossScale(s);
  TFD_SetGlobalPolicy("float32", s);
  EXPECT_OK(s);
  TF_DeleteStatus(s);
  return failures;
}
