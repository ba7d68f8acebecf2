// TF_Buffer and the library's version strings.
#include <cstdlib>
#include <cstring>
#include <new>

#include "tensorflow/c/c_api.h"
#include "tfd/c_api.h"

extern "C" {

TF_Buffer* TF_NewBuffer(void) { return new (std::nothrow) TF_Buffer{nullptr, 0, nullptr}; }

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  if (proto == nullptr && proto_len > 0) return nullptr;
  TF_Buffer* buffer = TF_NewBuffer();
  if (buffer == nullptr) return nullptr;
  if (proto_len == 0) return buffer;
  void* copy = std::malloc(proto_len);
  if (copy == nullptr) {
    delete buffer;
    return nullptr;
  }
  std::memcpy(copy, proto, proto_len);
  buffer->data = copy;
  buffer->length = proto_len;
  buffer->data_deallocator = [](void* data, size_t) { std::free(data); };
  return buffer;
}

void TF_DeleteBuffer(TF_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  delete buffer;
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) {
  return buffer == nullptr ? TF_Buffer{nullptr, 0, nullptr} : *buffer;
}

const char* TF_Version(void) { return "2.21.0+tfd.0.6.0"; }

const char* TFD_Version(void) { return "0.6.0"; }

}  // extern "C"
