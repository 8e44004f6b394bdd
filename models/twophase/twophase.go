// Package twophase is the classic two-phase commit specification (Gray and
// Lamport's TwoPhase.tla, as in the TLA+ examples) as a checker.Model. It
// calibrates the search engine: its state counts are public, so the
// checker's numbers can be compared with TLC's.
//
// A state is one packed uint64 (see State). The transition relation is the
// specification's Next, unchanged: RMRcvCommitMsg and RMRcvAbortMsg have no
// guard on the resource manager's own state and TMRcvPrepared none on
// tmPrepared, so they may stutter; such steps are generated (and counted)
// like any other.
package twophase

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ftkernel/ftkernel/checker"
)

// MaxRM is the largest number of resource managers a State can hold.
const MaxRM = 15

// Resource-manager states (2 bits each).
const (
	Working   = 0
	Prepared  = 1
	Committed = 2
	Aborted   = 3
)

// Transaction-manager states (2 bits).
const (
	TMInit      = 0
	TMCommitted = 1
	TMAborted   = 2
	// tmAbortTypo is the tmState AbortTypo writes: no TM state.
	tmAbortTypo = 3
)

// Action kinds (checker.Action.Kind); P is the resource manager, when any.
const (
	KindTMCommit uint8 = iota + 1
	KindTMAbort
	KindTMRcvPrepared
	KindRMPrepare
	KindRMChooseToAbort
	KindRMRcvCommitMsg
	KindRMRcvAbortMsg
)

var kindNames = [...]string{
	KindTMCommit:        "TMCommit",
	KindTMAbort:         "TMAbort",
	KindTMRcvPrepared:   "TMRcvPrepared",
	KindRMPrepare:       "RMPrepare",
	KindRMChooseToAbort: "RMChooseToAbort",
	KindRMRcvCommitMsg:  "RMRcvCommitMsg",
	KindRMRcvAbortMsg:   "RMRcvAbortMsg",
}

// Model is TwoPhase with RM resource managers (1..MaxRM).
type Model struct {
	RM int
	// BrokenCommit lets TMCommit fire before every RM has prepared: a bug
	// that violates TCConsistent, for testing counterexamples.
	BrokenCommit bool
	// AbortTypo makes TMAbort set tmState to a value outside {"init",
	// "committed", "aborted"} (a misspelt tmState' = "abort" in the TLA+
	// spec; here the unused code 3). No RM can commit after it, so
	// TCConsistent holds: only TPTypeOK sees it.
	AbortTypo bool
}

// New returns the model with rm resource managers; it is an error unless
// 1 <= rm <= MaxRM.
func New(rm int) (*Model, error) {
	if rm < 1 || rm > MaxRM {
		return nil, fmt.Errorf("twophase: rm=%d out of range 1..%d", rm, MaxRM)
	}
	return &Model{RM: rm}, nil
}

var _ checker.Model[State] = (*Model)(nil)

// Name is "twophase rm=N", with " broken" for BrokenCommit and
// " abort-typo" for AbortTypo.
func (m *Model) Name() string {
	n := "twophase rm=" + strconv.Itoa(m.RM)
	if m.BrokenCommit {
		n += " broken"
	}
	if m.AbortTypo {
		n += " abort-typo"
	}
	return n
}

// Init is the single initial state: every RM working, the TM in init, no
// RM prepared, no message.
func (m *Model) Init() []State { return []State{0} }

// Actions lists the enabled actions: TMCommit, TMAbort, then for each RM in
// ascending order TMRcvPrepared, RMPrepare, RMChooseToAbort,
// RMRcvCommitMsg, RMRcvAbortMsg.
func (m *Model) Actions(s State, buf []checker.Action) []checker.Action {
	n := m.RM
	tmInit := s.TM(n) == TMInit
	if tmInit && (m.BrokenCommit || s.TMPrepared(n) == allRM(n)) {
		buf = append(buf, checker.Action{Kind: KindTMCommit})
	}
	if tmInit {
		buf = append(buf, checker.Action{Kind: KindTMAbort})
	}
	commit, abort := s.CommitMsg(n), s.AbortMsg(n)
	for r := range n {
		p := int32(r)
		if tmInit && s.PreparedMsg(n, r) {
			buf = append(buf, checker.Action{Kind: KindTMRcvPrepared, P: p})
		}
		if s.RM(r) == Working {
			buf = append(buf,
				checker.Action{Kind: KindRMPrepare, P: p},
				checker.Action{Kind: KindRMChooseToAbort, P: p})
		}
		if commit {
			buf = append(buf, checker.Action{Kind: KindRMRcvCommitMsg, P: p})
		}
		if abort {
			buf = append(buf, checker.Action{Kind: KindRMRcvAbortMsg, P: p})
		}
	}
	return buf
}

