/* Prints what TensorFlow's inline TF_TString_* functions
 * (tensorflow/core/platform/ctstring.h) do to strings: one line per step
 * with the representation, size, capacity and bytes. Built once against
 * TensorFlow's own headers and once against tfd's (see ctstring_test.py),
 * the two traces must be equal, which pins tfd's sizes, capacities and
 * representation changes to TensorFlow's.
 *
 * Only defined behaviour is traced (no source inside its destination, no
 * allocation failures); pointers are never printed, only whether two
 * strings share bytes where that is part of the contract (VIEW). */
#include <stdio.h>
#include <string.h>

#include "tensorflow/core/platform/ctstring.h"

static const char* TypeName(TF_TString_Type type) {
  switch (type) {
    case TF_TSTR_SMALL: return "SMALL";
    case TF_TSTR_LARGE: return "LARGE";
    case TF_TSTR_OFFSET: return "OFFSET";
    default: return "VIEW";
  }
}

/* step: TYPE size=N cap=N bytes="..." */
static void Show(const char* step, const TF_TString* s) {
  const size_t size = TF_TString_GetSize(s);
  printf("%s: %s size=%zu cap=%zu bytes=\"%.*s\"\n", step, TypeName(TF_TString_GetType(s)), size,
         TF_TString_GetCapacity(s), (int)size, TF_TString_GetDataPointer(s));
}

/* 'a', 'b', ... repeated: distinct bytes at every position mod 26. */
static char text[2048];

static void CopySizes(void) {
  static const size_t sizes[] = {0, 1, 21, 22, 23, 24, 30, 31, 32, 40, 47, 48, 100, 111, 112, 1000};
  TF_TString s;
  TF_TString_Init(&s);
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    TF_TString fresh;
    TF_TString_Init(&fresh);
    TF_TString_Copy(&fresh, text, sizes[i]);
    printf("fresh ");
    Show("Copy", &fresh);
    TF_TString_Dealloc(&fresh);
    /* The same sizes into one string: capacity reuse and halving. */
    TF_TString_Copy(&s, text + i, sizes[i]);
    printf("reused ");
    Show("Copy", &s);
  }
  static const size_t down[] = {900, 400, 300, 100, 60, 23, 5};
  for (size_t i = 0; i < sizeof(down) / sizeof(down[0]); ++i) {
    TF_TString_Copy(&s, text + 3, down[i]);
    printf("down ");
    Show("Copy", &s);
  }
  TF_TString_Dealloc(&s);
  Show("Dealloc", &s);
}

static void Resizes(void) {
  static const size_t sizes[] = {5, 22, 23, 30, 100, 200, 120, 99, 60, 40, 20, 0, 64};
  TF_TString s;
  TF_TString_Init(&s);
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    TF_TString_Resize(&s, sizes[i], (char)('A' + i));
    Show("Resize", &s);
  }
  char* bytes = TF_TString_ResizeUninitialized(&s, 70);
  memset(bytes + 64, '#', 6);
  Show("ResizeUninitialized", &s);
  TF_TString_Dealloc(&s);
}

static void Reserves(void) {
  static const size_t caps[] = {10, 22, 23, 30, 31, 32, 100, 50, 500};
  TF_TString s;
  TF_TString_Init(&s);
  TF_TString_Copy(&s, "abc", 3);
  for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); ++i) {
    TF_TString_Reserve(&s, caps[i]);
    Show("Reserve", &s);
  }
  TF_TString_Dealloc(&s);
  TF_TString_Copy(&s, text, 40);
  static const size_t amortized[] = {41, 47, 48, 95, 96, 500, 501};
  for (size_t i = 0; i < sizeof(amortized) / sizeof(amortized[0]); ++i) {
    TF_TString_ReserveAmortized(&s, amortized[i]);
    Show("ReserveAmortized", &s);
  }
  TF_TString_Dealloc(&s);
  /* Reserving on a VIEW copies its bytes. */
  TF_TString_AssignView(&s, text, 10);
  TF_TString_Reserve(&s, 40);
  Show("Reserve(view)", &s);
  TF_TString_Dealloc(&s);
  TF_TString_AssignView(&s, text, 30);
  TF_TString_Reserve(&s, 10);
  Show("Reserve(view,small)", &s);
  TF_TString_Dealloc(&s);
}

