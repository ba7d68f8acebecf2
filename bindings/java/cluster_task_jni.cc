// JNI side of org.tfd.ClusterTask over TFD_ClusterTaskType (tfd/server.h).
#include <jni.h>

#include "bindings/java/exception_jni.h"
#include "bindings/java/options_jni.h"
#include "tfd/c_api.h"

using tfd::jni::ScopedOptions;
using tfd::jni::ScopedStatus;
using tfd::jni::ThrowIfError;

extern "C" {

// The task's type, with its index written to index[0]; NULL with the
// exception raised.
JNIEXPORT jstring JNICALL Java_org_tfd_ClusterTask_nativeResolve(JNIEnv* env, jclass,
                                                                 jobjectArray keys,
                                                                 jobjectArray values,
                                                                 jintArray index) {
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return nullptr;
  ScopedStatus status;
  int task_index = 0;
  const char* type = TFD_ClusterTaskType(options.get(), &task_index, status.get());
  if (ThrowIfError(env, status.get())) return nullptr;
  const jint java_index = task_index;
  env->SetIntArrayRegion(index, 0, 1, &java_index);
  if (env->ExceptionCheck()) return nullptr;
  return env->NewStringUTF(type);
}

}  // extern "C"
