/* hash64.h — the 64-bit checksum of raw trace files: XXH64 (Yann Collet's
 * xxHash, 64-bit variant, as its specification defines it), implemented here.
 *
 * Why this one: a rank checksums everything it wrote as the last act of
 * closing its archive, and the merge checksums it all again before reading,
 * so the hash must run near memory speed (XXH64: ~10 GB/s on one core, where
 * SHA-256 without SHA extensions gives ~0.4 GB/s and a table CRC-32C ~1 GB/s).
 * It guards against accidents (bit rot, torn or partial writes, a file of
 * another run), not against an adversary, so a cryptographic hash buys
 * nothing; 64 bits make an undetected random corruption a 2^-64 event,
 * where CRC-32's 2^-32 is within reach of a conformance suite's thousands
 * of files. */
#ifndef SYNCTRACE_HASH64_H
#define SYNCTRACE_HASH64_H

#include <stddef.h>
#include <stdint.h>

struct hash64 {
    uint64_t v[4];            /* the four lanes */
    uint64_t total;           /* bytes hashed so far */
    unsigned char buf[32];    /* a stripe not yet complete */
    size_t nbuf;
};

void hash64_init(struct hash64 *h);
void hash64_update(struct hash64 *h, const void *data, size_t len);
uint64_t hash64_final(const struct hash64 *h);
/* All of it at once. */
uint64_t hash64(const void *data, size_t len);

#endif
