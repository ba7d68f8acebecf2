// JNI side of org.tfd.ParameterServer over TFD_Server (tfd/server.h).
#include <jni.h>

#include "bindings/java/exception_jni.h"
#include "bindings/java/options_jni.h"
#include "tfd/c_api.h"

namespace {

using tfd::jni::ScopedOptions;
using tfd::jni::ScopedStatus;
using tfd::jni::ThrowException;
using tfd::jni::ThrowIfError;

// The server as a Java handle, or 0 with the exception raised.
jlong ServerResult(JNIEnv* env, TFD_Server* server, const ScopedStatus& status) {
  if (ThrowIfError(env, status.get())) {
    TFD_DeleteServer(server);
    return 0;
  }
  return reinterpret_cast<jlong>(server);
}

// Note [Dataset functions]: a worker serving a Java DatasetFunction hands
// TFD_ModelServeTrainStepsFromFunction a FunctionServer as its user data,
// and the Java handle is the FunctionServer too, so that the function
// outlives the native server: deleting it deletes the server first. The
// function runs on a thread of the server that the JVM may not know: the
// thread is attached for the call, and the class and method are resolved
// beforehand on a Java thread (a native thread's FindClass would not see
// the application's classes). ParameterServer.makeWorkerDataset catches
// everything the function throws and writes it into the TF_Status.
struct FunctionServer {
  TFD_Server* server = nullptr;
  JavaVM* vm = nullptr;
  jobject function = nullptr;      // global reference to the DatasetFunction
  jclass server_class = nullptr;   // global reference to org.tfd.ParameterServer
  jmethodID make_dataset = nullptr;  // ParameterServer.makeWorkerDataset

  void Release(JNIEnv* env) {
    TFD_DeleteServer(server);  // First: it may call the function until then.
    if (function != nullptr) env->DeleteGlobalRef(function);
    if (server_class != nullptr) env->DeleteGlobalRef(server_class);
    delete this;
  }
};

TFD_Dataset* CallDatasetFunction(void* user_data, int num_input_pipelines, int input_pipeline_id,
                                 TF_Status* status) {
  auto* served = static_cast<FunctionServer*>(user_data);
  JNIEnv* env = nullptr;
  bool attached = false;
  if (served->vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_EDETACHED) {
    if (served->vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), nullptr) !=
        JNI_OK) {
      TF_SetStatus(status, TF_INTERNAL, "could not attach the server's thread to the JVM");
      return nullptr;
    }
    attached = true;
  }
  jlong dataset = env->CallStaticLongMethod(
      served->server_class, served->make_dataset, served->function,
      static_cast<jint>(num_input_pipelines), static_cast<jint>(input_pipeline_id),
      reinterpret_cast<jlong>(status));
  if (env->ExceptionCheck()) {
    // Only what makeWorkerDataset could not catch (e.g. out of memory
    // while reporting): it must not reach the server's thread.
    env->ExceptionClear();
    TF_SetStatus(status, TF_INTERNAL, "the dataset function's wrapper raised an exception");
    dataset = 0;
  }
  if (attached) served->vm->DetachCurrentThread();
  return reinterpret_cast<TFD_Dataset*>(dataset);
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_org_tfd_ParameterServer_nativeStart(JNIEnv* env, jclass,
                                                                 jobjectArray keys,
                                                                 jobjectArray values) {
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return 0;
  ScopedStatus status;
  TFD_Server* server = TFD_StartParameterServer(options.get(), status.get());
  return ServerResult(env, server, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_ParameterServer_nativeServeTrainSteps(JNIEnv* env, jclass,
                                                                           jlong model,
                                                                           jlong dataset) {
  ScopedStatus status;
  TFD_Server* server =
      TFD_ModelServeTrainSteps(reinterpret_cast<TFD_Model*>(model),
                               reinterpret_cast<const TFD_Dataset*>(dataset), status.get());
  return ServerResult(env, server, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_ParameterServer_nativeServeTrainStepsFromFunction(
    JNIEnv* env, jclass server_class, jlong model, jobject function) {
  auto* served = new FunctionServer;
  if (env->GetJavaVM(&served->vm) != JNI_OK) {
    delete served;
    ThrowException(env, TF_INTERNAL, "GetJavaVM failed");
    return 0;
  }
  served->make_dataset = env->GetStaticMethodID(server_class, "makeWorkerDataset",
                                                "(Lorg/tfd/DatasetFunction;IIJ)J");
  if (served->make_dataset == nullptr) {  // NoSuchMethodError is pending.
    delete served;
    return 0;
  }
  served->function = env->NewGlobalRef(function);
  served->server_class = static_cast<jclass>(env->NewGlobalRef(server_class));
  if (served->function == nullptr || served->server_class == nullptr) {
    served->Release(env);
    ThrowException(env, TF_RESOURCE_EXHAUSTED, "could not hold the dataset function");
    return 0;
  }
  ScopedStatus status;
  served->server = TFD_ModelServeTrainStepsFromFunction(
      reinterpret_cast<TFD_Model*>(model), CallDatasetFunction, served, status.get());
  if (ThrowIfError(env, status.get())) {
    served->Release(env);
    return 0;
  }
  return reinterpret_cast<jlong>(served);
}

JNIEXPORT void JNICALL Java_org_tfd_ParameterServer_setStatus(JNIEnv* env, jclass, jlong status,
                                                              jint code, jstring message) {
  const char* text = message == nullptr ? nullptr : env->GetStringUTFChars(message, nullptr);
  if (message != nullptr && text == nullptr) {
    env->ExceptionClear();  // Out of memory: report the code without the text.
  }
  TF_SetStatus(reinterpret_cast<TF_Status*>(status),
               code == TF_OK ? TF_UNKNOWN : static_cast<TF_Code>(code),
               text != nullptr ? text : "");
  if (text != nullptr) env->ReleaseStringUTFChars(message, text);
}

JNIEXPORT void JNICALL Java_org_tfd_ParameterServer_deleteFunctionServer(JNIEnv* env, jclass,
                                                                         jlong pointer) {
  reinterpret_cast<FunctionServer*>(pointer)->Release(env);
}

JNIEXPORT void JNICALL Java_org_tfd_ParameterServer_delete(JNIEnv*, jclass, jlong pointer) {
  TFD_DeleteServer(reinterpret_cast<TFD_Server*>(pointer));
}

}  // extern "C"
