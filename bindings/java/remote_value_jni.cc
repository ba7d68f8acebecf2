// JNI side of org.tfd.RemoteValue over TFD_RemoteValue (tfd/coordinator.h).
#include <jni.h>

#include "bindings/java/exception_jni.h"
#include "tfd/c_api.h"

using tfd::jni::ScopedStatus;
using tfd::jni::ThrowIfError;

extern "C" {

JNIEXPORT jfloat JNICALL Java_org_tfd_RemoteValue_nativeFetch(JNIEnv* env, jclass,
                                                              jlong pointer) {
  ScopedStatus status;
  const float loss =
      TFD_RemoteValueFetch(reinterpret_cast<const TFD_RemoteValue*>(pointer), status.get());
  if (ThrowIfError(env, status.get())) return 0;
  return loss;
}

JNIEXPORT void JNICALL Java_org_tfd_RemoteValue_delete(JNIEnv*, jclass, jlong pointer) {
  TFD_DeleteRemoteValue(reinterpret_cast<TFD_RemoteValue*>(pointer));
}

}  // extern "C"
