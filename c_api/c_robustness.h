/* The robustness test of the C ABI (c_robustness_test): every exported
 * function is called with NULL handles, NULL pointers, wrong dtypes, wrong
 * ranks and unknown names, and must answer with an error (or NULL / a
 * no-op where it has no status), never crash. Each source file holds the
 * cases of one part of the API and returns its failed checks; main reads
 * c_api/exported_symbols.txt and fails for every exported function whose
 * bad-input case did not run (COVERS). Built as C11 with -Werror and run
 * under AddressSanitizer too (bazel test --config=asan). */
#ifndef TFD_C_API_C_ROBUSTNESS_H_
#define TFD_C_API_C_ROBUSTNESS_H_

#include <stdio.h>

#include "c_api/c_expect.h"
#include "tfd/c_api.h"

/* Records that the bad-input cases of `fn` ran. Naming the function (not
 * only its name) makes a misspelt or removed function a compile error. */
#define COVERS(fn) ((void)(fn), RecordCovered(#fn))
void RecordCovered(const char* function);

/* The status holds an error `code` with a non-empty message; then it is reset. */
#define EXPECT_ERROR(s, code)                                                            \
  do {                                                                                   \
    if (TF_GetCode(s) != (code) || TF_Message(s)[0] == '\0') {                           \
      fprintf(stderr, "%s:%d: expected code %d with a message, got %d \"%s\"\n", __FILE__, \
              __LINE__, (int)(code), (int)TF_GetCode(s), TF_Message(s));                 \
      ++failures;                                                                        \
    }                                                                                    \
    TF_SetStatus(s, TF_OK, "");                                                          \
  } while (0)

#define EXPECT_OK(s)                                                                    \
  do {                                                                                  \
    if (TF_GetCode(s) != TF_OK) {                                                       \
      fprintf(stderr, "%s:%d: unexpected error %s\n", __FILE__, __LINE__, TF_Message(s)); \
      ++failures;                                                                       \
    }                                                                                   \
  } while (0)

/* Each runs the cases of one part of the API and returns its failures. */
int StatusAndTensorCases(void);    /* c_robustness_tensors.c */
int OptionsCases(void);            /* c_robustness_tensors.c */
int DeviceCases(void);             /* c_robustness_device.c */
int DeterminismCases(void);        /* c_robustness_determinism.c */
int PolicyCases(void);             /* c_robustness_policy.c */
int ClusterCases(void);            /* c_robustness_cluster.c */
int DatasetCases(void);            /* c_robustness_data.c */
int ModelCases(void);              /* c_robustness_model.c */
int SessionCases(void);            /* c_robustness_session.c */
int NullStatusCases(void);         /* c_robustness_null_status.c */

#endif /* TFD_C_API_C_ROBUSTNESS_H_ */
