// JNI side of org.tfd.OpDeterminism over TFD_EnableOpDeterminism and
// TFD_OpDeterminismEnabled. Neither can fail, so nothing is thrown.
#include <jni.h>

#include "tfd/c_api.h"

extern "C" {

JNIEXPORT void JNICALL Java_org_tfd_OpDeterminism_nativeSetEnabled(JNIEnv*, jclass,
                                                                   jboolean enabled) {
  TFD_EnableOpDeterminism(enabled == JNI_TRUE ? 1 : 0);
}

JNIEXPORT jboolean JNICALL Java_org_tfd_OpDeterminism_nativeIsEnabled(JNIEnv*, jclass) {
  return TFD_OpDeterminismEnabled() != 0 ? JNI_TRUE : JNI_FALSE;
}

}  // extern "C"
