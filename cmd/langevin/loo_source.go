package main

import (
	"crypto/sha256"
	binenc "encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// looSource gives the pointwise log-likelihoods of a run's training rows: a
// model in memory, or a store's rows read a block at a time.
type looSource interface {
	Len() int
	// Eval writes log p(y_rows[j] | draws[s]) into ll at (j, s) and, when
	// F is not nil and the model has one, P(Y ≤ y_rows[j] | draws[s]) into
	// F; rows ascending.
	Eval(ll, F *mat.Dense, rows []int, draws [][]float64) error
	HasCDF() bool
	// Approx writes log p(yᵢ | θ) of every row into dst.
	Approx(dst, theta []float64) error
	// RowsHash identifies the rows by their responses (hashRows of all).
	RowsHash() (string, error)
}

// memSource is a model on rows in memory.
type memSource struct {
	rl  langevin.RowLogLiker
	cdf langevin.RowCDFer
	y   []float64 // the responses as read (their hash identifies the rows)
	col []float64
	// logSY is subtracted from every log-likelihood: log s_y when the
	// model is of the standardised response z = (y − ȳ)/s_y, so that
	// log p(y|θ) = log p(z|θ) − log s_y is in y's units (0 otherwise)
	logSY float64
}

func (m *memSource) Len() int                  { return len(m.y) }
func (m *memSource) HasCDF() bool              { return m.cdf != nil }
func (m *memSource) RowsHash() (string, error) { return hashRows(m.y), nil }

func (m *memSource) Eval(ll, F *mat.Dense, rows []int, draws [][]float64) error {
	b := len(rows)
	if cap(m.col) < b {
		m.col = make([]float64, b)
	}
	col := m.col[:b]
	for s, th := range draws {
		m.rl.RowLogLik(col, th, rows)
		for j, v := range col {
			ll.Set(j, s, v-m.logSY)
		}
		if F != nil && m.cdf != nil {
			m.cdf.RowCDF(col, th, rows)
			for j, v := range col {
				F.Set(j, s, v)
			}
		}
	}
	return nil
}

func (m *memSource) Approx(dst, theta []float64) error {
	all := make([]int, len(m.y))
	for i := range all {
		all[i] = i
	}
	m.rl.RowLogLik(dst, theta, all)
	for i := range dst {
		dst[i] -= m.logSY
	}
	return nil
}

// storeSource is a run's training rows in a store, read a block at a time
// (as the run read them: labels recoded, split, standardised); each block's
// log-likelihoods are those of the run's model built on the block alone,
// whose rows' densities do not depend on the other rows.
type storeSource struct {
	rows data.Rows
	spec model.Spec
	what string // the store, for messages
	// ysc standardises the response when the run did (its TargetScale >
	// 0; nil otherwise): the model is built on z, and log s_y is taken
	// from its log-likelihoods, as memSource's logSY
	ysc   *data.Scaler
	cdf   bool // the model gives P(Y ≤ yᵢ | θ) (langevin.RowCDFer): LOO-PIT
	x, y  []float64
	z     []float64
	col   []float64
	local []int
	hash  string
}

// storeBlock is the number of rows a pass over all rows reads at a time.
const storeBlock = 4096

func (s *storeSource) Len() int     { return s.rows.Len() }
func (s *storeSource) HasCDF() bool { return s.cdf }

// block reads the rows (ascending) and builds the model on them.
func (s *storeSource) block(rows []int) (langevin.RowLogLiker, error) {
	m, err := s.blockModel(rows)
	if err != nil {
		return nil, err
	}
	rl, ok := m.(langevin.RowLogLiker)
	if !ok {
		return nil, fmt.Errorf("%s: model %s gives no pointwise log-likelihood", s.what, s.spec.Kind)
	}
	return rl, nil
}

// blockModel reads the rows (ascending) and builds the model on them.
func (s *storeSource) blockModel(rows []int) (langevin.Model, error) {
	b, p := len(rows), s.rows.Dim()
	if cap(s.x) < b*p {
		s.x = make([]float64, b*p)
	}
	if cap(s.y) < b {
		s.y, s.z, s.col, s.local = make([]float64, b), make([]float64, b), make([]float64, b), make([]int, b)
	}
	x, y := s.x[:b*p], s.y[:b]
	for j := 0; j < b; {
		k := 1
		for j+k < b && rows[j+k] == rows[j]+k {
			k++
		}
		s.rows.ReadRows(rows[j], x[j*p:(j+k)*p], y[j:j+k])
		j += k
	}
	resp := y
	if s.ysc != nil {
		resp = s.z[:b]
		copy(resp, y)
		s.ysc.TransformTarget(resp)
	}
	m, err := s.spec.Build(mat.NewDense(b, p, x), resp)
	if err != nil {
		return nil, fmt.Errorf("%s: rows %d–%d: %v", s.what, rows[0]+1, rows[b-1]+1, err)
	}
	for j := range b {
		s.local[j] = j
	}
	return m, nil
}

func (s *storeSource) Eval(ll, F *mat.Dense, rows []int, draws [][]float64) error {
	rl, err := s.block(rows)
	if err != nil {
		return err
	}
	cdf, _ := rl.(langevin.RowCDFer)
	col, local := s.col[:len(rows)], s.local[:len(rows)]
	shift := s.logSY()
	for d, th := range draws {
		rl.RowLogLik(col, th, local)
		for j, v := range col {
			ll.Set(j, d, v-shift)
		}
		if F != nil && cdf != nil {
			cdf.RowCDF(col, th, local)
			for j, v := range col {
				F.Set(j, d, v)
			}
		}
	}
	return nil
}

// Approx streams every row once, and hashes the responses on the way.
func (s *storeSource) Approx(dst, theta []float64) error {
	h := sha256.New()
	rows := make([]int, 0, storeBlock)
	N := s.rows.Len()
	for lo := 0; lo < N; lo += storeBlock {
		rows = rows[:0]
		for i := lo; i < min(lo+storeBlock, N); i++ {
			rows = append(rows, i)
		}
		rl, err := s.block(rows)
		if err != nil {
			return err
		}
		rl.RowLogLik(dst[lo:lo+len(rows)], theta, s.local[:len(rows)])
		for i := lo; i < lo+len(rows); i++ {
			dst[i] -= s.logSY()
		}
		hashMore(h, s.y[:len(rows)])
	}
	s.hash = hex.EncodeToString(h.Sum(nil)[:8])
	return nil
}

// logSY is log s_y for a standardised response, else 0.
func (s *storeSource) logSY() float64 {
	if s.ysc == nil {
		return 0
	}
	return math.Log(s.ysc.TargetScale)
}

func (s *storeSource) RowsHash() (string, error) {
	if s.hash != "" {
		return s.hash, nil
	}
	h := sha256.New()
	for _, y := range data.Blocks(s.rows, 0) {
		hashMore(h, y)
	}
	s.hash = hex.EncodeToString(h.Sum(nil)[:8])
	return s.hash, nil
}

// hashRows identifies the training rows by their responses.
func hashRows(y []float64) string {
	h := sha256.New()
	hashMore(h, y)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func hashMore(h hash.Hash, y []float64) {
	var b [8]byte
	for _, v := range y {
		binenc.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
}
