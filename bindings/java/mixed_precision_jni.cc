// JNI side of org.tfd.MixedPrecision over tfd/mixed_precision.h: the
// global dtype policy, and a model's policy and loss-scale state (for
// Model.lossScale() and friends).
#include <jni.h>

#include <string>

#include "bindings/java/exception_jni.h"
#include "bindings/java/strings_jni.h"
#include "tfd/c_api.h"

namespace {

const TFD_Model* ModelOf(jlong pointer) { return reinterpret_cast<const TFD_Model*>(pointer); }

}  // namespace

extern "C" {

JNIEXPORT void JNICALL Java_org_tfd_MixedPrecision_nativeSetGlobalPolicy(JNIEnv* env, jclass,
                                                                         jstring name) {
  // A null name is Keras's None, as NULL is to the C function.
  std::string n;
  if (name != nullptr && !tfd::jni::ToString(env, name, "policy name", &n)) return;
  tfd::jni::ScopedStatus status;
  TFD_SetGlobalPolicy(name != nullptr ? n.c_str() : nullptr, status.get());
  tfd::jni::ThrowIfError(env, status.get());
}

JNIEXPORT jstring JNICALL Java_org_tfd_MixedPrecision_nativeGlobalPolicy(JNIEnv* env, jclass) {
  const char* name = TFD_GlobalPolicy();
  if (name == nullptr) {
    tfd::jni::ThrowException(env, TF_RESOURCE_EXHAUSTED, "TFD_GlobalPolicy: out of memory");
    return nullptr;
  }
  return env->NewStringUTF(name);
}

JNIEXPORT jfloat JNICALL Java_org_tfd_MixedPrecision_lossScale(JNIEnv* env, jclass,
                                                               jlong model) {
  tfd::jni::ScopedStatus status;
  const float scale = TFD_ModelLossScale(ModelOf(model), status.get());
  tfd::jni::ThrowIfError(env, status.get());
  return scale;
}

JNIEXPORT jlong JNICALL Java_org_tfd_MixedPrecision_lossScaleGoodSteps(JNIEnv* env, jclass,
                                                                       jlong model) {
  tfd::jni::ScopedStatus status;
  const int64_t steps = TFD_ModelLossScaleGoodSteps(ModelOf(model), status.get());
  tfd::jni::ThrowIfError(env, status.get());
  return static_cast<jlong>(steps);
}

JNIEXPORT jstring JNICALL Java_org_tfd_MixedPrecision_dtypePolicy(JNIEnv* env, jclass,
                                                                  jlong model) {
  tfd::jni::ScopedStatus status;
  const char* name = TFD_ModelDtypePolicy(ModelOf(model), status.get());
  if (tfd::jni::ThrowIfError(env, status.get())) return nullptr;
  return env->NewStringUTF(name);
}

}  // extern "C"
