package imagebuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/internal/lines"
)

// PostgresRepo names the PostgreSQL server images (db=postgres on compose).
const PostgresRepo = "lnbench/postgres"

// EnsurePostgres builds, unless it exists, the PostgreSQL server image
// FROM the base image (made first if missing): Debian's postgresql and
// lnbench's entrypoint. The tag is a hash of the base tag and the recipe.
func EnsurePostgres(ctx context.Context, opts Options) (Result, error) {
	start := time.Now()
	base, err := EnsureBase(ctx, opts)
	if err != nil {
		return Result{}, err
	}
	files, err := postgres.ImageFiles()
	if err != nil {
		return Result{}, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "base=%s\n", base.Tag)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s %d\n", n, len(files[n]))
		h.Write(files[n])
	}
	tag := PostgresRepo + ":" + hex.EncodeToString(h.Sum(nil))[:16]
	if id, ok := ImageID(ctx, tag); ok {
		return Result{Tag: tag, ID: id, Duration: time.Since(start)}, nil
	}
	dir, err := os.MkdirTemp("", "lnbench-postgres-image-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o755); err != nil {
			return Result{}, err
		}
	}
	fmt.Fprintf(opts.log(), "building %s FROM %s (Debian's postgresql)\n", tag, base.Tag)
	cmd := exec.CommandContext(ctx, "docker", "build", "--quiet", "--label", Label+"=1", "--build-arg", "BASE="+base.Tag, "-t", tag, dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("docker build %s failed: %v:\n%s", tag, err, lines.Indent(lines.Last(out.String(), 10)))
	}
	d := time.Since(start)
	fmt.Fprintf(opts.log(), "built %s in %.1fs\n", tag, d.Seconds())
	id, _ := ImageID(ctx, tag)
	return Result{Tag: tag, ID: id, Built: true, Duration: d}, nil
}
