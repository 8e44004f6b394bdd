package replica

import (
	"bytes"
	"fmt"
	"math"

	"github.com/ftkernel/ftkernel/core"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// DecodeValue reads a history value of the replica model written by
// AppendBinary: an sm.Output (one varint) or an sm.Delivery (a MID of five
// varints, then the payload), told apart by their number of varints (1 or
// 6), for a program of procs logical processes. Malformed or non-canonical
// bytes, or a MID rank outside 0 … procs−1, give an error wrapping
// core.ErrMalformed.
func DecodeValue(b []byte, procs int) (core.Value, error) {
	d := core.NewDecoder(b)
	first := d.Uint()
	var v core.Value
	if d.Err() == nil && d.Remaining() == 0 {
		v = sm.Output{V: core.NewDecoder(b).Int()}
	} else {
		var m sm.MID
		if first > math.MaxUint32 {
			d.Fail("communicator %d", first)
		}
		m.Comm = uint32(first)
		m.Src = int32(d.Rank(procs))
		m.Dst = int32(d.Rank(procs))
		if t := d.Uint(); t > math.MaxInt32 {
			d.Fail("tag %d", t)
		} else {
			m.Tag = int32(t)
		}
		m.Tick = d.Uint()
		v = sm.Delivery{MID: m, Payload: d.Int()}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(v.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical replica value", core.ErrMalformed)
	}
	return v, nil
}
