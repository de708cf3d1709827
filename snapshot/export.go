package snapshot

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Export writes key's snapshot as one gzipped tar: its manifest first, then
// its folders, so that another machine's lnbench can import it.
func (c Cache) Export(w io.Writer, key string) error {
	if _, err := c.Find(key); err != nil {
		return err
	}
	root := filepath.Join(c.Dir, key)
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	add := func(p string, d fs.DirEntry) error {
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		} else if !info.IsDir() && !info.Mode().IsRegular() {
			return nil
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	}
	m := filepath.Join(root, manifestFile)
	info, err := os.Lstat(m)
	if err != nil {
		return err
	}
	if err := add(m, fs.FileInfoToDirEntry(info)); err != nil {
		return err
	}
	err = filepath.WalkDir(filepath.Join(root, dataDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return add(p, d)
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	return err
}

// Import reads an exported snapshot into the cache and returns its
// manifest. A file that is not one, or whose manifest does not match its
// key or format, is refused and leaves nothing behind; a key already in
// the cache is kept as it is.
func (c Cache) Import(r io.Reader) (Manifest, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return Manifest{}, fmt.Errorf("not an lnbench snapshot (gzip: %v)", err)
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return Manifest{}, err
	}
	tmp, err := os.MkdirTemp(c.Dir, tmpPrefix+"import-")
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(tmp)
	tr := tar.NewReader(zr)
	for first := true; ; first = false {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("not an lnbench snapshot (tar: %v)", err)
		}
		name := path.Clean(hdr.Name)
		if first && name != manifestFile {
			return Manifest{}, fmt.Errorf("not an lnbench snapshot: it begins with %q, not %s", hdr.Name, manifestFile)
		}
		if name != manifestFile && name != dataDir && !strings.HasPrefix(name, dataDir+"/") {
			return Manifest{}, fmt.Errorf("snapshot file holds %q, outside %s/", hdr.Name, dataDir)
		}
		target := filepath.Join(tmp, filepath.FromSlash(name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, fs.FileMode(hdr.Mode).Perm()|0o700)
		case tar.TypeSymlink:
			err = os.Symlink(hdr.Linkname, target)
		case tar.TypeReg:
			err = writeFrom(tr, target, fs.FileMode(hdr.Mode).Perm())
		default:
			err = fmt.Errorf("snapshot file holds %q of type %q", hdr.Name, hdr.Typeflag)
		}
		if err != nil {
			return Manifest{}, err
		}
	}
	m, err := Cache{Dir: filepath.Dir(tmp)}.Find(filepath.Base(tmp))
	if err != nil {
		return Manifest{}, fmt.Errorf("not an lnbench snapshot: %v", err)
	}
	if m.Format != Format {
		return Manifest{}, fmt.Errorf("snapshot %s has format %d, this lnbench reads %d", m.Key, m.Format, Format)
	}
	if Key(m.Facts) != m.Key {
		return Manifest{}, fmt.Errorf("snapshot %s: its facts give key %s; the file was changed after it was made", m.Key, Key(m.Facts))
	}
	for actor, want := range m.Folders {
		if got, err := treeBytes(filepath.Join(tmp, dataDir, actor)); err != nil || got != want {
			return Manifest{}, fmt.Errorf("snapshot %s: %s holds %d bytes, its manifest says %d (%v)", m.Key, actor, got, want, err)
		}
	}
	if old, err := c.Find(m.Key); err == nil {
		return old, nil
	}
	if err := os.Rename(tmp, filepath.Join(c.Dir, m.Key)); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

func writeFrom(r io.Reader, dst string, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// treeBytes is the size of a folder's regular files.
func treeBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}
