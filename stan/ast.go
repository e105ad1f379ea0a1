package stan

// Program is a parsed Stan program: its blocks in order, nil where absent.
type Program struct {
	File      string
	Funcs     []*FuncDef // the functions block's definitions
	Data      *Block
	TData     *Block
	Params    *Block
	TParams   *Block
	Model     *Block
	Generated *Block
}

// FuncDef is a user-defined function.
type FuncDef struct {
	Pos    Pos
	Name   string
	Return string // the return type as written, "void" for none
	Args   []string
	Body   *Block
	slots  []int // the arguments' slots
	lo, hi int   // the slots of its arguments and locals: [lo, hi)
}

// Return is `return e;` (E nil for `return;`).
type Return struct {
	Pos Pos
	E   Expr
}

// Block is a program block or a braced statement list.
type Block struct {
	Pos   Pos
	Name  string // the block's name ("model"), "" for a nested block
	Stmts []Stmt
}

// Base types of declarations.
const (
	tyInt = iota
	tyReal
	tyVector
	tyRowVector
	tyMatrix
	tySimplex
	tyOrdered
	tyPositiveOrdered
	tyUnitVector
	tyCholCorr
	tyCholCov
	tyCorr
	tyCov
)

var typeNames = map[string]int{
	"int": tyInt, "real": tyReal, "vector": tyVector, "row_vector": tyRowVector, "matrix": tyMatrix,
	"simplex": tySimplex, "ordered": tyOrdered, "positive_ordered": tyPositiveOrdered, "unit_vector": tyUnitVector,
	"cholesky_factor_corr": tyCholCorr, "cholesky_factor_cov": tyCholCov, "corr_matrix": tyCorr, "cov_matrix": tyCov,
}

// Decl declares a variable: `array[N] vector<lower=0>[K] x = e;`.
type Decl struct {
	Pos                              Pos
	Name                             string
	Type                             int    // tyInt, …
	TypeName                         string // as written
	Lower, Upper, Offset, Multiplier Expr   // nil when absent
	Sizes                            []Expr // the vector's or matrix's sizes
	Dims                             []Expr // array dimensions
	Init                             Expr
	slot                             int
}

// Stmt is a statement.
type Stmt interface{ pos() Pos }

// Assign is `lhs op value`, op one of = += -= *= /= .*= ./=.
type Assign struct {
	Pos   Pos
	Name  string
	Index []Index
	Op    string
	Value Expr
	slot  int
}

// Tilde is `x ~ dist(args) T[lo, hi]`.
type Tilde struct {
	Pos        Pos
	X          Expr
	Dist       string
	Args       []Expr
	TruncLo    Expr
	TruncHi    Expr
	Truncation bool
}

// TargetPlus is `target += e`.
type TargetPlus struct {
	Pos Pos
	E   Expr
}

// For is `for (v in lo:hi) body`, or `for (v in container) body` when Hi is nil.
type For struct {
	Pos    Pos
	Var    string
	Lo, Hi Expr
	Body   Stmt
	slot   int
}

// While is `while (cond) body`.
type While struct {
	Pos  Pos
	Cond Expr
	Body Stmt
}

// If is `if (cond) then else els`; Else may be nil.
type If struct {
	Pos  Pos
	Cond Expr
	Then Stmt
	Else Stmt
}

// Print is print(...) or reject(...) or fatal_error(...).
type Print struct {
	Pos    Pos
	Reject bool
	Args   []Expr // an Expr, or a *StrLit
}

// Jump is break or continue.
type Jump struct {
	Pos   Pos
	Break bool
}

func (s *Decl) pos() Pos       { return s.Pos }
func (s *Assign) pos() Pos     { return s.Pos }
func (s *Tilde) pos() Pos      { return s.Pos }
func (s *TargetPlus) pos() Pos { return s.Pos }
func (s *For) pos() Pos        { return s.Pos }
func (s *While) pos() Pos      { return s.Pos }
func (s *If) pos() Pos         { return s.Pos }
func (s *Print) pos() Pos      { return s.Pos }
func (s *Jump) pos() Pos       { return s.Pos }
func (s *Return) pos() Pos     { return s.Pos }
func (s *Block) pos() Pos      { return s.Pos }

// Expr is an expression.
type Expr interface{ pos() Pos }

// IntLit is an integer literal.
type IntLit struct {
	Pos Pos
	V   int
}

// RealLit is a real literal.
type RealLit struct {
	Pos Pos
	V   float64
	c   []float64 // V as a constant's storage
}

// StrLit is a string (print's arguments only).
type StrLit struct {
	Pos Pos
	S   string
}

// Ident is a variable.
type Ident struct {
	Pos      Pos
	Name     string
	slot     int
	rowCount bool // the row count sizing a row-wise local or bounding the loop over the rows: |B| on a batch
}

// Unary is a prefix operator (- ! +) or the postfix transpose (').
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is a binary operator.
type Binary struct {
	Pos  Pos
	Op   string
	L, R Expr
}

// Cond is c ? a : b.
type Cond struct {
	Pos     Pos
	C, A, B Expr
}

// Index is one index: a single position, a multi-index (an int array), or
// a range lo:hi with either end optional (All when both are absent).
type Index struct {
	Pos    Pos
	E      Expr // single or multi-index
	Range  bool
	Lo, Hi Expr
}

// IndexExpr is x[i, j, …].
type IndexExpr struct {
	Pos Pos
	X   Expr
	Idx []Index
}

// Call is a function call f(a, …); f(a | b, …) has Cond set.
type Call struct {
	Pos  Pos
	Name string
	Args []Expr
	Cond bool
	fn   *FuncDef // a user-defined function
}

// ArrayLit is {a, b, …}; RowVecLit is [a, b, …].
type ArrayLit struct {
	Pos   Pos
	Elems []Expr
	Row   bool // [ … ]: a row vector (or a matrix of row vectors)
}

func (e *IntLit) pos() Pos    { return e.Pos }
func (e *RealLit) pos() Pos   { return e.Pos }
func (e *StrLit) pos() Pos    { return e.Pos }
func (e *Ident) pos() Pos     { return e.Pos }
func (e *Unary) pos() Pos     { return e.Pos }
func (e *Binary) pos() Pos    { return e.Pos }
func (e *Cond) pos() Pos      { return e.Pos }
func (e *IndexExpr) pos() Pos { return e.Pos }
func (e *Call) pos() Pos      { return e.Pos }
func (e *ArrayLit) pos() Pos  { return e.Pos }
