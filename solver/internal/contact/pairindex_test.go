package contact

import (
	"math/rand/v2"
	"testing"
)

// TestPairIndex checks both forms of pairIndex (hash table for few pairs,
// CSR for many) against a map: every key finds its first pair, keys not
// indexed find none.
func TestPairIndex(t *testing.T) {
	const ids = 1000
	r := rand.New(rand.NewPCG(1, 2))
	var ix pairIndex
	for _, n := range []int{0, 1, 20, 124, 125, 400, 5000} {
		keys := make([]uint64, n)
		first := map[uint64]int32{}
		for i := range keys {
			keys[i] = pairKey(int32(r.IntN(ids)), int32(r.IntN(50)))
			if _, ok := first[keys[i]]; !ok {
				first[keys[i]] = int32(i)
			}
		}
		ix.fill(n, ids, func(i int) uint64 { return keys[i] })
		if want := n < ids/8; ix.hashed != want {
			t.Errorf("n = %d: hashed = %v, want %v", n, ix.hashed, want)
		}
		for k, i := range first {
			if got := ix.get(k); got != i {
				t.Fatalf("n = %d: key %x found at %d, want %d", n, k, got, i)
			}
		}
		for range 200 {
			k := pairKey(int32(r.IntN(ids)), 50+int32(r.IntN(50)))
			if got := ix.get(k); got != -1 {
				t.Fatalf("n = %d: absent key %x found at %d", n, k, got)
			}
		}
	}
}
