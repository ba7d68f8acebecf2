// JNI side of org.tfd.Dataset over TFD_Dataset. Every transform returns a
// new native dataset that the Java side owns.
#include <jni.h>

#include <string>
#include <vector>

#include "bindings/java/exception_jni.h"
#include "bindings/java/strings_jni.h"
#include "tfd/c_api.h"

namespace {

using tfd::jni::ScopedStatus;
using tfd::jni::ThrowIfError;

const TFD_Dataset* FromHandle(jlong pointer) {
  return reinterpret_cast<const TFD_Dataset*>(pointer);
}

// The handle of `d`, or 0 with the exception `status` describes pending.
jlong Result(JNIEnv* env, TFD_Dataset* d, const ScopedStatus& status) {
  if (ThrowIfError(env, status.get())) {
    TFD_DeleteDataset(d);
    return 0;
  }
  return reinterpret_cast<jlong>(d);
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeFromTensors(JNIEnv* env, jclass,
                                                               jlongArray tensors) {
  std::vector<jlong> handles(env->GetArrayLength(tensors));
  if (!handles.empty()) {
    env->GetLongArrayRegion(tensors, 0, static_cast<jsize>(handles.size()), handles.data());
  }
  std::vector<TF_Tensor*> ts;
  for (jlong h : handles) ts.push_back(reinterpret_cast<TF_Tensor*>(h));
  ScopedStatus status;
  TFD_Dataset* d =
      TFD_NewDatasetFromTensors(ts.data(), static_cast<int>(ts.size()), status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeFromIdx(JNIEnv* env, jclass, jstring images,
                                                           jstring labels, jdouble scale) {
  std::string i, l;
  if (!tfd::jni::ToString(env, images, "images path", &i) ||
      !tfd::jni::ToString(env, labels, "labels path", &l)) {
    return 0;
  }
  ScopedStatus status;
  TFD_Dataset* d = TFD_NewDatasetFromIdx(i.c_str(), l.c_str(), scale, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeFromTFRecord(JNIEnv* env, jclass,
                                                                jobjectArray filenames,
                                                                jobjectArray keys,
                                                                jintArray dtypes,
                                                                jobjectArray shapes) {
  std::vector<std::string> files, names;
  if (!tfd::jni::ToStrings(env, filenames, "file name", &files) ||
      !tfd::jni::ToStrings(env, keys, "feature key", &names)) {
    return 0;
  }
  const int n = static_cast<int>(names.size());
  std::vector<TF_DataType> types(n);
  std::vector<jint> type_values(n);
  if (n > 0) env->GetIntArrayRegion(dtypes, 0, n, type_values.data());
  for (int i = 0; i < n; ++i) types[i] = static_cast<TF_DataType>(type_values[i]);
  std::vector<std::vector<int64_t>> dims(n);
  std::vector<const int64_t*> shape_ptrs(n);
  std::vector<int> ranks(n);
  for (int i = 0; i < n; ++i) {
    auto shape = static_cast<jlongArray>(env->GetObjectArrayElement(shapes, i));
    if (env->ExceptionCheck()) return 0;
    dims[i].resize(env->GetArrayLength(shape));
    if (!dims[i].empty()) {
      env->GetLongArrayRegion(shape, 0, static_cast<jsize>(dims[i].size()),
                              reinterpret_cast<jlong*>(dims[i].data()));
    }
    env->DeleteLocalRef(shape);
    shape_ptrs[i] = dims[i].data();
    ranks[i] = static_cast<int>(dims[i].size());
  }
  std::vector<const char*> c_files = tfd::jni::CStrings(files);
  std::vector<const char*> c_names = tfd::jni::CStrings(names);
  ScopedStatus status;
  TFD_Dataset* d = TFD_NewDatasetFromTFRecord(
      c_files.data(), static_cast<int>(c_files.size()), c_names.data(), types.data(),
      shape_ptrs.data(), ranks.data(), n, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeShuffle(JNIEnv* env, jclass, jlong pointer,
                                                           jlong buffer_size, jlong seed,
                                                           jboolean reshuffle) {
  ScopedStatus status;
  TFD_Dataset* d = TFD_DatasetShuffle(FromHandle(pointer), buffer_size,
                                      static_cast<uint64_t>(seed), reshuffle, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeBatch(JNIEnv* env, jclass, jlong pointer,
                                                         jlong batch_size,
                                                         jboolean drop_remainder) {
  ScopedStatus status;
  TFD_Dataset* d =
      TFD_DatasetBatch(FromHandle(pointer), batch_size, drop_remainder, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeRepeat(JNIEnv* env, jclass, jlong pointer,
                                                          jlong count) {
  ScopedStatus status;
  TFD_Dataset* d = TFD_DatasetRepeat(FromHandle(pointer), count, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeTake(JNIEnv* env, jclass, jlong pointer,
                                                        jlong count) {
  ScopedStatus status;
  TFD_Dataset* d = TFD_DatasetTake(FromHandle(pointer), count, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeShard(JNIEnv* env, jclass, jlong pointer,
                                                         jlong num_shards, jlong index) {
  ScopedStatus status;
  TFD_Dataset* d = TFD_DatasetShard(FromHandle(pointer), num_shards, index, status.get());
  return Result(env, d, status);
}

JNIEXPORT jlong JNICALL Java_org_tfd_Dataset_nativeCardinality(JNIEnv* env, jclass,
                                                               jlong pointer) {
  ScopedStatus status;
  const int64_t n = TFD_DatasetCardinality(FromHandle(pointer), status.get());
  ThrowIfError(env, status.get());
  return n;
}

JNIEXPORT void JNICALL Java_org_tfd_Dataset_delete(JNIEnv*, jclass, jlong pointer) {
  TFD_DeleteDataset(reinterpret_cast<TFD_Dataset*>(pointer));
}

}  // extern "C"
