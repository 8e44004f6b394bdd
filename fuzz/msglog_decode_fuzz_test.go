package fuzz

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	mlmodel "github.com/ftkernel/ftkernel/models/msglog"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// msglogDecodeParams are the models FuzzMsglogDecodeWorld decodes for
// (the first byte of an input picks one).
var msglogDecodeParams = []mlmodel.Params{
	{Program: "fig51", Procs: 3, Logger: el.Centralized, F: 1, Crashes: 1, Recoveries: 1},
	{Program: "fig51", Procs: 3, Logger: el.Classic, F: 1, Crashes: 1, Recoveries: 1},
	{Program: "probe", Procs: 3, Logger: el.Centralized, F: 1, Crashes: 1, Recoveries: 1, DelayedAck: true},
}

// FuzzMsglogDecodeWorld: the msglog model's Decode (ml.DecodeProcess,
// the logger's decoders, ml.DecodeEvent) never panics, and a world it
// accepts encodes back to the same bytes. Seeds: the worlds of a walk
// with a crash and a restart.
func FuzzMsglogDecodeWorld(f *testing.F) {
	models := make([]*env.Model, len(msglogDecodeParams))
	for k, p := range msglogDecodeParams {
		m, err := mlmodel.NewModel(p)
		if err != nil {
			f.Fatal(err)
		}
		models[k] = m
		w := m.Init()[0]
		for i := range 80 {
			f.Add(append([]byte{byte(k)}, m.Encode(nil, w)...))
			as := m.Actions(w, nil)
			if len(as) == 0 {
				break
			}
			if w, err = m.Apply(w, as[(i*7)%len(as)]); err != nil {
				f.Fatal(err)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		m := models[int(data[0])%len(models)]
		w, err := m.Decode(data[1:])
		if err != nil {
			if strings.Contains(err.Error(), "panicked") {
				t.Fatal(err)
			}
			return
		}
		if got := m.Encode(nil, w); !bytes.Equal(got, data[1:]) {
			t.Fatalf("%x decodes to a world that encodes to %x", data[1:], got)
		}
	})
}