static void Appends(void) {
  TF_TString s;
  TF_TString_Init(&s);
  size_t last_cap = (size_t)-1;
  for (size_t i = 0; i < 300; ++i) {
    TF_TString_AppendN(&s, text + i, 1);
    if (TF_TString_GetCapacity(&s) != last_cap) {
      last_cap = TF_TString_GetCapacity(&s);
      printf("after %zu ", i + 1);
      Show("AppendN", &s);
    }
  }
  TF_TString other;
  TF_TString_Init(&other);
  TF_TString_Copy(&other, "-tail-", 6);
  TF_TString_Append(&s, &other);
  printf("size %zu cap %zu last \"%s\"\n", TF_TString_GetSize(&s), TF_TString_GetCapacity(&s),
         TF_TString_GetDataPointer(&s) + TF_TString_GetSize(&s) - 6);
  TF_TString_Dealloc(&s);
  /* Appending to a VIEW copies it first. */
  TF_TString_AssignView(&s, text, 20);
  TF_TString_AppendN(&s, "xyz", 3);
  Show("AppendN(view)", &s);
  TF_TString_Dealloc(&s);
  TF_TString_Dealloc(&other);
}

static void AssignsAndMoves(void) {
  static const size_t sizes[] = {7, 50};
  for (size_t i = 0; i < 2; ++i) {
    TF_TString src, dst;
    TF_TString_Init(&src);
    TF_TString_Init(&dst);
    TF_TString_Copy(&dst, text + 5, 80);
    TF_TString_Copy(&src, text, sizes[i]);
    TF_TString_Assign(&dst, &src);
    Show("Assign", &dst);
    printf("shares bytes: %d\n", TF_TString_GetDataPointer(&dst) == TF_TString_GetDataPointer(&src));
    TF_TString_Move(&dst, &src);
    Show("Move dst", &dst);
    Show("Move src", &src);
    TF_TString_Dealloc(&src);
    TF_TString_Dealloc(&dst);
  }
  TF_TString view, dst;
  TF_TString_Init(&dst);
  TF_TString_AssignView(&view, text + 1, 33);
  Show("AssignView", &view);
  TF_TString_Assign(&dst, &view);
  Show("Assign(view)", &dst);
  printf("shares bytes: %d\n", TF_TString_GetDataPointer(&dst) == text + 1);
  TF_TString_Move(&dst, &view);
  Show("Move(view) dst", &dst);
  Show("Move(view) src", &view);
  char* mutable_bytes = TF_TString_GetMutableDataPointer(&dst);
  mutable_bytes[0] = '!';
  Show("GetMutableDataPointer(view)", &dst);
  printf("source untouched: %d\n", text[1] == 'b');
  TF_TString_Dealloc(&dst);
}

/* An OFFSET string's bytes live `offset` bytes past the string itself, as
 * in a serialized tensor buffer. */
static void Offsets(void) {
  struct {
    TF_TString str;
    char bytes[40];
  } buffer;
  memset(&buffer, 0, sizeof(buffer));
  memcpy(buffer.bytes, text, 30);
  buffer.str.u.offset.size = (uint32_t)(30 << 2 | TF_TSTR_OFFSET);
  buffer.str.u.offset.offset = (uint32_t)sizeof(TF_TString);
  buffer.str.u.offset.count = 0;
  Show("Offset", &buffer.str);
  TF_TString dst;
  TF_TString_Init(&dst);
  TF_TString_Assign(&dst, &buffer.str);
  Show("Assign(offset)", &dst);
  TF_TString_Dealloc(&dst);
  TF_TString_Move(&dst, &buffer.str);
  Show("Move(offset) dst", &dst);
  Show("Move(offset) src", &buffer.str);
  TF_TString_Dealloc(&dst);
  TF_TString_GetMutableDataPointer(&buffer.str);
  Show("GetMutableDataPointer(offset)", &buffer.str);
  TF_TString_Dealloc(&buffer.str);
}

int main(void) {
  for (size_t i = 0; i < sizeof(text); ++i) text[i] = (char)('a' + i % 26);
  printf("sizeof(TF_TString)=%zu sizeof(TF_TString_Union)=%zu small capacity=%d\n",
         sizeof(TF_TString), sizeof(TF_TString_Union), (int)TF_TString_SmallCapacity);
  CopySizes();
  Resizes();
  Reserves();
  Appends();
  AssignsAndMoves();
  Offsets();
  return 0;
}
