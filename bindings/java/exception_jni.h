// Turns C API errors into the Java exceptions of org.tfd. The mapping from
// TF_Code to exception class lives in one place, TfdException.forCode; the
// glue only hands it the code and the message.
#ifndef TFD_BINDINGS_JAVA_EXCEPTION_JNI_H_
#define TFD_BINDINGS_JAVA_EXCEPTION_JNI_H_

#include <jni.h>

#include "tensorflow/c/tf_status.h"

namespace tfd {
namespace jni {

// Raises the org.tfd exception for `code` (not TF_OK) with `message` as a
// pending exception. The caller must return to Java right after.
void ThrowException(JNIEnv* env, TF_Code code, const char* message);

// Raises the exception `status` describes and returns true, or returns
// false when it is TF_OK. A NULL status (out of memory) raises too.
bool ThrowIfError(JNIEnv* env, const TF_Status* status);

// A TF_Status for the length of one JNI call.
class ScopedStatus {
 public:
  ScopedStatus() : status_(TF_NewStatus()) {}
  ~ScopedStatus() { TF_DeleteStatus(status_); }
  ScopedStatus(const ScopedStatus&) = delete;
  ScopedStatus& operator=(const ScopedStatus&) = delete;

  TF_Status* get() const { return status_; }

 private:
  TF_Status* status_;
};

}  // namespace jni
}  // namespace tfd

#endif  // TFD_BINDINGS_JAVA_EXCEPTION_JNI_H_
