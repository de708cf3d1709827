// Package lines trims command output for one-line errors: its first line,
// or its last few.
package lines

import "strings"

// First is s's first non-blank-trimmed line.
func First(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Last is s's last n lines.
func Last(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
