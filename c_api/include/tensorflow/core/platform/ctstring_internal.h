/* TF_TString's layout and the functions that read it, at the path and with
 * the names of TensorFlow's ctstring_internal.h, so that C programs written
 * against TensorFlow's headers compile unchanged. The functions that change
 * a string are in ctstring.h, which includes this file.
 *
 * A TF_TString is 24 bytes; the low two bits of its first byte say which of
 * four representations it holds (little-endian hosts only):
 *   SMALL   up to 22 bytes inline: byte 0 is size << 2, then the bytes and
 *           a NUL.
 *   LARGE   size_t size << 2 | 1, size_t capacity, char* to malloc'd memory
 *           of capacity + 1 bytes (NUL-terminated); the string owns it.
 *   OFFSET  uint32 size << 2 | 2, uint32 offset of the bytes from the
 *           TF_TString's own address, uint32 count; read-only.
 *   VIEW    size_t size << 2 | 3, const char* to bytes someone else owns,
 *           and an owner reference (NULL unless TensorFlow's C++ runtime
 *           made it); read-only.
 *
 * Everything here is static inline: nothing is exported from libtfd.so.
 * The readers take a valid, non-NULL string; the exported TF_String*
 * functions of tensorflow/c/tf_tstring.h are the NULL-tolerant versions.
 * TF_TStrings are not thread-safe. */
#ifndef TFD_C_API_TENSORFLOW_CORE_PLATFORM_CTSTRING_INTERNAL_H_
#define TFD_C_API_TENSORFLOW_CORE_PLATFORM_CTSTRING_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tfd's TF_TString is laid out for little-endian hosts"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_TString_Type {
  TF_TSTR_SMALL = 0x00,
  TF_TSTR_LARGE = 0x01,
  TF_TSTR_OFFSET = 0x02,
  TF_TSTR_VIEW = 0x03,
  TF_TSTR_TYPE_MASK = 0x03
} TF_TString_Type;

/* A reference-counted owner of a VIEW's bytes. Only TensorFlow's C++
 * runtime makes them; dropping a VIEW drops its reference. */
struct TStringOwnerCApi;
typedef void (*tstring_owner_ref_t)(struct TStringOwnerCApi* self);
typedef bool (*tstring_owner_unref_t)(struct TStringOwnerCApi* self); /* true: freed */

typedef struct TStringOwnerCApi {
  tstring_owner_ref_t ref;
  tstring_owner_unref_t unref;
  void* obj;
} TStringOwnerCApi;

typedef struct TF_TString_Large {
  size_t size; /* size << 2 | TF_TSTR_LARGE */
  size_t cap;
  char* ptr;
} TF_TString_Large;

typedef struct TF_TString_Offset {
  uint32_t size; /* size << 2 | TF_TSTR_OFFSET */
  uint32_t offset;
  uint32_t count;
} TF_TString_Offset;

typedef struct TF_TString_View {
  size_t size; /* size << 2 | TF_TSTR_VIEW */
  const char* ptr;
  TStringOwnerCApi* owner_ref;
} TF_TString_View;

typedef struct TF_TString_Raw {
  uint8_t raw[24];
} TF_TString_Raw;

/* The representations other than SMALL (TensorFlow names this union too;
 * its size is what SMALL fits in). */
typedef union TF_TString_Union {
  TF_TString_Large large;
  TF_TString_Offset offset;
  TF_TString_View view;
  TF_TString_Raw raw;
} TF_TString_Union;

/* Bytes a SMALL string holds inline: 24 less the size byte and the NUL. */
enum { TF_TString_SmallCapacity = 22 };

typedef struct TF_TString_Small {
  uint8_t size; /* size << 2 | TF_TSTR_SMALL */
  char str[TF_TString_SmallCapacity + 1];
} TF_TString_Small;

typedef struct TF_TString {
  union {
    TF_TString_Small smll;
    TF_TString_Large large;
    TF_TString_Offset offset;
    TF_TString_View view;
    TF_TString_Raw raw;
  } u;
} TF_TString;

#if defined(__cplusplus)
static_assert(sizeof(TF_TString) == 24, "TF_TString is TensorFlow's 24 bytes");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(TF_TString) == 24, "TF_TString is TensorFlow's 24 bytes");
#endif

/* The size field of LARGE and VIEW strings (size << 2 | type) and back. */
static inline size_t TF_TString_ToActualSizeT(size_t size) { return size >> 2; }

static inline size_t TF_TString_ToInternalSizeT(size_t size, TF_TString_Type type) {
  return size << 2 | (size_t)type;
}

/* The representation, from the low two bits of the first byte. */
static inline TF_TString_Type TF_TString_GetType(const TF_TString* str) {
  return (TF_TString_Type)(str->u.raw.raw[0] & TF_TSTR_TYPE_MASK);
}

/* The length in bytes. */
static inline size_t TF_TString_GetSize(const TF_TString* str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return (size_t)(str->u.smll.size >> 2);
    case TF_TSTR_LARGE:
      return TF_TString_ToActualSizeT(str->u.large.size);
    case TF_TSTR_OFFSET:
      return (size_t)(str->u.offset.size >> 2);
    default:
      return TF_TString_ToActualSizeT(str->u.view.size);
  }
}

/* Bytes the string can hold without reallocating: 22 for SMALL, the
 * allocation less its NUL for LARGE, 0 for the read-only OFFSET and VIEW.
 * Writing between the size and the capacity needs a Resize first. */
static inline size_t TF_TString_GetCapacity(const TF_TString* str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return TF_TString_SmallCapacity;
    case TF_TSTR_LARGE:
      return str->u.large.cap;
    default:
      return 0;
  }
}

/* The bytes; OFFSET and VIEW strings need not be NUL-terminated. */
static inline const char* TF_TString_GetDataPointer(const TF_TString* str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.str;
    case TF_TSTR_LARGE:
      return str->u.large.ptr;
    case TF_TSTR_OFFSET:
      return (const char*)str + str->u.offset.offset;
    default:
      return str->u.view.ptr;
  }
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TENSORFLOW_CORE_PLATFORM_CTSTRING_INTERNAL_H_ */
