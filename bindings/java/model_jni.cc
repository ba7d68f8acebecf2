// JNI side of org.tfd.Model (and of the Layers factories) over TFD_Model.
#include <jni.h>

#include <string>
#include <vector>

#include "bindings/java/exception_jni.h"
#include "bindings/java/options_jni.h"
#include "bindings/java/strings_jni.h"
#include "tfd/c_api.h"

namespace {

using tfd::jni::ScopedOptions;
using tfd::jni::ScopedStatus;
using tfd::jni::ThrowException;
using tfd::jni::ThrowIfError;

TFD_Model* FromHandle(jlong pointer) { return reinterpret_cast<TFD_Model*>(pointer); }

// A nullable Java string: `present` is false for null.
struct OptionalString {
  std::string value;
  bool present = false;
  const char* c_str() const { return present ? value.c_str() : nullptr; }
};

bool ToOptionalString(JNIEnv* env, jstring s, OptionalString* out) {
  out->present = s != nullptr;
  return s == nullptr || tfd::jni::ToString(env, s, "string", &out->value);
}

bool ToLongs(JNIEnv* env, jlongArray array, const char* what, std::vector<int64_t>* out) {
  if (array == nullptr) {
    ThrowException(env, TF_INVALID_ARGUMENT, (std::string(what) + " is null").c_str());
    return false;
  }
  out->resize(env->GetArrayLength(array));
  if (!out->empty()) {
    env->GetLongArrayRegion(array, 0, static_cast<jsize>(out->size()),
                            reinterpret_cast<jlong*>(out->data()));
  }
  return true;
}

// Converts the Java string `s`, runs `call(c_string, status)` and raises its
// error: the shape of every model function that takes one string.
template <typename Call>
void CallWithString(JNIEnv* env, jstring s, const char* what, Call call) {
  std::string value;
  if (!tfd::jni::ToString(env, s, what, &value)) return;
  ScopedStatus status;
  call(value.c_str(), status.get());
  ThrowIfError(env, status.get());
}

// Converts the Java options (keys[i] = values[i]), runs `call(options, status)`
// and raises its error.
template <typename Call>
void CallWithOptions(JNIEnv* env, jobjectArray keys, jobjectArray values, Call call) {
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return;
  ScopedStatus status;
  call(options.get(), status.get());
  ThrowIfError(env, status.get());
}

jlong NewModelResult(JNIEnv* env, TFD_Model* model, const ScopedStatus& status) {
  if (ThrowIfError(env, status.get())) {
    TFD_DeleteModel(model);
    return 0;
  }
  return reinterpret_cast<jlong>(model);
}

// Note [Fit callbacks]: TFD_ModelFit calls Trampoline with a FitContext.
// The Java listener may throw; the exception is left pending, training is
// stopped, and the Java caller sees it once nativeFit returns (every later
// callback returns at once). The callback may come on a thread the JVM has
// not seen, so the env is looked up (and the thread attached) per call.
struct FitContext {
  JavaVM* vm;
  jobject listener;
  jmethodID on_progress;
};

int Trampoline(void* user_data, int epoch, int64_t step, int epoch_end,
               const char* const* names, const double* values, int num_values) {
  auto* context = static_cast<FitContext*>(user_data);
  JNIEnv* env = nullptr;
  bool attached = false;
  if (context->vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_EDETACHED) {
    if (context->vm->AttachCurrentThread(reinterpret_cast<void**>(&env), nullptr) != JNI_OK) {
      return 1;
    }
    attached = true;
  }
  int stop = 1;
  if (!env->ExceptionCheck()) {
    jclass string_class = env->FindClass("java/lang/String");
    jobjectArray java_names =
        string_class == nullptr ? nullptr : env->NewObjectArray(num_values, string_class, nullptr);
    jdoubleArray java_values = java_names == nullptr ? nullptr : env->NewDoubleArray(num_values);
    bool ok = java_values != nullptr;
    for (int i = 0; ok && i < num_values; ++i) {
      jstring name = env->NewStringUTF(names[i]);
      ok = name != nullptr;
      if (ok) env->SetObjectArrayElement(java_names, i, name);
      env->DeleteLocalRef(name);
    }
    if (ok && num_values > 0) env->SetDoubleArrayRegion(java_values, 0, num_values, values);
    if (ok && !env->ExceptionCheck()) {
      const jboolean wants_stop =
          env->CallBooleanMethod(context->listener, context->on_progress, epoch,
                                 static_cast<jlong>(step), epoch_end != 0, java_names,
                                 java_values);
      stop = env->ExceptionCheck() || wants_stop ? 1 : 0;
    }
    env->DeleteLocalRef(java_values);
    env->DeleteLocalRef(java_names);
    env->DeleteLocalRef(string_class);
  }
  if (attached) context->vm->DetachCurrentThread();
  return stop;
}

// Runs `fit(context, status)`, a TFD_ModelFit call reporting to `listener`
// (a Model.FitListener) through Trampoline, and raises its error.
template <typename Fit>
void FitWithListener(JNIEnv* env, jobject listener, Fit fit) {
  FitContext context{nullptr, listener, nullptr};
  if (env->GetJavaVM(&context.vm) != JNI_OK) {
    ThrowException(env, TF_INTERNAL, "GetJavaVM failed");
    return;
  }
  jclass listener_class = env->GetObjectClass(listener);
  context.on_progress =
      env->GetMethodID(listener_class, "onProgress", "(IJZ[Ljava/lang/String;[D)Z");
  env->DeleteLocalRef(listener_class);
  if (context.on_progress == nullptr) return;  // NoSuchMethodError is pending.
  ScopedStatus status;
  fit(&context, status.get());
  // A listener exception is already pending and wins (see the note above).
  ThrowIfError(env, status.get());
}

// Runs `evaluate(results, max_results, status)`, a TFD_ModelEvaluate call,
// with room for the loss and every compiled metric; returns the values it
// wrote, or NULL with the exception raised.
template <typename Evaluate>
jdoubleArray EvaluateInto(JNIEnv* env, jlong model, Evaluate evaluate) {
  ScopedStatus status;
  const int n = TFD_ModelNumMetrics(FromHandle(model), status.get());
  if (ThrowIfError(env, status.get())) return nullptr;
  std::vector<double> results(1 + n);
  const int count = evaluate(results.data(), static_cast<int>(results.size()), status.get());
  if (ThrowIfError(env, status.get())) return nullptr;
  const jsize kept = count < static_cast<int>(results.size()) ? count : results.size();
  jdoubleArray out = env->NewDoubleArray(kept);
  if (out != nullptr && kept > 0) env->SetDoubleArrayRegion(out, 0, kept, results.data());
  return out;
}

}  // namespace

