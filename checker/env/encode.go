package env

import "github.com/ftkernel/ftkernel/core"

// Encode appends the canonical encoding of s: N, the crashed set, then per
// process in rank order: its node's encoding (length-prefixed), its inbox
// (per distinct message in canonical order: sender, copies, bytes), the
// peers it has been told are dead, its call schedule, the number of calls
// made and whether a blocking call is awaited, and its history (kind,
// instance, value) and its armed timers (count, ids ascending); the number
// of Clock actions taken comes after the crashed set. Equal worlds give equal bytes; the order in which
// messages were sent does not show under Unordered. Depth and the last step
// are not encoded. O(size of the state).
func (m *Model) Encode(b []byte, s *World) []byte {
	b = core.AppendUint(b, uint64(m.cfg.N))
	b = s.crashed.AppendBinary(b)
	b = core.AppendUint(b, uint64(s.clock))
	enc := m.schedEnc[s.alt]
	var tmp []byte
	each(s.root, m.height, 0, func(i int, p *proc) bool {
		tmp = p.node.AppendBinary(tmp[:0])
		b = core.AppendBytes(b, tmp)
		b = core.AppendUint(b, uint64(len(p.inbox)))
		for _, e := range p.inbox {
			b = core.AppendUint(b, uint64(e.from))
			b = core.AppendUint(b, uint64(e.n))
			b = core.AppendString(b, e.key)
		}
		b = p.detected.AppendBinary(b)
		b = append(b, enc[i]...)
		b = core.AppendUint(b, uint64(p.made))
		b = core.AppendBool(b, p.awaiting)
		b = core.AppendUint(b, uint64(len(p.hist)))
		for _, r := range p.hist {
			b = append(b, byte(r.Kind))
			b = core.AppendUint(b, r.Instance)
			b = core.AppendBool(b, r.Value != nil)
			if r.Value != nil {
				tmp = r.Value.AppendBinary(tmp[:0])
				b = core.AppendBytes(b, tmp)
			}
		}
		b = core.AppendUint(b, uint64(len(p.timers)))
		for _, id := range p.timers {
			b = core.AppendUint(b, id)
		}
		return true
	})
	return b
}
