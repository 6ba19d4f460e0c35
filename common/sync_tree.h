/* sync_tree.h — the tree a clock-synchronisation round walks, shared by the
 * tracer (src/sync.c) and the trace generator (tools/gen/gen.c), which must
 * walk it identically.
 *
 * The clock domains are numbered 0..m-1 in the order of their lowest world
 * rank (domain 0 holds world rank 0, the reference). They form a binomial
 * tree: in step l (0 <= l < st_tree_steps(m)) every domain d < 2^l that has
 * a partner d + 2^l < m exchanges ping-pongs with it, all pairs of a step at
 * once. A round thus takes ceil(log2 m) steps instead of the m - 1 of a star
 * around the reference, and no domain ever waits for more than one partner
 * at a time. Domain d > 0 is the child of d with its highest bit cleared, in
 * step (index of that bit); its offset to the reference is the sum of the
 * offsets along its path, at most log2 m edges. */
#ifndef SYNCTRACE_SYNC_TREE_H
#define SYNCTRACE_SYNC_TREE_H

/* Index of the highest set bit of d > 0: the step in which d is a child. */
static inline int st_tree_child_step(int d)
{
    int l = 0;
    while (d >> (l + 1))
        l++;
    return l;
}

/* The parent of domain d > 0. */
static inline int st_tree_parent(int d)
{
    return d & ~(1 << st_tree_child_step(d));
}

/* Steps of a round over m domains: ceil(log2 m) (0 for one domain). */
static inline int st_tree_steps(int m)
{
    int l = 0;
    while (l < 31 && (1 << l) < m)
        l++;
    return l;
}

/* Domain d's child in step l, or -1: d's partner when d is the lower one. */
static inline int st_tree_child(int d, int l, int m)
{
    if (l > 30 || d >= (1 << l))
        return -1;
    int c = d + (1 << l);
    return c < m ? c : -1;
}

/* How many children domain d has among m domains. */
static inline int st_tree_nchildren(int d, int m)
{
    int n = 0;
    for (int l = 0; l < st_tree_steps(m); l++)
        n += st_tree_child(d, l, m) >= 0;
    return n;
}

#endif
