package correction

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// codec is the corrected broadcast's decoders of cfg (nodes, messages,
// values) as env.Codec hooks, so that BFS keeps the model's frontier as
// encodings (checker.Codec).
func codec(cfg *corrsm.Config) env.Codec {
	return env.Codec{
		Node:    func(b []byte, p core.Rank, _ int) (core.Machine, error) { return corrsm.DecodeNode(b, p, cfg) },
		Message: func(b []byte) (core.Message, error) { return corrsm.DecodeMessage(b) },
		Value: func(b []byte) (core.Value, error) {
			d := core.NewDecoder(b)
			v := corrsm.Value(d.Uint())
			return v, d.Finish()
		},
	}
}
