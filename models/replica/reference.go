package replica

import (
	"fmt"
	"slices"
	"strings"

	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Reference is what the programs can output without replication: an
// independent plain interpreter of the same programs, one process per
// logical process, reliable buffered sends, and MPI's matching rule (a
// Recv takes the earliest message of a matching source and tag, per
// source: messages between two processes do not overtake each other;
// ANY_SOURCE takes that of any source). It explores every interleaving, so
// with wildcard receives it finds every output the program can produce.
type Reference struct {
	// Outputs[i] lists the distinct output sequences of logical process i
	// over all complete executions, sorted.
	Outputs [][][]int64
	// Joint lists the distinct output vectors (every process's sequence)
	// of all complete executions.
	Joint []string
	// Deadlock reports that some execution stops with a process waiting
	// forever at a Recv.
	Deadlock bool
	// Executions is the number of distinct final states.
	Executions int
}

type refMsg struct {
	tag int
	val int64
}

type refState struct {
	pc   []int
	acc  []int64
	ch   [][][]refMsg // ch[src][dst], in sending order
	outs [][]int64
}

func (s *refState) clone() *refState {
	c := &refState{pc: slices.Clone(s.pc), acc: slices.Clone(s.acc), ch: make([][][]refMsg, len(s.ch)), outs: make([][]int64, len(s.outs))}
	for i := range s.ch {
		c.ch[i] = make([][]refMsg, len(s.ch[i]))
		for j := range s.ch[i] {
			c.ch[i][j] = slices.Clone(s.ch[i][j])
		}
	}
	for i := range s.outs {
		c.outs[i] = slices.Clone(s.outs[i])
	}
	return c
}

func (s *refState) key() string { return fmt.Sprint(s.pc, s.acc, s.ch, s.outs) }

// RunReference interprets progs without replication, exploring every
// schedule (at most limit distinct states; an error past it).
func RunReference(progs []sm.Program, limit int) (*Reference, error) {
	P := len(progs)
	init := &refState{pc: make([]int, P), acc: make([]int64, P), ch: make([][][]refMsg, P), outs: make([][]int64, P)}
	for i := range init.ch {
		init.ch[i] = make([][]refMsg, P)
	}
	seen := map[string]bool{}
	outs := make([]map[string][]int64, P)
	for i := range outs {
		outs[i] = map[string][]int64{}
	}
	joint := map[string]bool{}
	ref := &Reference{}
	stack := []*refState{init}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := s.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		if len(seen) > limit {
			return nil, fmt.Errorf("reference interpreter: more than %d states", limit)
		}
		moved := false
		for i := 0; i < P; i++ {
			for _, next := range refSteps(progs, s, i) {
				moved = true
				stack = append(stack, next)
			}
		}
		if moved {
			continue
		}
		ref.Executions++
		var j strings.Builder
		for i := 0; i < P; i++ {
			if s.pc[i] < len(progs[i]) {
				ref.Deadlock = true
			}
			outs[i][fmt.Sprint(s.outs[i])] = s.outs[i]
			fmt.Fprint(&j, s.outs[i])
		}
		joint[j.String()] = true
	}
	ref.Outputs = make([][][]int64, P)
	for i := range outs {
		for _, o := range outs[i] {
			ref.Outputs[i] = append(ref.Outputs[i], o)
		}
		slices.SortFunc(ref.Outputs[i], slices.Compare)
	}
	for j := range joint {
		ref.Joint = append(ref.Joint, j)
	}
	slices.Sort(ref.Joint)
	return ref, nil
}

// refSteps are the successors of s when process i executes its next
// instruction (several for a wildcard Recv, none when it waits or ended).
func refSteps(progs []sm.Program, s *refState, i int) []*refState {
	if s.pc[i] >= len(progs[i]) {
		return nil
	}
	in := progs[i][s.pc[i]]
	switch in.Op {
	case sm.OpSend:
		c := s.clone()
		c.ch[i][in.Peer] = append(c.ch[i][in.Peer], refMsg{tag: in.Tag, val: c.acc[i]})
		c.pc[i]++
		return []*refState{c}
	case sm.OpCompute:
		c := s.clone()
		c.acc[i] = in.Fn.Apply(c.acc[i], in.K)
		c.pc[i]++
		return []*refState{c}
	case sm.OpOutput:
		c := s.clone()
		c.outs[i] = append(c.outs[i], c.acc[i])
		c.pc[i]++
		return []*refState{c}
	case sm.OpRecv:
		var out []*refState
		for src := range progs {
			if in.Peer != sm.Any && src != in.Peer {
				continue
			}
			q := s.ch[src][i]
			k := slices.IndexFunc(q, func(m refMsg) bool { return in.Tag == sm.Any || m.tag == in.Tag })
			if k < 0 {
				continue
			}
			c := s.clone()
			c.acc[i] = in.Fn.Apply(c.acc[i], q[k].val)
			c.ch[src][i] = slices.Delete(c.ch[src][i], k, k+1)
			c.pc[i]++
			out = append(out, c)
		}
		return out
	}
	return nil
}

// Allows reports whether out is one of the output sequences logical
// process i can produce, or a prefix of one.
func (r *Reference) Allows(i int, out []int64) bool {
	for _, o := range r.Outputs[i] {
		if len(out) <= len(o) && slices.Equal(o[:len(out)], out) {
			return true
		}
	}
	return false
}
