// Package lines trims command output for one-line errors: its first line,
// or its last few; and a log file's last lines for an error message.
package lines

import (
	"os"
	"regexp"
	"strings"
)

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

// Indent is s with each line indented by two spaces, as an excerpt
// under an error line (backend.TailLines takes the indentation off).
func Indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// LogTail is the last n lines of the file at path, indented (Indent), or
// "(no log)" when it cannot be read.
func LogTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	return Indent(Last(string(data), n))
}

// diagnostic matches a compiler's error: Go's file.go:line:col: message,
// or gcc's file:line:col: error: message. Other file:line: lines are not
// errors (autotools' "configure.ac:39: installing …", gcc's warnings).
var diagnostic = regexp.MustCompile(`^(\S+\.go:\d+(:\d+)?: |[^\s:]+:\d+(:\d+)?: (fatal )?error: )`)

// FirstDiagnostic is the first line of a build's output that is a
// compiler error.
func FirstDiagnostic(s string) (string, bool) {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); diagnostic.MatchString(l) {
			return l, true
		}
	}
	return "", false
}
