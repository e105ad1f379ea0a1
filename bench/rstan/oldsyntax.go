package main

import (
	"strings"
	"unicode"
)

// oldSyntax rewrites the array declarations of Stan ≥ 2.26 into the syntax
// rstan 2.21's parser reads: `array[N, M] real<lower=0> x` becomes
// `real<lower=0> x[N, M]`, and an unsized `array[,] real` (an argument or
// return type) becomes `real[,]`. The rest of the program is left as it is.
func oldSyntax(src string) string {
	var out strings.Builder
	i := 0
	for {
		k := indexWord(src[i:], "array")
		if k < 0 {
			out.WriteString(src[i:])
			return out.String()
		}
		k += i
		j := skipSpace(src, k+len("array"))
		if j >= len(src) || src[j] != '[' {
			out.WriteString(src[i : k+len("array")])
			i = k + len("array")
			continue
		}
		dimsEnd := balanced(src, j, '[', ']')
		dims := src[j+1 : dimsEnd]
		t0 := skipSpace(src, dimsEnd+1)
		t1 := t0
		for t1 < len(src) && (src[t1] == '_' || unicode.IsLetter(rune(src[t1])) || unicode.IsDigit(rune(src[t1]))) {
			t1++
		}
		if u := skipSpace(src, t1); u < len(src) && src[u] == '<' {
			t1 = balanced(src, u, '<', '>') + 1
		}
		if u := skipSpace(src, t1); u < len(src) && src[u] == '[' {
			t1 = balanced(src, u, '[', ']') + 1
		}
		typ := src[t0:t1]
		out.WriteString(src[i:k])
		if strings.Trim(dims, " ,") == "" { // unsized: a type
			out.WriteString(typ + "[" + dims + "]")
			i = t1
			continue
		}
		n0 := skipSpace(src, t1)
		n1 := n0
		for n1 < len(src) && (src[n1] == '_' || unicode.IsLetter(rune(src[n1])) || unicode.IsDigit(rune(src[n1]))) {
			n1++
		}
		out.WriteString(typ + " " + src[n0:n1] + "[" + dims + "]")
		i = n1
	}
}

// indexWord is the index of the first occurrence of w in s as a whole word.
func indexWord(s, w string) int {
	for off := 0; ; {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return -1
		}
		k += off
		before := k == 0 || !isIdent(s[k-1])
		after := k+len(w) == len(s) || !isIdent(s[k+len(w)])
		if before && after {
			return k
		}
		off = k + len(w)
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// balanced returns the index of the bracket that closes the one at s[i].
func balanced(s string, i int, open, close byte) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(s) - 1
}
