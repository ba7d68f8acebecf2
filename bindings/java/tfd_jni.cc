// JNI side of org.tfd.Tfd: the library's versions.
#include <jni.h>

#include "tensorflow/c/c_api.h"
#include "tfd/c_api.h"

extern "C" {

JNIEXPORT jstring JNICALL Java_org_tfd_Tfd_nativeVersion(JNIEnv* env, jclass) {
  return env->NewStringUTF(TFD_Version());
}

JNIEXPORT jstring JNICALL Java_org_tfd_Tfd_nativeTensorFlowVersion(JNIEnv* env, jclass) {
  return env->NewStringUTF(TF_Version());
}

}  // extern "C"
