package twophase

import (
	"fmt"
	"strings"
)

// State packs a TwoPhase state for n resource managers into 4n+4 bits,
// from the least significant bit:
//
//	2n bits  rmState, 2 bits per RM (Working, Prepared, Committed, Aborted)
//	2 bits   tmState (TMInit, TMCommitted, TMAborted)
//	n bits   tmPrepared, bit r for RM r
//	n bits   msgs: Prepared(r), bit r
//	1 bit    msgs: Commit
//	1 bit    msgs: Abort
//
// The accessors take n because the layout depends on it.
type State uint64

func tmShift(n int) int         { return 2 * n }
func tmPreparedShift(n int) int { return 2*n + 2 }
func msgShift(n int) int        { return 3*n + 2 }
func commitBit(n int) int       { return 4*n + 2 }
func abortBit(n int) int        { return 4*n + 3 }
func allRM(n int) uint64        { return 1<<n - 1 }

// RM is rmState[r].
func (s State) RM(r int) int { return int(s>>(2*r)) & 3 }

// TM is tmState.
func (s State) TM(n int) int { return int(s>>tmShift(n)) & 3 }

// TMPrepared is tmPrepared as a bitmask of RMs.
func (s State) TMPrepared(n int) uint64 { return uint64(s>>tmPreparedShift(n)) & allRM(n) }

// PreparedMsg reports whether [type |-> "Prepared", rm |-> r] is in msgs.
func (s State) PreparedMsg(n, r int) bool { return s>>(msgShift(n)+r)&1 != 0 }

// CommitMsg reports whether [type |-> "Commit"] is in msgs.
func (s State) CommitMsg(n int) bool { return s>>commitBit(n)&1 != 0 }

// AbortMsg reports whether [type |-> "Abort"] is in msgs.
func (s State) AbortMsg(n int) bool { return s>>abortBit(n)&1 != 0 }

func (s State) withRM(r, v int) State { return s&^(3<<(2*r)) | State(v)<<(2*r) }

func (s State) withTM(n, v int) State { return s&^(3<<tmShift(n)) | State(v)<<tmShift(n) }

var (
	rmNames = [...]string{"working", "prepared", "committed", "aborted"}
	tmNames = [...]string{"init", "committed", "aborted", "invalid"}
)

// Format prints the state for n RMs, e.g.
// "rm=[working prepared] tm=init tmPrepared={r1} msgs={Prepared(r1)}".
func (s State) Format(n int) string {
	var b strings.Builder
	b.WriteString("rm=[")
	for r := range n {
		if r > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(rmNames[s.RM(r)])
	}
	fmt.Fprintf(&b, "] tm=%s tmPrepared={", tmNames[s.TM(n)])
	sep := ""
	for r := range n {
		if s.TMPrepared(n)>>r&1 != 0 {
			fmt.Fprintf(&b, "%sr%d", sep, r)
			sep = ","
		}
	}
	b.WriteString("} msgs={")
	sep = ""
	for r := range n {
		if s.PreparedMsg(n, r) {
			fmt.Fprintf(&b, "%sPrepared(r%d)", sep, r)
			sep = ","
		}
	}
	if s.CommitMsg(n) {
		fmt.Fprintf(&b, "%sCommit", sep)
		sep = ","
	}
	if s.AbortMsg(n) {
		fmt.Fprintf(&b, "%sAbort", sep)
	}
	b.WriteByte('}')
	return b.String()
}
