/* A 64-bit hash of a board's 50 bytes (its two rows of 25 counts), for the tables that
 * find equal boards (fastgen.core._features.first_equal, the pruning pass of
 * fastgen.nets._gnubg_eval): the bytes as six 8-byte words and a last two, each mixed in
 * by a multiply and a rotation. Equal boards hash equal; the tables compare the bytes
 * themselves on a match. */
#ifndef FASTGEN_BOARD_HASH_H
#define FASTGEN_BOARD_HASH_H

#include <stdint.h>
#include <string.h>

static inline uint64_t fg_board_hash(const int8_t* p) {
    uint64_t h = 0x9E3779B97F4A7C15ull, w;
    for (int k = 0; k < 6; k++) {
        memcpy(&w, p + 8 * k, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h = (h << 27) | (h >> 37);
    }
    w = (uint64_t)(uint8_t)p[48] | ((uint64_t)(uint8_t)p[49] << 8);
    h = (h ^ w) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

#endif
