/* libffi, as pushhost's ffi handlers use it (Debian: libffi-dev). */
#ifndef PUSHHOST_CFFI_SHIM_H
#define PUSHHOST_CFFI_SHIM_H
#include <ffi.h>
#include <stddef.h>

/* The ffi_type of each word of the manifest's vocabulary, by address: the
 * types are C globals, whose addresses Swift cannot keep. */
typedef enum ph_ffi_kind {
    PH_FFI_VOID, PH_FFI_SINT8, PH_FFI_SINT16, PH_FFI_SINT32, PH_FFI_SINT64,
    PH_FFI_UINT8, PH_FFI_UINT16, PH_FFI_UINT32, PH_FFI_UINT64,
    PH_FFI_FLOAT, PH_FFI_DOUBLE, PH_FFI_POINTER, PH_FFI_SIZE
} ph_ffi_kind;

static inline ffi_type *ph_ffi_type(ph_ffi_kind kind) {
    switch (kind) {
    case PH_FFI_VOID: return &ffi_type_void;
    case PH_FFI_SINT8: return &ffi_type_sint8;
    case PH_FFI_SINT16: return &ffi_type_sint16;
    case PH_FFI_SINT32: return &ffi_type_sint32;
    case PH_FFI_SINT64: return &ffi_type_sint64;
    case PH_FFI_UINT8: return &ffi_type_uint8;
    case PH_FFI_UINT16: return &ffi_type_uint16;
    case PH_FFI_UINT32: return &ffi_type_uint32;
    case PH_FFI_UINT64: return &ffi_type_uint64;
    case PH_FFI_FLOAT: return &ffi_type_float;
    case PH_FFI_DOUBLE: return &ffi_type_double;
    case PH_FFI_POINTER: return &ffi_type_pointer;
    case PH_FFI_SIZE: return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
    }
    return NULL;
}

/* The bytes an ffi_closure takes, for ffi_closure_alloc. */
static inline size_t ph_ffi_closure_size(void) { return sizeof(ffi_closure); }

#endif
