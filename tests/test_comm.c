/*
 * test_comm.c — unit tests of what a split run's ranks share
 * (util/comm.h, util/pack.h): how work is dealt out by size, the
 * threads back end's broadcast from any rank, gather and exchange, and bytes
 * packed and read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../util/comm.h"
#include "../util/pack.h"

static void deal_gives_the_largest_first_to_the_least_loaded(void **state)
{
    (void)state;
    const uint64_t size[] = {5, 9, 9, 1, 4};
    uint32_t owner[5];
    comm_deal(size, 5, 2, owner);
    /* 9 (the first of the two) to rank 0, 9 to rank 1, 5 to rank 0, 4 to
     * rank 1, 1 to the one with less: rank 1 (14 against 15) */
    assert_int_equal(owner[1], 0);
    assert_int_equal(owner[2], 1);
    assert_int_equal(owner[0], 0);
    assert_int_equal(owner[4], 1);
    assert_int_equal(owner[3], 1);
}

static void deal_spreads_empty_pieces_and_one_rank_takes_all(void **state)
{
    (void)state;
    const uint64_t none[4] = {0};
    uint32_t owner[4];
    comm_deal(none, 4, 4, owner); /* each counts one: one a rank */
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(owner[i], i);
    comm_deal(none, 4, 1, owner);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(owner[i], 0);
    comm_deal(none, 0, 3, owner); /* nothing to deal */
}

static void deal_onto_counts_the_load_already_there(void **state)
{
    (void)state;
    const uint64_t size[] = {3, 3};
    uint64_t load[2] = {10, 0};
    uint32_t owner[2];
    comm_deal_onto(size, 2, 2, load, owner); /* rank 1 has less: both */
    assert_int_equal(owner[0], 1);
    assert_int_equal(owner[1], 1);
    assert_int_equal(load[0], 10);
    assert_int_equal(load[1], 8);
}

/* Each rank sends rank d the bytes "s>d" repeated s + d times (none
 * from a rank to itself when s == d == 0). */
static void exchange_body(comm *c, void *arg)
{
    int *wrong = arg;
    unsigned n = comm_size(c), r = comm_rank(c);
    assert_true(n <= 3);
    char *out[3] = {0};
    size_t len[3] = {0};
    for (unsigned d = 0; d < n; d++) {
        len[d] = 3 * (r + d);
        out[d] = malloc(len[d] + 1);
        for (size_t k = 0; k < len[d]; k += 3)
            memcpy(out[d] + k, (char[]){(char)('0' + r), '>', (char)('0' + d)}, 3);
    }
    comm_parts in;
    assert_int_equal(comm_exchange(c, (const void *const *)out, len, &in), 0);
    assert_int_equal(in.n, n);
    for (unsigned s = 0; s < n; s++) {
        if (in.len[s] != 3 * (s + r))
            (*wrong)++;
        for (size_t k = 0; k + 3 <= in.len[s]; k += 3)
            if (memcmp((char *)in.data[s] + k,
                       (char[]){(char)('0' + s), '>', (char)('0' + r)}, 3))
                (*wrong)++;
    }
    comm_parts_free(&in);
    for (unsigned d = 0; d < n; d++)
        free(out[d]);
}

static void threads_exchange_gives_each_rank_its_bytes(void **state)
{
    (void)state;
    int wrong = 0;
    assert_int_equal(comm_threads_run(3, exchange_body, &wrong), 0);
    assert_int_equal(wrong, 0);
}

typedef struct seen {
    uint32_t from_root[4];           /* by rank: what rank 2 broadcast */
    size_t gathered;                 /* at rank 0: the parts' bytes */
    uint32_t first_of[4];            /* at rank 0: each part's value */
} seen;

static void rank_body(comm *c, void *arg)
{
    seen *s = arg;
    uint32_t v = comm_rank(c) == 2 ? 77 : 0;
    assert_int_equal(comm_broadcast_from(c, 2, &v, sizeof v), 0);
    s->from_root[comm_rank(c)] = v;
    uint32_t mine[2] = {100 + comm_rank(c), 7};
    comm_parts p;
    assert_int_equal(comm_gather(c, mine, (comm_rank(c) + 1) % 3 ? 8 : 4, &p), 0);
    if (comm_rank(c) == 0) {
        assert_int_equal(p.n, 4);
        for (unsigned r = 0; r < p.n; r++) {
            s->gathered += p.len[r];
            memcpy(&s->first_of[r], p.data[r], sizeof s->first_of[r]);
        }
    } else {
        assert_int_equal(p.n, 0);
    }
    comm_parts_free(&p);
}

static void threads_broadcast_from_any_rank_and_gather(void **state)
{
    (void)state;
    seen s = {{0}, 0, {0}};
    assert_int_equal(comm_threads_run(4, rank_body, &s), 0);
    for (unsigned r = 0; r < 4; r++) {
        assert_int_equal(s.from_root[r], 77);
        assert_int_equal(s.first_of[r], 100 + r);
    }
    assert_int_equal(s.gathered, 8 + 8 + 4 + 8); /* rank 2 sent 4 bytes */
}

static void pack_reads_back_what_it_put_and_says_when_short(void **state)
{
    (void)state;
    pack p = {0};
    pack_u32(&p, 42);
    pack_text(&p, "node@n", 6);
    uint64_t big = 1ull << 40;
    pack_put(&p, &big, sizeof big);
    unpack u = unpack_of(p.data, p.n);
    assert_int_equal(unpack_u32(&u), 42);
    size_t len;
    const char *s = unpack_text(&u, &len);
    assert_int_equal(len, 6);
    assert_string_equal(s, "node@n");
    uint64_t back;
    unpack_get(&u, &back, sizeof back);
    assert_true(back == big);
    assert_false(u.bad);
    assert_int_equal(unpack_u32(&u), 0); /* past the end: zero, and bad */
    assert_true(u.bad);
    unpack cut = unpack_of(p.data, 6); /* the text's length, half of it */
    unpack_u32(&cut);
    assert_string_equal(unpack_text(&cut, &len), "");
    assert_int_equal(len, 0);
    assert_true(cut.bad);
    free(p.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deal_gives_the_largest_first_to_the_least_loaded),
        cmocka_unit_test(deal_spreads_empty_pieces_and_one_rank_takes_all),
        cmocka_unit_test(deal_onto_counts_the_load_already_there),
        cmocka_unit_test(threads_broadcast_from_any_rank_and_gather),
        cmocka_unit_test(threads_exchange_gives_each_rank_its_bytes),
        cmocka_unit_test(pack_reads_back_what_it_put_and_says_when_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
