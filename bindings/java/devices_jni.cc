// JNI side of org.tfd.Devices over TFD_SetDefaultDevice.
#include <jni.h>

#include <string>

#include "bindings/java/exception_jni.h"
#include "bindings/java/strings_jni.h"
#include "tfd/c_api.h"

extern "C" {

JNIEXPORT void JNICALL Java_org_tfd_Devices_nativeSetDefault(JNIEnv* env, jclass,
                                                             jstring name) {
  // A null name is the host, as NULL is to the C function.
  std::string n;
  if (name != nullptr && !tfd::jni::ToString(env, name, "device name", &n)) return;
  tfd::jni::ScopedStatus status;
  TFD_SetDefaultDevice(name != nullptr ? n.c_str() : nullptr, status.get());
  tfd::jni::ThrowIfError(env, status.get());
}

}  // extern "C"