extern "C" {

// ---- Building ---------------------------------------------------------

JNIEXPORT jlong JNICALL Java_org_tfd_Model_nativeSequential(JNIEnv* env, jclass, jlong strategy,
                                                            jstring name) {
  OptionalString n;
  if (!ToOptionalString(env, name, &n)) return 0;
  ScopedStatus status;
  TFD_Model* m =
      TFD_NewSequential(reinterpret_cast<TFD_Strategy*>(strategy), n.c_str(), status.get());
  return NewModelResult(env, m, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Model_nativeFromKerasJson(JNIEnv* env, jclass,
                                                               jlong strategy, jstring json) {
  std::string j;
  if (!tfd::jni::ToString(env, json, "Keras JSON", &j)) return 0;
  ScopedStatus status;
  TFD_Model* m =
      TFD_NewModelFromKerasJson(reinterpret_cast<TFD_Strategy*>(strategy), j.c_str(), status.get());
  return NewModelResult(env, m, status);
}

JNIEXPORT void JNICALL Java_org_tfd_Model_delete(JNIEnv*, jclass, jlong pointer) {
  TFD_DeleteModel(FromHandle(pointer));
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addInput(JNIEnv* env, jclass, jlong model,
                                                   jlongArray shape, jint dtype) {
  std::vector<int64_t> dims;
  if (!ToLongs(env, shape, "input shape", &dims)) return;
  ScopedStatus status;
  TFD_AddInput(FromHandle(model), dims.data(), static_cast<int>(dims.size()),
               static_cast<TF_DataType>(dtype), status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addDense(JNIEnv* env, jclass, jlong model, jlong units,
                                                   jstring activation, jobjectArray keys,
                                                   jobjectArray values) {
  OptionalString act;
  if (!ToOptionalString(env, activation, &act)) return;
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return;
  ScopedStatus status;
  TFD_AddDense(FromHandle(model), units, act.c_str(), options.get(), status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addConv2D(JNIEnv* env, jclass, jlong model,
                                                    jlong filters, jlongArray kernel_size,
                                                    jstring activation, jobjectArray keys,
                                                    jobjectArray values) {
  std::vector<int64_t> kernel;
  OptionalString act;
  if (!ToLongs(env, kernel_size, "kernel size", &kernel) ||
      !ToOptionalString(env, activation, &act)) {
    return;
  }
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return;
  ScopedStatus status;
  TFD_AddConv2D(FromHandle(model), filters, kernel.data(), static_cast<int>(kernel.size()),
                act.c_str(), options.get(), status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addPooling2D(JNIEnv* env, jclass, jlong model,
                                                       jboolean average, jlongArray pool_size,
                                                       jobjectArray keys, jobjectArray values) {
  std::vector<int64_t> pool;
  if (!ToLongs(env, pool_size, "pool size", &pool)) return;
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return;
  ScopedStatus status;
  const int n = static_cast<int>(pool.size());
  const int64_t* p = pool.empty() ? nullptr : pool.data();
  if (average) {
    TFD_AddAveragePooling2D(FromHandle(model), p, n, options.get(), status.get());
  } else {
    TFD_AddMaxPooling2D(FromHandle(model), p, n, options.get(), status.get());
  }
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addGlobalAveragePooling2D(JNIEnv* env, jclass,
                                                                    jlong model) {
  ScopedStatus status;
  TFD_AddGlobalAveragePooling2D(FromHandle(model), nullptr, status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addFlatten(JNIEnv* env, jclass, jlong model) {
  ScopedStatus status;
  TFD_AddFlatten(FromHandle(model), nullptr, status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addReshape(JNIEnv* env, jclass, jlong model,
                                                     jlongArray target_shape) {
  std::vector<int64_t> dims;
  if (!ToLongs(env, target_shape, "target shape", &dims)) return;
  ScopedStatus status;
  TFD_AddReshape(FromHandle(model), dims.data(), static_cast<int>(dims.size()), nullptr,
                 status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addDropout(JNIEnv* env, jclass, jlong model,
                                                     jdouble rate, jobjectArray keys,
                                                     jobjectArray values) {
  CallWithOptions(env, keys, values, [&](const TFD_Options* options, TF_Status* status) {
    TFD_AddDropout(FromHandle(model), rate, options, status);
  });
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addActivation(JNIEnv* env, jclass, jlong model,
                                                        jstring activation, jobjectArray keys,
                                                        jobjectArray values) {
  std::string act;
  if (!tfd::jni::ToString(env, activation, "activation", &act)) return;
  CallWithOptions(env, keys, values, [&](const TFD_Options* options, TF_Status* status) {
    TFD_AddActivation(FromHandle(model), act.c_str(), options, status);
  });
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addBatchNormalization(JNIEnv* env, jclass, jlong model,
                                                                jobjectArray keys,
                                                                jobjectArray values) {
  CallWithOptions(env, keys, values, [&](const TFD_Options* options, TF_Status* status) {
    TFD_AddBatchNormalization(FromHandle(model), options, status);
  });
}

JNIEXPORT void JNICALL Java_org_tfd_Model_addLayerFromKerasJson(JNIEnv* env, jclass, jlong model,
                                                                jstring json) {
  CallWithString(env, json, "layer JSON", [&](const char* j, TF_Status* status) {
    TFD_AddLayerFromKerasJson(FromHandle(model), j, status);
  });
}

JNIEXPORT jstring JNICALL Java_org_tfd_Model_nativeSummary(JNIEnv* env, jclass, jlong model) {
  ScopedStatus status;
  TF_Buffer* summary = TFD_ModelSummary(FromHandle(model), status.get());
  if (ThrowIfError(env, status.get())) {
    TF_DeleteBuffer(summary);
    return nullptr;
  }
  std::string text(static_cast<const char*>(summary->data), summary->length);
  TF_DeleteBuffer(summary);
  return env->NewStringUTF(text.c_str());
}

// ---- Training ---------------------------------------------------------

JNIEXPORT void JNICALL Java_org_tfd_Model_nativeCompile(
    JNIEnv* env, jclass, jlong model, jstring optimizer, jobjectArray optimizer_keys,
    jobjectArray optimizer_values, jstring loss, jobjectArray loss_keys,
    jobjectArray loss_values, jobjectArray metrics) {
  std::string opt, l;
  std::vector<std::string> metric_names;
  if (!tfd::jni::ToString(env, optimizer, "optimizer", &opt) ||
      !tfd::jni::ToString(env, loss, "loss", &l) ||
      !tfd::jni::ToStrings(env, metrics, "metric", &metric_names)) {
    return;
  }
  ScopedOptions optimizer_options(env, optimizer_keys, optimizer_values);
  if (!optimizer_options.ok()) return;
  ScopedOptions loss_options(env, loss_keys, loss_values);
  if (!loss_options.ok()) return;
  std::vector<const char*> m = tfd::jni::CStrings(metric_names);
  ScopedStatus status;
  TFD_ModelCompile(FromHandle(model), opt.c_str(), optimizer_options.get(), l.c_str(),
                   loss_options.get(), m.data(), static_cast<int>(m.size()), status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT jfloat JNICALL Java_org_tfd_Model_nativeTrainStep(JNIEnv* env, jclass, jlong model,
                                                            jlong x, jlong y) {
  ScopedStatus status;
  const float loss = TFD_ModelTrainStep(FromHandle(model), reinterpret_cast<TF_Tensor*>(x),
                                        reinterpret_cast<TF_Tensor*>(y), status.get());
  ThrowIfError(env, status.get());
  return loss;
}

JNIEXPORT jobjectArray JNICALL Java_org_tfd_Model_nativeMetricNames(JNIEnv* env, jclass,
                                                                   jlong model) {
  ScopedStatus status;
  const int n = TFD_ModelNumMetrics(FromHandle(model), status.get());
  if (ThrowIfError(env, status.get())) return nullptr;
  jclass string_class = env->FindClass("java/lang/String");
  if (string_class == nullptr) return nullptr;
  jobjectArray names = env->NewObjectArray(n, string_class, nullptr);
  env->DeleteLocalRef(string_class);
  for (int i = 0; names != nullptr && i < n; ++i) {
    const char* name = TFD_ModelMetricName(FromHandle(model), i, status.get());
    if (ThrowIfError(env, status.get())) return nullptr;
    jstring s = env->NewStringUTF(name);
    if (s == nullptr) return nullptr;
    env->SetObjectArrayElement(names, i, s);
    env->DeleteLocalRef(s);
  }
  return names;
}

JNIEXPORT jfloatArray JNICALL Java_org_tfd_Model_nativeMetricValues(JNIEnv* env, jclass,
                                                                   jlong model) {
  ScopedStatus status;
  const int n = TFD_ModelNumMetrics(FromHandle(model), status.get());
  if (ThrowIfError(env, status.get())) return nullptr;
  std::vector<jfloat> values(n);
  for (int i = 0; i < n; ++i) {
    values[i] = TFD_ModelMetricValue(FromHandle(model), i, status.get());
    if (ThrowIfError(env, status.get())) return nullptr;
  }
  jfloatArray out = env->NewFloatArray(n);
  if (out != nullptr && n > 0) env->SetFloatArrayRegion(out, 0, n, values.data());
  return out;
}

JNIEXPORT void JNICALL Java_org_tfd_Model_nativeResetMetrics(JNIEnv* env, jclass, jlong model) {
  ScopedStatus status;
  TFD_ModelResetMetrics(FromHandle(model), status.get());
  ThrowIfError(env, status.get());
}

JNIEXPORT jlong JNICALL Java_org_tfd_Model_nativePredict(JNIEnv* env, jclass, jlong model,
                                                         jlong x, jlong batch_size) {
  ScopedStatus status;
  TF_Tensor* y = TFD_ModelPredict(FromHandle(model), reinterpret_cast<TF_Tensor*>(x), batch_size,
                                  status.get());
  if (ThrowIfError(env, status.get())) {
    TF_DeleteTensor(y);
    return 0;
  }
  return reinterpret_cast<jlong>(y);
}

JNIEXPORT void JNICALL Java_org_tfd_Model_nativeFit(JNIEnv* env, jclass, jlong model,
                                                    jlong dataset, jint epochs,
                                                    jobject listener) {
  FitWithListener(env, listener, [&](FitContext* context, TF_Status* status) {
    TFD_ModelFit(FromHandle(model), reinterpret_cast<const TFD_Dataset*>(dataset), epochs,
                 Trampoline, context, status);
  });
}

JNIEXPORT void JNICALL Java_org_tfd_Model_nativeFitWithOptions(JNIEnv* env, jclass, jlong model,
                                                               jlong dataset,
                                                               jlong validation_data,
                                                               jobjectArray keys,
                                                               jobjectArray values,
                                                               jobject listener) {
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return;
  FitWithListener(env, listener, [&](FitContext* context, TF_Status* status) {
    TFD_ModelFitWithOptions(FromHandle(model), reinterpret_cast<const TFD_Dataset*>(dataset),
                            reinterpret_cast<const TFD_Dataset*>(validation_data),
                            options.get(), Trampoline, context, status);
  });
}

JNIEXPORT jdoubleArray JNICALL Java_org_tfd_Model_nativeEvaluate(JNIEnv* env, jclass,
                                                                 jlong model, jlong dataset) {
  return EvaluateInto(env, model, [&](double* results, int max_results, TF_Status* status) {
    return TFD_ModelEvaluate(FromHandle(model), reinterpret_cast<const TFD_Dataset*>(dataset),
                             results, max_results, status);
  });
}

JNIEXPORT jdoubleArray JNICALL Java_org_tfd_Model_nativeEvaluateWithOptions(
    JNIEnv* env, jclass, jlong model, jlong dataset, jobjectArray keys, jobjectArray values) {
  ScopedOptions options(env, keys, values);
  if (!options.ok()) return nullptr;
  return EvaluateInto(env, model, [&](double* results, int max_results, TF_Status* status) {
    return TFD_ModelEvaluateWithOptions(FromHandle(model),
                                        reinterpret_cast<const TFD_Dataset*>(dataset),
                                        options.get(), results, max_results, status);
  });
}

// ---- Saving -----------------------------------------------------------

JNIEXPORT jstring JNICALL Java_org_tfd_Model_nativeSaveCheckpoint(JNIEnv* env, jclass,
                                                                  jlong model,
                                                                  jstring file_prefix) {
  std::string prefix;
  if (!tfd::jni::ToString(env, file_prefix, "checkpoint prefix", &prefix)) return nullptr;
  ScopedStatus status;
  TF_Buffer* written = TFD_ModelSaveCheckpoint(FromHandle(model), prefix.c_str(), status.get());
  if (ThrowIfError(env, status.get())) {
    TF_DeleteBuffer(written);
    return nullptr;
  }
  std::string path(static_cast<const char*>(written->data), written->length);
  TF_DeleteBuffer(written);
  return env->NewStringUTF(path.c_str());
}

JNIEXPORT void JNICALL Java_org_tfd_Model_nativeRestoreCheckpoint(JNIEnv* env, jclass,
                                                                  jlong model, jstring prefix) {
  CallWithString(env, prefix, "checkpoint prefix", [&](const char* p, TF_Status* status) {
    TFD_ModelRestoreCheckpoint(FromHandle(model), p, status);
  });
}

JNIEXPORT void JNICALL Java_org_tfd_Model_nativeExportSavedModel(JNIEnv* env, jclass,
                                                                 jlong model,
                                                                 jstring export_dir) {
  CallWithString(env, export_dir, "export directory", [&](const char* dir, TF_Status* status) {
    TFD_ModelExportSavedModel(FromHandle(model), dir, status);
  });
}

}  // extern "C"
