// Package fileutil holds the one file copy that backends (log collection)
// and image builds (build contexts) share, and the backends' check that a
// node has written a file.
package fileutil

import (
	"io"
	"io/fs"
	"os"
)

// Copy copies src to dst, creating or truncating dst with perm.
func Copy(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// NonEmpty reports whether path is there with some bytes in it: a
// credential file a node writes is usable only once it is.
func NonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}
