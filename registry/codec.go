package registry

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/correction"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// The protocols' decoders as env.Codec hooks, so that BFS keeps the
// frontier of their models as encodings (checker.Codec).

// eraCodec decodes ERA nodes, messages and values of cfg.
func eraCodec(cfg era.Config) env.Codec {
	op := cfg.Op
	if op == nil {
		op = era.And
	}
	return env.Codec{
		Node:    func(b []byte, p core.Rank, _ int) (core.Machine, error) { return era.DecodeNode(b, p, cfg) },
		Message: func(b []byte) (core.Message, error) { return era.DecodeMessage(b, op) },
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

// correctionCodec decodes corrected-broadcast nodes, messages and values of
// cfg.
func correctionCodec(cfg *correction.Config) env.Codec {
	return env.Codec{
		Node:    func(b []byte, _ core.Rank, _ int) (core.Machine, error) { return correction.DecodeNode(b, cfg) },
		Message: func(b []byte) (core.Message, error) { return correction.DecodeMessage(b) },
		Value: func(b []byte) (core.Value, error) {
			d := core.NewDecoder(b)
			v := correction.Value(d.Uint())
			return v, d.Finish()
		},
	}
}
