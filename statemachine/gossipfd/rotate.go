package gossipfd

import "github.com/ftkernel/ftkernel/core"

// Rotate returns the state of host (self + c) mod N in the world renamed by
// s ↦ s + c mod N: every table entry, round and set moves with its host.
// RR, BRR and DBRR route by ring distance only (Eqs. 3–5), so when
// Config.RotationInvariant holds, a run renamed this way is a run; the model
// checker's rotation symmetry is built on it.
func (n *Node) Rotate(c int) *Node {
	N := n.cfg.N
	c = ((c % N) + N) % N
	m := n.clone()
	m.self = core.Rank((int(n.self) + c) % N)
	for x := range N {
		m.hb[(x+c)%N] = n.hb[x]
		m.lastInc[(x+c)%N] = n.lastInc[x]
	}
	m.suspected = rotateSet(n.suspected, c, N)
	m.declared = rotateSet(n.declared, c, N)
	return m
}

// RotateMessage renames the host ids inside m by s ↦ s + c mod n (only a
// GOSSIP table names hosts, by position).
func RotateMessage(m core.Message, c, n int) core.Message {
	g, ok := m.(Gossip)
	if !ok {
		return m
	}
	c = ((c % n) + n) % n
	t := make([]uint64, len(g.Table))
	for x, h := range g.Table {
		t[(x+c)%n] = h
	}
	return Gossip{Table: t}
}

func rotateSet(s core.RankSet, c, n int) core.RankSet {
	var out core.RankSet
	s.Each(func(x core.Rank) { out.Add(core.Rank((int(x) + c) % n)) })
	return out
}

// RotateTimer renames the host a timer id names by s ↦ s + c mod n: the
// ping timer TimerPingBase + x of host x becomes TimerPingBase + (x + c)
// mod n; TimerGossip (and any id that names no host of n) is unchanged.
func RotateTimer(id uint64, c, n int) uint64 {
	if id < TimerPingBase || id-TimerPingBase >= uint64(n) {
		return id
	}
	c = ((c % n) + n) % n
	return TimerPingBase + (id-TimerPingBase+uint64(c))%uint64(n)
}

// AppendRotated appends the encoding of n.Rotate(c) (its AppendBinary)
// without building the rotated state: what a canonical form that tries
// every rotation needs, once per rotation and host.
func (n *Node) AppendRotated(b []byte, c int) []byte {
	N := n.cfg.N
	c = ((c % N) + N) % N
	b = core.AppendBool(b, n.started)
	b = core.AppendUint(b, n.g)
	for x := range N {
		b = core.AppendUint(b, n.hb[(x-c+N)%N])
	}
	for x := range N {
		b = core.AppendUint(b, n.lastInc[(x-c+N)%N])
	}
	b = rotateSet(n.suspected, c, N).AppendBinary(b)
	return rotateSet(n.declared, c, N).AppendBinary(b)
}

// AppendRotatedMessage appends the encoding of RotateMessage(m, c, n)
// without building it.
func AppendRotatedMessage(b []byte, m core.Message, c, n int) []byte {
	g, ok := m.(Gossip)
	if !ok || len(g.Table) != n {
		return RotateMessage(m, c, n).AppendBinary(b)
	}
	c = ((c % n) + n) % n
	b = core.AppendUint(append(b, tagGossip), uint64(n))
	for x := range n {
		b = core.AppendUint(b, g.Table[(x-c+n)%n])
	}
	return b
}
