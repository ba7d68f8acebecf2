// JNI side of org.tfd.Session: TF_SessionRun with operations looked up by
// name in the session's graph.
#include <jni.h>

#include <string>
#include <vector>

#include "bindings/java/exception_jni.h"
#include "bindings/java/strings_jni.h"
#include "tensorflow/c/c_api.h"

namespace {

using tfd::jni::ThrowException;

// Resolves names[i]:indices[i] into outputs; false (exception pending)
// for a name the graph does not have.
bool ToOutputs(JNIEnv* env, TF_Graph* graph, jobjectArray names, jintArray indices,
               std::vector<TF_Output>* out) {
  std::vector<std::string> ops;
  if (!tfd::jni::ToStrings(env, names, "operation name", &ops)) return false;
  std::vector<jint> index(ops.size());
  if (!ops.empty()) env->GetIntArrayRegion(indices, 0, static_cast<jsize>(ops.size()), index.data());
  for (size_t i = 0; i < ops.size(); ++i) {
    TF_Operation* op = TF_GraphOperationByName(graph, ops[i].c_str());
    if (op == nullptr) {
      ThrowException(env, TF_INVALID_ARGUMENT,
                     ("the graph has no operation named '" + ops[i] + "'").c_str());
      return false;
    }
    out->push_back(TF_Output{op, index[i]});
  }
  return true;
}

}  // namespace

extern "C" {

JNIEXPORT jlongArray JNICALL Java_org_tfd_Session_run(
    JNIEnv* env, jclass, jlong session, jlong graph_handle, jobjectArray input_ops,
    jintArray input_indices, jlongArray input_tensors, jobjectArray output_ops,
    jintArray output_indices, jobjectArray target_ops) {
  auto* graph = reinterpret_cast<TF_Graph*>(graph_handle);
  std::vector<TF_Output> inputs, outputs;
  std::vector<std::string> target_names;
  if (!ToOutputs(env, graph, input_ops, input_indices, &inputs) ||
      !ToOutputs(env, graph, output_ops, output_indices, &outputs) ||
      !tfd::jni::ToStrings(env, target_ops, "target name", &target_names)) {
    return nullptr;
  }
  std::vector<const TF_Operation*> targets;
  for (const std::string& name : target_names) {
    TF_Operation* op = TF_GraphOperationByName(graph, name.c_str());
    if (op == nullptr) {
      ThrowException(env, TF_INVALID_ARGUMENT,
                     ("the graph has no operation named '" + name + "'").c_str());
      return nullptr;
    }
    targets.push_back(op);
  }
  std::vector<jlong> input_handles(inputs.size());
  if (!inputs.empty()) {
    env->GetLongArrayRegion(input_tensors, 0, static_cast<jsize>(inputs.size()),
                            input_handles.data());
  }
  std::vector<TF_Tensor*> input_values;
  for (jlong h : input_handles) input_values.push_back(reinterpret_cast<TF_Tensor*>(h));
  std::vector<TF_Tensor*> output_values(outputs.size(), nullptr);

  tfd::jni::ScopedStatus status;
  TF_SessionRun(reinterpret_cast<TF_Session*>(session), nullptr, inputs.data(),
                input_values.data(), static_cast<int>(inputs.size()), outputs.data(),
                output_values.data(), static_cast<int>(outputs.size()), targets.data(),
                static_cast<int>(targets.size()), nullptr, status.get());
  jlongArray out = nullptr;
  if (!tfd::jni::ThrowIfError(env, status.get())) {
    out = env->NewLongArray(static_cast<jsize>(outputs.size()));
  }
  if (out == nullptr) {  // an error, or OutOfMemoryError: nobody owns the results
    for (TF_Tensor* t : output_values) TF_DeleteTensor(t);
    return nullptr;
  }
  std::vector<jlong> handles;
  for (TF_Tensor* t : output_values) handles.push_back(reinterpret_cast<jlong>(t));
  if (!handles.empty()) {
    env->SetLongArrayRegion(out, 0, static_cast<jsize>(handles.size()), handles.data());
  }
  return out;
}

}  // extern "C"
