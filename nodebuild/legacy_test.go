package nodebuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// legacyKey is the key formula of lnbench before flavours and source trees.
func legacyKey(t *testing.T, spec Spec, toolchain string) string {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(spec.ModuleDir, f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\n%d\n", f, len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "tags=%s go=%s %s/%s cgo=0", strings.Join(Tags, ","), toolchain, runtime.GOOS, runtime.GOARCH)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
