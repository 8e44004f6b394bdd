package props

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// TestTotalOrder: one sender over FIFO channels is delivered in one order
// everywhere; over an unordered network its two messages can arrive in
// either order, and two senders' messages can cross even over FIFO; no
// message at all in common holds trivially.
func TestTotalOrder(t *testing.T) {
	p := TotalOrder("total-order", "toy", nil)
	for _, c := range []struct {
		name string
		tc   toyCase
		bad  bool
	}{
		{"one sender, fifo", toyCase{calls: [][]num{{1, 2}, nil, nil}, network: env.FIFO}, false},
		{"one sender, fifo, crash", toyCase{calls: [][]num{{1, 2}, nil, nil}, network: env.FIFO, crashes: 1}, false},
		{"one sender, unordered", toyCase{calls: [][]num{{1, 2}, nil, nil}}, true},
		{"two senders, fifo", toyCase{calls: [][]num{{1}, {2}, nil}, network: env.FIFO}, true},
		{"one message each, two processes", toyCase{calls: [][]num{{1}, nil}}, false},
	} {
		got := c.tc.check(t, p)
		if (got != "") != c.bad {
			t.Errorf("%s: violation %q, want violated=%v", c.name, got, c.bad)
		}
		if got != "" && !strings.Contains(got, "the other way round") {
			t.Errorf("%s: message %q", c.name, got)
		}
	}
}

// TestTotalOrderHistory: the order check on hand-built histories of two
// processes (first deliveries only; messages one process lacks ignored).
func TestTotalOrderHistory(t *testing.T) {
	rec := func(vs ...num) []env.Record {
		out := make([]env.Record, len(vs))
		for i, v := range vs {
			out[i] = env.Record{Kind: core.EffDeliver, Instance: uint64(v), Value: v}
		}
		return out
	}
	for _, c := range []struct {
		p, q []env.Record
		ok   bool
	}{
		{rec(1, 2, 3), rec(1, 2, 3), true},
		{rec(1, 2, 3), rec(1, 3), true},
		{rec(1, 4, 2), rec(5, 1, 2, 6), true},
		{rec(1, 2), rec(2, 1), false},
		{rec(1, 2, 3), rec(3, 1), false},
		{rec(1, 2, 1), rec(1, 2), true},
		{nil, rec(2, 1), true},
	} {
		a, b := deliveredOf(c.p, DeliveryKey), deliveredOf(c.q, DeliveryKey)
		_, _, ab := misordered(a, b)
		_, _, ba := misordered(b, a)
		if ab != ba {
			t.Errorf("p=%v q=%v: misordered is not symmetric", c.p, c.q)
		}
		if got := ab; got != c.ok {
			t.Errorf("p=%v q=%v: ordered = %v, want %v", c.p, c.q, got, c.ok)
		}
	}
}
