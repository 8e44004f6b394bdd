package ringfd

import (
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// BMG structure (spec §4.2): the quantities the paper's claims about the
// binomial graph depend on, computed from the links the daemons actually
// use (statemachine/ringfd Config.Targets, paper topology, distinct
// neighbours).

// bmgGraph is the undirected BMG over N daemons: adj[i] lists i's
// neighbours.
func bmgGraph(n int) [][]core.Rank {
	cfg, err := fd.Normalize(fd.Config{N: n})
	if err != nil {
		return nil
	}
	adj := make([][]core.Rank, n)
	for i := range adj {
		adj[i] = cfg.Targets(core.Rank(i), core.RankSet{})
	}
	return adj
}

// Degree is deg(N), the number of distinct BMG neighbours of a daemon
// (every daemon has the same, the graph being circulant).
func Degree(n int) int {
	if n < 2 {
		return 0
	}
	return len(bmgGraph(n)[0])
}

// eccentricity is the largest BFS hop count from `from` to a live daemon
// over links between live daemons, and whether every live daemon is
// reached. dead may be nil.
func eccentricity(adj [][]core.Rank, from int, dead []bool) (int, bool) {
	n := len(adj)
	hop := make([]int, n)
	for i := range hop {
		hop[i] = -1
	}
	hop[from] = 0
	q := []int{from}
	far := 0
	for len(q) > 0 {
		i := q[0]
		q = q[1:]
		for _, j := range adj[i] {
			if (dead == nil || !dead[j]) && hop[j] < 0 {
				hop[j] = hop[i] + 1
				far = max(far, hop[j])
				q = append(q, int(j))
			}
		}
	}
	for i := range hop {
		if hop[i] < 0 && (dead == nil || !dead[i]) {
			return far, false
		}
	}
	return far, true
}

// Diameter is the BMG's diameter in hops with the daemons in dead removed,
// and whether the live daemons are connected.
func Diameter(n int, dead []bool) (int, bool) {
	adj := bmgGraph(n)
	d := 0
	for i := 0; i < n; i++ {
		if dead != nil && dead[i] {
			continue
		}
		e, ok := eccentricity(adj, i, dead)
		if !ok {
			return 0, false
		}
		d = max(d, e)
	}
	return d, true
}

// Cut is a smallest set of daemons whose failure disconnects the live
// daemons (at least two remaining), by exhaustive search over sets of size
// up to limit; nil if none that small exists. Its size is the vertex
// connectivity κ(N) when κ(N) ≤ limit.
func Cut(n, limit int) []int {
	for k := 1; k <= limit && k <= n-2; k++ {
		if c := cutOfSize(n, k); c != nil {
			return c
		}
	}
	return nil
}

// cutOfSize finds a set of k daemons whose failure disconnects the live
// daemons. The graph is circulant (i ↦ i + 1 is an automorphism), so if a
// cut of size k ≤ N − 2 exists, a rotation of it spares daemon 0: only
// sets avoiding 0 are tried, and connectivity is tested from 0.
func cutOfSize(n, k int) []int {
	adj := bmgGraph(n)
	dead := make([]bool, n)
	set := make([]int, 0, k)
	var rec func(start int) []int
	rec = func(start int) []int {
		if len(set) == k {
			if _, ok := eccentricity(adj, 0, dead); !ok {
				return append([]int(nil), set...)
			}
			return nil
		}
		for i := start; i < n; i++ {
			dead[i] = true
			set = append(set, i)
			if c := rec(i + 1); c != nil {
				return c
			}
			set = set[:len(set)-1]
			dead[i] = false
		}
		return nil
	}
	return rec(1)
}

// FaultDiameter is the largest diameter of the live BMG over every set of
// f failed daemons that leaves it connected, with a witness set, and
// whether some set of f failures disconnects it. By symmetry only sets
// avoiding daemon 0 are tried, and daemon 0 is among the sources.
func FaultDiameter(n, f int) (diam int, witness []int, disconnects bool) {
	adj := bmgGraph(n)
	dead := make([]bool, n)
	set := make([]int, 0, f)
	var rec func(start int)
	rec = func(start int) {
		if len(set) == f {
			d := 0
			for i := 0; i < n; i++ {
				if dead[i] {
					continue
				}
				e, ok := eccentricity(adj, i, dead)
				if !ok {
					disconnects = true
					return
				}
				d = max(d, e)
			}
			if d > diam {
				diam, witness = d, append([]int(nil), set...)
			}
			return
		}
		for i := start; i < n; i++ {
			dead[i] = true
			set = append(set, i)
			rec(i + 1)
			set = set[:len(set)-1]
			dead[i] = false
		}
	}
	rec(1)
	return diam, witness, disconnects
}

// Connectivity is the vertex connectivity κ(N) of the BMG, by Menger's
// theorem: the fewest internally disjoint paths between daemon 0 and a
// daemon not adjacent to it (the graph is vertex-transitive, so a smallest
// cut separates 0 from someone). A complete graph (N ≤ 5, N = 7) has N − 1.
func Connectivity(n int) int {
	adj := bmgGraph(n)
	near := make([]bool, n)
	near[0] = true
	for _, j := range adj[0] {
		near[j] = true
	}
	k := n - 1
	for t := 1; t < n; t++ {
		if !near[t] {
			k = min(k, disjointPaths(adj, 0, t, k))
		}
	}
	return k
}

// disjointPaths is the number of internally vertex-disjoint s–t paths,
// counted up to limit: unit-capacity max flow with every vertex v split
// into v_in = 2v and v_out = 2v+1.
func disjointPaths(adj [][]core.Rank, s, t, limit int) int {
	n := len(adj)
	type arc struct{ to, rev, cap int }
	g := make([][]arc, 2*n)
	add := func(u, v, c int) {
		g[u] = append(g[u], arc{v, len(g[v]), c})
		g[v] = append(g[v], arc{u, len(g[u]) - 1, 0})
	}
	for v := 0; v < n; v++ {
		c := 1
		if v == s || v == t {
			c = n
		}
		add(2*v, 2*v+1, c)
		for _, w := range adj[v] {
			add(2*v+1, 2*int(w), 1)
		}
	}
	src, dst := 2*s+1, 2*t
	flow := 0
	prev := make([][2]int, 2*n)
	for flow < limit {
		for i := range prev {
			prev[i] = [2]int{-1, -1}
		}
		prev[src] = [2]int{src, -1}
		q := []int{src}
		for len(q) > 0 && prev[dst][0] < 0 {
			u := q[0]
			q = q[1:]
			for i, a := range g[u] {
				if a.cap > 0 && prev[a.to][0] < 0 {
					prev[a.to] = [2]int{u, i}
					q = append(q, a.to)
				}
			}
		}
		if prev[dst][0] < 0 {
			break
		}
		for v := dst; v != src; {
			u, i := prev[v][0], prev[v][1]
			g[u][i].cap--
			g[v][g[u][i].rev].cap++
			v = u
		}
		flow++
	}
	return flow
}
