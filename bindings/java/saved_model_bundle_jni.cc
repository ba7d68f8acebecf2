// JNI side of org.tfd.SavedModelBundle: TF_LoadSessionFromSavedModel and
// the matching close and delete.
#include <jni.h>

#include <string>
#include <vector>

#include "bindings/java/exception_jni.h"
#include "bindings/java/strings_jni.h"
#include "tensorflow/c/c_api.h"

using tfd::jni::ScopedStatus;
using tfd::jni::ThrowIfError;

extern "C" {

// Returns {session, graph}; the serialized MetaGraphDef goes to
// meta_graph_out[0].
JNIEXPORT jlongArray JNICALL Java_org_tfd_SavedModelBundle_load(JNIEnv* env, jclass,
                                                                jstring export_dir,
                                                                jobjectArray tags,
                                                                jobjectArray meta_graph_out) {
  std::string dir;
  std::vector<std::string> tag_list;
  if (!tfd::jni::ToString(env, export_dir, "export directory", &dir) ||
      !tfd::jni::ToStrings(env, tags, "tag", &tag_list)) {
    return nullptr;
  }
  std::vector<const char*> c_tags = tfd::jni::CStrings(tag_list);
  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Graph* graph = TF_NewGraph();
  TF_Buffer* meta_graph = TF_NewBuffer();
  ScopedStatus status;
  TF_Session* session =
      TF_LoadSessionFromSavedModel(options, nullptr, dir.c_str(), c_tags.data(),
                                   static_cast<int>(c_tags.size()), graph, meta_graph,
                                   status.get());
  TF_DeleteSessionOptions(options);
  jlongArray out = nullptr;
  if (!ThrowIfError(env, status.get())) {
    jbyteArray bytes = env->NewByteArray(static_cast<jsize>(meta_graph->length));
    out = bytes == nullptr ? nullptr : env->NewLongArray(2);
    if (out != nullptr) {
      env->SetByteArrayRegion(bytes, 0, static_cast<jsize>(meta_graph->length),
                              static_cast<const jbyte*>(meta_graph->data));
      env->SetObjectArrayElement(meta_graph_out, 0, bytes);
      const jlong handles[2] = {reinterpret_cast<jlong>(session), reinterpret_cast<jlong>(graph)};
      env->SetLongArrayRegion(out, 0, 2, handles);
    }
    env->DeleteLocalRef(bytes);
  }
  TF_DeleteBuffer(meta_graph);
  if (out == nullptr || env->ExceptionCheck()) {
    if (session != nullptr) {
      ScopedStatus ignored;
      TF_CloseSession(session, ignored.get());
      TF_DeleteSession(session, ignored.get());
    }
    TF_DeleteGraph(graph);
    return nullptr;
  }
  return out;
}

// The Cleaner calls this too, so it must not throw: a failure to close is
// not reportable there, and the memory is freed either way.
JNIEXPORT void JNICALL Java_org_tfd_SavedModelBundle_delete(JNIEnv*, jclass, jlong session,
                                                            jlong graph) {
  ScopedStatus status;
  auto* s = reinterpret_cast<TF_Session*>(session);
  TF_CloseSession(s, status.get());
  TF_DeleteSession(s, status.get());
  TF_DeleteGraph(reinterpret_cast<TF_Graph*>(graph));
}

}  // extern "C"
