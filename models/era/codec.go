package era

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// codec is ERA's decoders of cfg (nodes, messages, values) as env.Codec
// hooks, so that BFS keeps the model's frontier as encodings
// (checker.Codec).
func codec(cfg erasm.Config) env.Codec {
	op := cfg.Op
	if op == nil {
		op = erasm.And
	}
	return env.Codec{
		Node:    func(b []byte, p core.Rank, _ int) (core.Machine, error) { return erasm.DecodeNode(b, p, cfg) },
		Message: func(b []byte) (core.Message, error) { return erasm.DecodeMessage(b, op) },
		Value: func(b []byte) (core.Value, error) {
			d := core.NewDecoder(b)
			v, err := op.Decode(d)
			if err != nil {
				return nil, err
			}
			return v, d.Finish()
		},
	}
}
