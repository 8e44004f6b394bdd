package gossipfd

import (
	"flag"

	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// simMemory estimates the bytes the analysis chosen on fs (DefineSimulate's
// flags) allocates up front, from its data structures: --fd-failure's
// graph keeps two n-bit rows per host (n²/4 bytes, 1 GiB at n = 65536);
// --detection's hosts keep two n-entry heartbeat tables (16·n² bytes) and
// each round's gossip carries a table per host (8·n²), doubled for the
// collector. 0 for the others, and when --n is out of its range (refused
// with the range).
func simMemory(fs *flag.FlagSet) int64 {
	get := func(name string) any {
		if f := fs.Lookup(name); f != nil {
			return f.Value.(flag.Getter).Get()
		}
		return nil
	}
	n, _ := get("n").(int)
	if n < 2 || n > fd.MaxN {
		return 0
	}
	n2 := int64(n) * int64(n)
	const base = 32 << 20
	switch {
	case get("fd-failure") == true:
		return base + n2/4
	case get("detection") == true:
		return base + 2*24*n2
	}
	return 0
}
