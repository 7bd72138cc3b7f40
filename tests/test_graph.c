/*
 * test_graph.c — unit tests of the one graph helper (util/graph.h): rows
 * in the edges' order, renumbering, the topological order's tie-break
 * and which cycle is named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../util/graph.h"

/* Asserts that row v of g is exactly want[0 .. n). */
static void assert_row(const digraph *g, uint32_t v, const uint32_t *want,
                       uint32_t n)
{
    assert_int_equal(g->start[v + 1] - g->start[v], n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(g->adj[g->start[v] + i], want[i]);
}

static const digraph_edge some_edges[] = {{2, 1}, {0, 1}, {0, 2}, {0, 1}};

static void rows_keep_the_edges_order_and_duplicates(void **state)
{
    (void)state;
    digraph in, out;
    digraph_build(&in, 3, some_edges, 4, DIGRAPH_IN, NULL);
    digraph_build(&out, 3, some_edges, 4, DIGRAPH_OUT, NULL);
    assert_row(&in, 0, NULL, 0);
    assert_row(&in, 1, (uint32_t[]){2, 0, 0}, 3);
    assert_row(&in, 2, (uint32_t[]){0}, 1);
    assert_row(&out, 0, (uint32_t[]){1, 2, 1}, 3);
    assert_row(&out, 1, NULL, 0);
    assert_row(&out, 2, (uint32_t[]){1}, 1);
    digraph_free(&in);
    digraph_free(&out);
}

static void map_renumbers_both_ends(void **state)
{
    (void)state;
    static const uint32_t map[] = {2, 0, 1};
    digraph in;
    digraph_build(&in, 3, some_edges, 4, DIGRAPH_IN, map);
    assert_row(&in, 0, (uint32_t[]){1, 2, 2}, 3); /* was vertex 1 */
    assert_row(&in, 1, (uint32_t[]){2}, 1);
    assert_row(&in, 2, NULL, 0);
    digraph_free(&in);
}

static void no_edges_no_vertices(void **state)
{
    (void)state;
    digraph in;
    uint32_t topo[1], cycle[1];
    digraph_build(&in, 0, NULL, 0, DIGRAPH_IN, NULL);
    assert_int_equal(digraph_topological_order(&in, topo), 1);
    assert_int_equal(digraph_find_cycle(&in, cycle, 1), 0);
    digraph_free(&in);
}

/* Depth first, the smallest ready vertex first: 0, then what 0 alone
 * frees (4), before 1. */
static void topological_order_is_depth_first_smallest_first(void **state)
{
    (void)state;
    static const digraph_edge e[] = {{1, 2}, {0, 4}, {2, 3}, {0, 2}};
    digraph in;
    uint32_t topo[5], cycle[5];
    digraph_build(&in, 5, e, 4, DIGRAPH_IN, NULL);
    assert_int_equal(digraph_topological_order(&in, topo), 1);
    static const uint32_t want[] = {0, 4, 1, 2, 3};
    for (int i = 0; i < 5; i++)
        assert_int_equal(topo[i], want[i]);
    assert_int_equal(digraph_find_cycle(&in, cycle, 5), 0);
    digraph_free(&in);
}

/* 1 -> 2 -> 1 with 0 before and 3 after it: the order stops at 0; the
 * cycle is named from its smallest vertex's in-neighbour, in edge order. */
static void a_cycle_is_found_and_named_in_edge_order(void **state)
{
    (void)state;
    static const digraph_edge e[] = {{0, 1}, {1, 2}, {2, 1}, {2, 3}};
    digraph in;
    uint32_t topo[4], cycle[4];
    digraph_build(&in, 4, e, 4, DIGRAPH_IN, NULL);
    assert_int_equal(digraph_topological_order(&in, topo), 0);
    assert_int_equal(topo[0], 0);
    assert_int_equal(digraph_find_cycle(&in, cycle, 4), 2);
    assert_int_equal(cycle[0], 2);
    assert_int_equal(cycle[1], 1);
    assert_int_equal(digraph_find_cycle(&in, cycle, 1), 1); /* at most max */
    assert_int_equal(cycle[0], 2);
    digraph_free(&in);
}

static void a_self_loop_is_a_cycle(void **state)
{
    (void)state;
    static const digraph_edge e[] = {{0, 1}, {1, 1}};
    digraph in;
    uint32_t cycle[2];
    digraph_build(&in, 2, e, 2, DIGRAPH_IN, NULL);
    assert_int_equal(digraph_find_cycle(&in, cycle, 2), 1);
    assert_int_equal(cycle[0], 1);
    digraph_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_keep_the_edges_order_and_duplicates),
        cmocka_unit_test(map_renumbers_both_ends),
        cmocka_unit_test(no_edges_no_vertices),
        cmocka_unit_test(topological_order_is_depth_first_smallest_first),
        cmocka_unit_test(a_cycle_is_found_and_named_in_edge_order),
        cmocka_unit_test(a_self_loop_is_a_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
