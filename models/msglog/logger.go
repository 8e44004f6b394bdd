package msglog

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// Logger is statemachine/eventlogger as the protocol's ml.EventLog, used
// only through that package's public API (New, Save, RemoveUpTo,
// RetrieveSince, Result): statemachine/msglog cannot import it
// (statemachine/deps_test.go), so the composition is made here, as
// models/eventlogger composes the logger with statemachine/paxos.
// Application process r is the logger's client r; the logger's own nodes
// are ranks Procs … N-1.
type Logger struct{ Cfg el.Config }

var _ ml.EventLog = Logger{}

func (l Logger) Client(r core.Rank) (core.Machine, error) { return el.New(r, l.Cfg) }
func (Logger) Save(det string) core.Input                 { return el.Save{Det: det} }
func (Logger) RemoveUpTo(id uint64) core.Input            { return el.RemoveUpTo{ID: id} }
func (Logger) RetrieveSince(id uint64) core.Input         { return el.RetrieveSince{ID: id} }

func (Logger) Result(v core.Value) (uint64, []string, error) {
	r, ok := v.(el.Result)
	if !ok {
		return 0, nil, fmt.Errorf("msglog: logger returned %v", v)
	}
	var dets []string
	for _, e := range r.Entries {
		dets = append(dets, e.Det)
	}
	return r.ID, dets, nil
}

func (Logger) Owns(m core.Message) bool {
	switch m.(type) {
	case el.Msg, el.Wrap:
		return true
	}
	return false
}
