package stan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a position in a Stan program: 1-based line and column (in bytes).
type Pos struct{ Line, Col int }

// Error is an error in a Stan program or its data, at a position of a file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tReal
	tString
	tOp // punctuation and operators, text in tok.s
)

type token struct {
	k   tokKind
	s   string
	pos Pos
}

func (t token) String() string {
	switch t.k {
	case tEOF:
		return "the end of the file"
	case tString:
		return "a string"
	case tInt, tReal:
		return "the number " + t.s
	case tIdent:
		return "'" + t.s + "'"
	}
	return "'" + t.s + "'"
}

// ops are the operators and punctuation, longest first.
var ops = []string{
	"%/%", "+=", "-=", "*=", "/=", ".*=", "./=", "==", "!=", "<=", ">=", "&&", "||", ".*", "./", ".^",
	"{", "}", "(", ")", "[", "]", "<", ">", ",", ";", "=", "~", "?", ":", "!", "+", "-", "*", "/", "%",
	"\\", "^", "'", "|",
}

// lex splits src into tokens.
func lex(file, src string) ([]token, error) {
	var toks []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			adv(1)
			continue
		case strings.HasPrefix(src[i:], "//") || c == '#':
			if strings.HasPrefix(src[i:], "#include") {
				return nil, &Error{file, Pos{line, col}, "#include is not supported: paste the included file"}
			}
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
			continue
		case strings.HasPrefix(src[i:], "/*"):
			p := Pos{line, col}
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, &Error{file, p, "comment /* not closed by */"}
			}
			adv(j + 4)
			continue
		}
		p := Pos{line, col}
		switch {
		case isLetter(c):
			j := i
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j])) {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], p})
			adv(j - i)
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j, real := i, false
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j < len(src) && src[j] == '.' && !(j+1 < len(src) && (src[j+1] == '*' || src[j+1] == '/' || src[j+1] == '^')) {
				real = true
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && isDigit(src[k]) {
					real = true
					j = k
					for j < len(src) && isDigit(src[j]) {
						j++
					}
				}
			}
			if j < len(src) && src[j] == 'i' && !(j+1 < len(src) && (isLetter(src[j+1]) || isDigit(src[j+1]))) {
				return nil, &Error{file, p, "imaginary literals (complex numbers) are not supported"}
			}
			k := tInt
			if real {
				k = tReal
			}
			toks = append(toks, token{k, src[i:j], p})
			adv(j - i)
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				j++
			}
			if j >= len(src) || src[j] != '"' {
				return nil, &Error{file, p, "string not closed by \" on its line"}
			}
			toks = append(toks, token{tString, src[i+1 : j], p})
			adv(j + 1 - i)
		default:
			found := false
			for _, o := range ops {
				if strings.HasPrefix(src[i:], o) {
					toks = append(toks, token{tOp, o, p})
					adv(len(o))
					found = true
					break
				}
			}
			if !found {
				r, _ := utf8.DecodeRuneInString(src[i:])
				if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
					return nil, &Error{file, p, fmt.Sprintf("unexpected character %q: identifiers are ASCII letters, digits and underscores, as in Stan", r)}
				}
				return nil, &Error{file, p, fmt.Sprintf("unexpected character %q", r)}
			}
		}
	}
	toks = append(toks, token{tEOF, "", Pos{line, col}})
	return toks, nil
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
