package imagebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/lnbench/lnbench/dbserver/postgres"
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
	if err := dockerBuild(ctx, tag, dir, "--build-arg", "BASE="+base.Tag); err != nil {
		return Result{}, err
	}
	r := built(ctx, tag, start)
	fmt.Fprintf(opts.log(), "built %s in %.1fs\n", tag, r.Duration.Seconds())
	return r, nil
}
