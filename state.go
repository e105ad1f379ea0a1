package langevin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Resumable is implemented by chains whose state can be saved and restored
// exactly, so that a run stopped part way (a signal, a kill, a pre-empted
// job) continues as if it had never stopped: see Options.Checkpoint and
// Options.Resume.
//
// State visits, in a fixed order, everything that Step and Stats read and
// that changes as the chain runs — position, momentum, gradient, iteration
// counter, step-size and metric adaptation, a batcher's permutation, the
// statistics of the last step — with one StateCoder call per item: the
// same method saves (an encoding coder) and restores (a decoding one). The
// settings (the sampler's fields, and what NewChain computes from them and
// the model, such as a control variate's full-data gradient at its fixed
// centre) and the random stream (Run saves it: it owns the stream's source)
// are not part of the state. A chain restored by State into a chain new from
// the same sampler and model, with the random stream restored alike, takes
// the same steps bit for bit as the chain it was saved from.
type Resumable interface {
	State(s *StateCoder)
}

// StateCoder saves or restores the state of a chain (Resumable): an encoder
// appends each visited item to a byte slice, a decoder reads it back into
// the same item. Numbers are stored exactly (IEEE 754 bits), integers as
// variable-length integers; a slice's length is stored and must match on
// decoding, since a chain's buffers are sized by its model and settings. The
// first error (a short or malformed state, a length that does not match)
// is kept and reported by Err; later calls do nothing.
type StateCoder struct {
	buf []byte
	off int
	dec bool
	err error
}

// NewStateEncoder returns a coder that appends a state to dst.
func NewStateEncoder(dst []byte) *StateCoder { return &StateCoder{buf: dst} }

// NewStateDecoder returns a coder that reads a state from b.
func NewStateDecoder(b []byte) *StateCoder { return &StateCoder{buf: b, dec: true} }

// Decoding reports whether the coder restores (true) or saves a state.
func (s *StateCoder) Decoding() bool { return s.dec }

// Bytes returns the encoded state.
func (s *StateCoder) Bytes() []byte { return s.buf }

// Err returns the first error; a decoder also reports bytes left over.
func (s *StateCoder) Err() error {
	if s.err == nil && s.dec && s.off != len(s.buf) {
		return fmt.Errorf("langevin: chain state: %d bytes left over after the state (a state of another sampler or settings)", len(s.buf)-s.off)
	}
	return s.err
}

var errShortState = errors.New("langevin: chain state: ends early (a truncated state, or one of another sampler or settings)")

func (s *StateCoder) uvarint(p *uint64) {
	if s.err != nil {
		return
	}
	if !s.dec {
		s.buf = binary.AppendUvarint(s.buf, *p)
		return
	}
	v, n := binary.Uvarint(s.buf[s.off:])
	if n <= 0 {
		s.err = errShortState
		return
	}
	s.off += n
	*p = v
}

func (s *StateCoder) bits(p *uint64) {
	if s.err != nil {
		return
	}
	if !s.dec {
		s.buf = binary.LittleEndian.AppendUint64(s.buf, *p)
		return
	}
	if len(s.buf)-s.off < 8 {
		s.err = errShortState
		return
	}
	*p = binary.LittleEndian.Uint64(s.buf[s.off:])
	s.off += 8
}

// Float visits one number.
func (s *StateCoder) Float(p *float64) {
	b := math.Float64bits(*p)
	s.bits(&b)
	if s.dec && s.err == nil {
		*p = math.Float64frombits(b)
	}
}

// Int visits one integer.
func (s *StateCoder) Int(p *int) {
	u := uint64(int64(*p)<<1) ^ uint64(int64(*p)>>63) // zig-zag
	s.uvarint(&u)
	if s.dec && s.err == nil {
		*p = int(int64(u>>1) ^ -int64(u&1))
	}
}

// Bool visits one flag.
func (s *StateCoder) Bool(p *bool) {
	var u uint64
	if *p {
		u = 1
	}
	s.uvarint(&u)
	if s.dec && s.err == nil {
		if u > 1 {
			s.err = fmt.Errorf("langevin: chain state: flag %d: expected 0 or 1", u)
			return
		}
		*p = u == 1
	}
}

// length visits a slice's length, which must be n on decoding.
func (s *StateCoder) length(n int, what string) {
	u := uint64(n)
	s.uvarint(&u)
	if s.dec && s.err == nil && u != uint64(n) {
		s.err = fmt.Errorf("langevin: chain state: %s of %d values where the chain holds %d (a state of another model or settings)", what, u, n)
	}
}

// Floats visits the values of v (its length is fixed: it must match).
func (s *StateCoder) Floats(v []float64) {
	s.length(len(v), "a vector")
	for i := range v {
		if s.err != nil {
			return
		}
		s.Float(&v[i])
	}
}

// Ints visits the values of v (its length is fixed: it must match).
func (s *StateCoder) Ints(v []int) {
	s.length(len(v), "a list")
	for i := range v {
		if s.err != nil {
			return
		}
		s.Int(&v[i])
	}
}

// Fail records err as the coder's error (a restored value out of its
// range), unless an error is already recorded.
func (s *StateCoder) Fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// SaveState returns the state of ch, which must be Resumable.
func SaveState(ch Chain) ([]byte, error) {
	r, ok := ch.(Resumable)
	if !ok {
		return nil, fmt.Errorf("langevin: a chain of type %T cannot save its state", ch)
	}
	s := NewStateEncoder(nil)
	r.State(s)
	return s.Bytes(), s.Err()
}

// RestoreState sets the state of ch, which must be Resumable, from b, as
// SaveState returned it for a chain of the same sampler, settings and model.
func RestoreState(ch Chain, b []byte) error {
	r, ok := ch.(Resumable)
	if !ok {
		return fmt.Errorf("langevin: a chain of type %T cannot restore a state", ch)
	}
	s := NewStateDecoder(b)
	r.State(s)
	return s.Err()
}

// State visits the batcher's state: the permutation of the current epoch
// and the position in it (batches drawn with replacement have none). The
// random stream is the chain's, saved by Run.
func (b *Batcher) State(s *StateCoder) {
	s.length(len(b.perm), "a list") // encoded as Ints of int
	for i := range b.perm {
		if s.err != nil {
			return
		}
		v := int(b.perm[i])
		s.Int(&v)
		if s.dec && (v < 0 || v >= b.n) {
			s.Fail(fmt.Errorf("langevin: batcher state: index %d in an epoch of %d", v, b.n))
			return
		}
		b.perm[i] = int32(v)
	}
	s.Int(&b.pos)
	if s.dec && (b.pos < 0 || b.pos > b.n) {
		s.Fail(fmt.Errorf("langevin: batcher state: position %d in an epoch of %d", b.pos, b.n))
	}
}
