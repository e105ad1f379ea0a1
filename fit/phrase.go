package fit

import "strings"

// Setting is the name of a setting of a run (a field of Config), as
// fit's messages write it: "iters", "target-ess", "sampler".
//
// fit's errors, notes and warnings name the settings they concern in
// braces, {name} ("{thin} 0: expected at least 1"), never as a command line
// spells them: the front end phrases them for its users with Phrase
// (langevin's command writes each as its flag, the name after two dashes).
type Setting string

// Phrase returns s with every setting it names, {name}, replaced by
// name(setting). Braces around anything but a setting name — a lower-case
// letter, then lower-case letters, digits and dashes — are left as they are.
func Phrase(s string, name func(Setting) string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var sb strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		n := SettingAt(s[i:])
		if n <= 0 {
			sb.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		sb.WriteString(s[:i])
		sb.WriteString(name(Setting(s[i+1 : i+n-1])))
		s = s[i+n:]
	}
	sb.WriteString(s)
	return sb.String()
}

// SettingAt returns the length of the setting name in braces, {name}, that
// s begins with, −1 when s does not begin with one, and 0 when s could be
// the start of one that it cuts short ("{target-e"): what a writer that
// phrases its output a piece at a time holds back until the next piece.
func SettingAt(s string) int {
	if len(s) == 0 || s[0] != '{' {
		return -1
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
		case i > 1 && (c >= '0' && c <= '9' || c == '-'):
		case c == '}' && i > 1:
			return i + 1
		default:
			return -1
		}
		if i > maxSettingName {
			return -1
		}
	}
	return 0
}

// maxSettingName bounds the length of a setting's name.
const maxSettingName = 40
