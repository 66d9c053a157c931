package main

import (
	"hash/fnv"
	"math/bits"
	"sort"
)

// rng is a splitmix64 generator. It is written out here rather than taken
// from math/rand so that a seed produces the same base on every Go version
// and every architecture: the benchmark caches bases by seed, and a cached
// base must mean the same bytes everywhere. No floating point is used
// anywhere in generation for the same reason (fused multiply-add differs
// between architectures).
type rng struct{ s uint64 }

// newRNG returns a generator for one named stream of a seed. Streams are
// independent, so a file's content depends only on the seed and its own
// stream name, never on the order in which files are generated.
func newRNG(seed uint64, stream string) *rng {
	h := fnv.New64a()
	h.Write([]byte(stream))
	r := &rng{s: seed ^ 0x6a09e667f3bcc909}
	r.s ^= h.Sum64()
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a value in [0, n); n must be positive.
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// between returns a value in [lo, hi], both inclusive.
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true pct times out of a hundred.
func (r *rng) chance(pct int) bool { return r.intn(100) < pct }

// pick returns one element of xs, uniformly.
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// appendHex appends n lowercase hex digits.
func (r *rng) appendHex(b []byte, n int) []byte {
	const digits = "0123456789abcdef"
	var v uint64
	for i := range n {
		if i%16 == 0 {
			v = r.next()
		}
		b = append(b, digits[v&15])
		v >>= 4
	}
	return b
}

// zipf draws ranks 0..n-1 with weight proportional to 1/(rank+offset): a
// Zipf law with exponent 1, so a few ranks are very common and the long
// tail is rare. Weights are integers so draws are exact everywhere.
type zipf struct{ cum []uint64 }

func newZipf(n, offset int) *zipf {
	z := &zipf{cum: make([]uint64, n)}
	var total uint64
	for i := range n {
		total += (1 << 36) / uint64(i+offset)
		z.cum[i] = total
	}
	return z
}

func (z *zipf) draw(r *rng) int {
	x, _ := bits.Mul64(r.next(), z.cum[len(z.cum)-1])
	return sort.Search(len(z.cum), func(i int) bool { return z.cum[i] > x })
}
