// Package fileutil holds the one file copy that backends (log collection)
// and image builds (build contexts) share.
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
