// Java strings and string arrays to C++ ones, raising exceptions on null.
#ifndef TFD_BINDINGS_JAVA_STRINGS_JNI_H_
#define TFD_BINDINGS_JAVA_STRINGS_JNI_H_

#include <jni.h>

#include <string>
#include <vector>

namespace tfd {
namespace jni {

// Copies `s` (modified UTF-8) into `out`. A null `s` raises
// InvalidArgumentException naming `what` and returns false.
bool ToString(JNIEnv* env, jstring s, const char* what, std::string* out);

// Copies every element; a null array or element raises as ToString does.
bool ToStrings(JNIEnv* env, jobjectArray array, const char* what, std::vector<std::string>* out);

// Pointers into `strings`, for C calls that take `const char* const*`.
std::vector<const char*> CStrings(const std::vector<std::string>& strings);

}  // namespace jni
}  // namespace tfd

#endif  // TFD_BINDINGS_JAVA_STRINGS_JNI_H_
