#include "bindings/java/exception_jni.h"

namespace tfd {
namespace jni {

void ThrowException(JNIEnv* env, TF_Code code, const char* message) {
  // An exception raised earlier in this call wins: it describes the first
  // failure, and JNI forbids most calls while one is pending.
  if (env->ExceptionCheck()) return;
  jclass base = env->FindClass("org/tfd/TfdException");
  if (base == nullptr) return;  // NoClassDefFoundError is pending.
  jmethodID for_code =
      env->GetStaticMethodID(base, "forCode", "(ILjava/lang/String;)Lorg/tfd/TfdException;");
  if (for_code == nullptr) {
    env->DeleteLocalRef(base);
    return;
  }
  jstring text = env->NewStringUTF(message != nullptr ? message : "");
  if (text == nullptr) {
    env->DeleteLocalRef(base);
    return;
  }
  auto error = static_cast<jthrowable>(
      env->CallStaticObjectMethod(base, for_code, static_cast<jint>(code), text));
  if (error != nullptr && !env->ExceptionCheck()) env->Throw(error);
  env->DeleteLocalRef(error);
  env->DeleteLocalRef(text);
  env->DeleteLocalRef(base);
}

bool ThrowIfError(JNIEnv* env, const TF_Status* status) {
  if (status == nullptr) {
    ThrowException(env, TF_RESOURCE_EXHAUSTED, "could not allocate a TF_Status");
    return true;
  }
  if (TF_GetCode(status) == TF_OK) return false;
  ThrowException(env, TF_GetCode(status), TF_Message(status));
  return true;
}

}  // namespace jni
}  // namespace tfd
