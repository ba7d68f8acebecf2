// JNI side of org.tfd.Coordinator over TFD_Coordinator (tfd/coordinator.h).
#include <jni.h>

#include "bindings/java/exception_jni.h"
#include "tfd/c_api.h"

namespace {

using tfd::jni::ScopedStatus;
using tfd::jni::ThrowIfError;

TFD_Coordinator* FromHandle(jlong pointer) { return reinterpret_cast<TFD_Coordinator*>(pointer); }

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_org_tfd_Coordinator_nativeCreate(JNIEnv* env, jclass, jlong model) {
  ScopedStatus status;
  TFD_Coordinator* coordinator =
      TFD_NewCoordinator(reinterpret_cast<TFD_Model*>(model), status.get());
  if (ThrowIfError(env, status.get())) {
    TFD_DeleteCoordinator(coordinator);
    return 0;
  }
  return reinterpret_cast<jlong>(coordinator);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Coordinator_nativeSchedule(JNIEnv* env, jclass,
                                                                jlong pointer) {
  ScopedStatus status;
  TFD_RemoteValue* value = TFD_CoordinatorScheduleTrainStep(FromHandle(pointer), status.get());
  if (ThrowIfError(env, status.get())) {
    TFD_DeleteRemoteValue(value);
    return 0;
  }
  return reinterpret_cast<jlong>(value);
}

JNIEXPORT void JNICALL Java_org_tfd_Coordinator_nativeJoin(JNIEnv* env, jclass, jlong pointer) {
  ScopedStatus status;
  TFD_CoordinatorJoin(FromHandle(pointer), status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT jboolean JNICALL Java_org_tfd_Coordinator_nativeDone(JNIEnv* env, jclass,
                                                               jlong pointer) {
  ScopedStatus status;
  const int done = TFD_CoordinatorDone(FromHandle(pointer), status.get());
  if (ThrowIfError(env, status.get())) return JNI_FALSE;
  return done == 1 ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_org_tfd_Coordinator_delete(JNIEnv*, jclass, jlong pointer) {
  TFD_DeleteCoordinator(FromHandle(pointer));
}

}  // extern "C"
