/* typesize.c — bytes of `count` elements of a datatype, with the sizes of
 * predefined datatypes cached.
 *
 * Only predefined (named) datatypes are cached: they can never be freed, so
 * their handles are never reused for another type and an entry never goes
 * stale — no invalidation is needed on MPI_Type_free or its Fortran
 * binding (which calls PMPI_Type_free past every C wrapper), whether or not
 * that call is recorded. Derived datatypes ask PMPI_Type_size each time.
 *
 * The table is insert-only open addressing: a slot is claimed once (CAS on
 * `state`), its size stored, then its key published with release order, so
 * a thread that sees the key also sees the size (MPI_THREAD_MULTIPLE). */
#include "tracer.h"

#include <stdatomic.h>

#define SLOTS 256   /* Open MPI has about 70 predefined datatypes */

static struct {
    atomic_int state;            /* 0 free, 1 claimed */
    _Atomic uintptr_t key;       /* the handle, once published */
    int size;
} cache[SLOTS];

static inline size_t slot_of(uintptr_t key)
{
    uint64_t x = (uint64_t)key;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    return (size_t)(x >> 56) & (SLOTS - 1);
}

/* Size of a named datatype, or -1 when `type` is not one (or MPI fails). */
static int named_size(MPI_Datatype type, int *size)
{
    int ni, na, nd, combiner;
    if (PMPI_Type_size(type, size) != MPI_SUCCESS || *size < 0)
        return -1;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS || combiner != MPI_COMBINER_NAMED)
        return 0;
    return 1;
}

/* A cached (predefined) datatype's size, without any MPI call, or -1. */
static int cached_size(MPI_Datatype type)
{
    uintptr_t key = (uintptr_t)type;
    size_t home = slot_of(key);
    for (size_t n = 0, i = home; key && n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&cache[i].key, memory_order_acquire);
        if (k == key)
            return cache[i].size;
        if (k == 0 && atomic_load_explicit(&cache[i].state, memory_order_relaxed) == 0)
            break;   /* the end of the probe sequence: not cached */
    }
    return -1;
}

static int type_size(MPI_Datatype type)
{
    int cached = cached_size(type);
    if (cached >= 0)
        return cached;
    uintptr_t key = (uintptr_t)type;
    size_t home = slot_of(key);
    int size = 0;
    int named = named_size(type, &size);
    if (named < 0)
        return -1;
    if (named == 0 || key == 0)
        return size;
    for (size_t n = 0, i = home; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&cache[i].state, &expected, 1)) {
            cache[i].size = size;
            atomic_store_explicit(&cache[i].key, key, memory_order_release);
            break;
        }
        if (atomic_load_explicit(&cache[i].key, memory_order_acquire) == key)
            break;   /* another thread cached it meanwhile */
    }
    return size;   /* table full: still correct, just not cached */
}

int st_type_bytes_cached(int count, MPI_Datatype type, uint64_t *bytes)
{
    int size = count > 0 ? cached_size(type) : 0;
    if (count < 0 || size < 0)
        return -1;
    *bytes = (uint64_t)count * (uint64_t)size;
    return 0;
}

void st_type_sizes_init(void)
{
    /* the C types MPI-3.1 defines (never MPI_DATATYPE_NULL in a C library) */
    static const MPI_Datatype c_types[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT, MPI_UNSIGNED_SHORT,
        MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT,
        MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
        MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_PACKED,
    };
    for (size_t k = 0; k < sizeof c_types / sizeof *c_types; k++)
        type_size(c_types[k]);
}

uint64_t st_type_bytes(int count, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL || count <= 0)
        return 0;
    int size = type_size(type);
    return size > 0 ? (uint64_t)count * (uint64_t)size : 0;
}