// Apply takes a in s; an action that is not enabled is an error.
func (m *Model) Apply(s State, a checker.Action) (State, error) {
	n := m.RM
	if a.Kind != KindTMCommit && a.Kind != KindTMAbort && (a.P < 0 || int(a.P) >= n) {
		return s, fmt.Errorf("twophase: %v: rm out of range", a)
	}
	r := int(a.P)
	tmInit := s.TM(n) == TMInit
	switch a.Kind {
	case KindTMCommit:
		if tmInit && (m.BrokenCommit || s.TMPrepared(n) == allRM(n)) {
			return s.withTM(n, TMCommitted) | State(1)<<commitBit(n), nil
		}
	case KindTMAbort:
		if tmInit && m.AbortTypo {
			return s.withTM(n, tmAbortTypo) | State(1)<<abortBit(n), nil // mutant
		}
		if tmInit {
			return s.withTM(n, TMAborted) | State(1)<<abortBit(n), nil
		}
	case KindTMRcvPrepared:
		if tmInit && s.PreparedMsg(n, r) {
			return s | State(1)<<(tmPreparedShift(n)+r), nil
		}
	case KindRMPrepare:
		if s.RM(r) == Working {
			return s.withRM(r, Prepared) | State(1)<<(msgShift(n)+r), nil
		}
	case KindRMChooseToAbort:
		if s.RM(r) == Working {
			return s.withRM(r, Aborted), nil
		}
	case KindRMRcvCommitMsg:
		if s.CommitMsg(n) {
			return s.withRM(r, Committed), nil
		}
	case KindRMRcvAbortMsg:
		if s.AbortMsg(n) {
			return s.withRM(r, Aborted), nil
		}
	}
	return s, fmt.Errorf("twophase: %s not enabled in %s", m.actionName(a), s.Format(n))
}

// Encode appends the packed state as 8 little-endian bytes.
func (m *Model) Encode(b []byte, s State) []byte {
	return binary.LittleEndian.AppendUint64(b, uint64(s))
}

// Quiescent reports that the TM has decided and every RM has committed or
// aborted: only stuttering steps remain.
func (m *Model) Quiescent(s State) bool {
	if s.TM(m.RM) == TMInit {
		return false
	}
	for r := range m.RM {
		if st := s.RM(r); st != Committed && st != Aborted {
			return false
		}
	}
	return true
}

// Describe names the action, e.g. "RMPrepare(r1)".
func (m *Model) Describe(s State, a checker.Action) string { return m.actionName(a) }

// KindName names an action kind as TwoPhase.tla does ("TMCommit", …;
// checker.KindNamer).
func (m *Model) KindName(k uint8) string {
	if int(k) >= len(kindNames) || kindNames[k] == "" {
		return fmt.Sprintf("kind(%d)", k)
	}
	return kindNames[k]
}

func (m *Model) actionName(a checker.Action) string {
	if int(a.Kind) >= len(kindNames) || kindNames[a.Kind] == "" {
		return a.String()
	}
	if a.Kind == KindTMCommit || a.Kind == KindTMAbort {
		return kindNames[a.Kind]
	}
	return fmt.Sprintf("%s(r%d)", kindNames[a.Kind], a.P)
}

// Properties are the invariants TPTypeOK and TCConsistent of TwoPhase.tla.
func (m *Model) Properties() []checker.Property[State] {
	n := m.RM
	return []checker.Property[State]{
		{
			Name: "TPTypeOK",
			Kind: checker.Invariant,
			Doc:  "every variable is in its type (TwoPhase.tla)",
			Check: func(s State) error {
				if t := s.TM(n); t > TMAborted {
					return fmt.Errorf("tmState %d", t)
				}
				if s>>(abortBit(n)+1) != 0 {
					return fmt.Errorf("bits beyond the state: %#x", uint64(s))
				}
				return nil
			},
		},
		{
			Name: "TCConsistent",
			Kind: checker.Invariant,
			Doc:  "no RM has committed while another has aborted (TCommit.tla)",
			Check: func(s State) error {
				c, a := -1, -1
				for r := range n {
					switch s.RM(r) {
					case Committed:
						c = r
					case Aborted:
						a = r
					}
				}
				if c >= 0 && a >= 0 {
					return fmt.Errorf("r%d committed while r%d aborted", c, a)
				}
				return nil
			},
		},
	}
}
