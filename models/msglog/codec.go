package msglog

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// codec decodes the states, messages and values of a run of c over logger
// deployment ec. Messages: the protocol's own (ml.DecodeMessage, told
// apart by their first byte) and the event logger's (el.DecodeMessage);
// ftcheck run and validate read the wire and the logs with it. Nodes: an
// application process (rank < procs) is ml.DecodeProcess with its logger
// client read by el.DecodeNode, a logger node el.DecodeNode. Values: the
// application events of the processes' histories (ml.DecodeEvent) and the
// logger nodes' results (el.DecodeValue). With
// it BFS keeps its frontier as encodings (checker.Codec, --spill).
func codec(c *ml.Config, ec el.Config) env.Codec {
	procs := c.Program.N()
	client := func(b []byte, r core.Rank) (core.Machine, error) { return el.DecodeNode(b, r, ec) }
	return env.Codec{
		Node: func(b []byte, r core.Rank, _ int) (core.Machine, error) {
			if int(r) < procs {
				return ml.DecodeProcess(b, r, c, client)
			}
			return el.DecodeNode(b, r, ec)
		},
		Message: func(b []byte) (core.Message, error) {
			if ml.IsProtocolMessage(b) {
				return ml.DecodeMessage(b)
			}
			return el.DecodeMessage(b, ec)
		},
		Value: func(b []byte) (core.Value, error) {
			if ml.IsEvent(b) {
				return ml.DecodeEvent(b)
			}
			return el.DecodeValue(b)
		},
	}
}
