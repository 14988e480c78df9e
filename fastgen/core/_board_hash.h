/* The tables that find equal boards (fastgen.core._features.first_equal, the pruning
 * pass of fastgen.nets._gnubg_eval): a 64-bit hash of a board's 50 bytes (its two rows
 * of 25 counts: six 8-byte words and a last two, each mixed in by a multiply and a
 * rotation), and the slot of a board in an open-addressing table of row numbers. Equal
 * boards hash equal; a slot's board is compared byte for byte. */
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

/* The slot of board p in table (mask + 1 slots, a power of 2, each a row number + 1 of
 * the boards at base, 50 bytes a row; 0: empty): the one holding a board equal to p,
 * or the empty one where p goes. The table is never full (twice the rows, or more). */
static inline uint64_t fg_board_slot(const int64_t* table, uint64_t mask, const int8_t* base, const int8_t* p) {
    uint64_t j = fg_board_hash(p) & mask;
    while (table[j] != 0 && memcmp(base + (table[j] - 1) * 50, p, 50) != 0) j = (j + 1) & mask;
    return j;
}

#endif
