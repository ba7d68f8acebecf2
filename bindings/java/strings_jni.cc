#include "bindings/java/strings_jni.h"

#include "bindings/java/exception_jni.h"

namespace tfd {
namespace jni {

bool ToString(JNIEnv* env, jstring s, const char* what, std::string* out) {
  if (s == nullptr) {
    ThrowException(env, TF_INVALID_ARGUMENT, (std::string(what) + " is null").c_str());
    return false;
  }
  const char* chars = env->GetStringUTFChars(s, nullptr);
  if (chars == nullptr) return false;  // OutOfMemoryError is pending.
  out->assign(chars, env->GetStringUTFLength(s));
  env->ReleaseStringUTFChars(s, chars);
  return true;
}

bool ToStrings(JNIEnv* env, jobjectArray array, const char* what, std::vector<std::string>* out) {
  if (array == nullptr) {
    ThrowException(env, TF_INVALID_ARGUMENT, (std::string(what) + " is null").c_str());
    return false;
  }
  const jsize n = env->GetArrayLength(array);
  out->assign(n, std::string());
  for (jsize i = 0; i < n; ++i) {
    auto s = static_cast<jstring>(env->GetObjectArrayElement(array, i));
    if (env->ExceptionCheck()) return false;
    const bool ok = ToString(env, s, what, &(*out)[i]);
    env->DeleteLocalRef(s);
    if (!ok) return false;
  }
  return true;
}

std::vector<const char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  out.reserve(strings.size());
  for (const std::string& s : strings) out.push_back(s.c_str());
  return out;
}

}  // namespace jni
}  // namespace tfd
