package hyperquicksort

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Msg is one message of the sort between two processes (physical ranks
// From and To) in sorting round Round. It carries either a pivot
// (IsPivot: broadcast(processo_raiz, pivo, cluster_i), Algorithm 1 line
// 12, for the cluster rooted at virtual rank Root; HasPivot false when
// the root's list was empty) or a list (send(lower_list|higher_list,
// partner), lines 16 and 20: the half virtual rank FromV hands to virtual
// rank ToV).
type Msg struct {
	From, To core.Rank
	Round    int
	IsPivot  bool
	Root     core.Rank
	Pivot    int32
	HasPivot bool
	FromV    core.Rank
	ToV      core.Rank
	Values   []int32
}

// Size is the message's payload in values: 1 for a pivot, the list's
// length for a list.
func (m Msg) Size() int {
	if m.IsPivot {
		return 1
	}
	return len(m.Values)
}

// AppendBinary appends the canonical encoding of m.
func (m Msg) AppendBinary(b []byte) []byte {
	b = core.AppendInt(b, int64(m.From))
	b = core.AppendInt(b, int64(m.To))
	b = core.AppendUint(b, uint64(m.Round))
	b = core.AppendBool(b, m.IsPivot)
	if m.IsPivot {
		b = core.AppendInt(b, int64(m.Root))
		b = core.AppendBool(b, m.HasPivot)
		return core.AppendInt(b, int64(m.Pivot))
	}
	b = core.AppendInt(b, int64(m.FromV))
	b = core.AppendInt(b, int64(m.ToV))
	return appendValues(b, m.Values)
}

func appendValues(b []byte, vs []int32) []byte {
	b = core.AppendUint(b, uint64(len(vs)))
	for _, v := range vs {
		b = core.AppendInt(b, int64(v))
	}
	return b
}

// String is e.g. "PIVOT(root=0, 5) p0→p4" or "LIST(v4→v0, [1, 2]) p5→p0".
func (m Msg) String() string {
	if m.IsPivot {
		if !m.HasPivot {
			return fmt.Sprintf("PIVOT(root=%d, none) p%d→p%d", m.Root, m.From, m.To)
		}
		return fmt.Sprintf("PIVOT(root=%d, %d) p%d→p%d", m.Root, m.Pivot, m.From, m.To)
	}
	return fmt.Sprintf("LIST(v%d→v%d, %s) p%d→p%d", m.FromV, m.ToV, FormatValues(m.Values), m.From, m.To)
}
