package agentloop

import (
	"fmt"
	"math/rand/v2"
)

// Clock is the loop's fixed clock: it starts at a given millisecond and
// moves one millisecond per event written, so a run's times depend only on
// its script.
type Clock struct{ now int64 }

// NewClock returns a clock reading start.
func NewClock(start int64) *Clock { return &Clock{now: start} }

// Now returns the current time in milliseconds.
func (c *Clock) Now() int64 { return c.now }

// Tick moves the clock one millisecond on.
func (c *Clock) Tick() { c.now++ }

// IDs makes the random-looking ids dsh writes (RFC 4122 version 4 UUIDs)
// from a seed, so the same seed gives the same ids.
type IDs struct{ rng *rand.Rand }

// NewIDs returns an id generator seeded with seed.
func NewIDs(seed uint64) *IDs {
	return &IDs{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Next returns the next UUID.
func (g *IDs) Next() string {
	var b [16]byte
	hi, lo := g.rng.Uint64(), g.rng.Uint64()
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
