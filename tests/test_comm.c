/*
 * test_comm.c — unit tests of what a split run's ranks share
 * (util/comm.h, util/pack.h): how work is dealt out by size, the
 * threads back end's broadcast from any rank and gather, and bytes
 * packed and read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
        cmocka_unit_test(threads_broadcast_from_any_rank_and_gather),
        cmocka_unit_test(pack_reads_back_what_it_put_and_says_when_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
