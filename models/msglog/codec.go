package msglog

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// codec decodes the messages of a run over logger deployment ec: the
// protocol's own (ml.DecodeMessage, told apart by their first byte) and
// the event logger's (el.DecodeMessage). ftcheck run and validate read
// the wire and the logs with it. Node states have no decoder: a restarted
// process is rebuilt from its journal (netnode.Restore).
func codec(ec el.Config) env.Codec {
	return env.Codec{Message: func(b []byte) (core.Message, error) {
		if ml.IsProtocolMessage(b) {
			return ml.DecodeMessage(b)
		}
		return el.DecodeMessage(b, ec)
	}}
}
