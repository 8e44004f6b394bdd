package core

import (
	"encoding/binary"
	"math/bits"
)

// Fingerprint hashes a canonical encoding to 64 bits. It is fixed (no seed
// drawn at run time), so fingerprints are equal across runs and machines.
// Two different encodings collide with probability about 2^-64; the checker
// reports the resulting chance that a collision hid a state.
func Fingerprint(b []byte) uint64 {
	const (
		k0 = 0xa0761d6478bd642f
		k1 = 0xe7037ed1a0b428db
		k2 = 0x8ebc6af09c88c6e3
	)
	h := uint64(len(b))*k2 ^ k0
	for len(b) >= 8 {
		h = mix(h^binary.LittleEndian.Uint64(b), k1)
		b = b[8:]
	}
	var tail uint64
	for i := len(b) - 1; i >= 0; i-- {
		tail = tail<<8 | uint64(b[i])
	}
	h = mix(h^tail^k2, k1)
	return mix(h, k0)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
