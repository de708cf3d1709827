package imagebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ToolRepo names the images that carry lnbench on top of a node image.
const ToolRepo = "lnbench/tool"

// EnsureTool builds, unless it exists, the image FROM the node image from
// with the static lnbench binary tool at /usr/local/bin/lnbench: where
// nothing can be bind-mounted (swarm engines on other machines), the
// sampler sidecar and sample-loop.sh find lnbench in the image. The tag is
// a hash of the node image's ID and the binary, so a rebuilt lnbench is a
// new image and an unchanged one is reused.
func EnsureTool(ctx context.Context, from, tool string, log io.Writer) (Result, error) {
	start := time.Now()
	if log == nil {
		log = io.Discard
	}
	fromID, ok := ImageID(ctx, from)
	if !ok {
		return Result{}, fmt.Errorf("image %s is not on the local Docker engine (lnbench images builds it)", from)
	}
	f, err := os.Open(tool)
	if err != nil {
		return Result{}, fmt.Errorf("lnbench for the images: %v", err)
	}
	h := sha256.New()
	h.Write([]byte(fromID + "\n"))
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return Result{}, fmt.Errorf("lnbench for the images: %v", err)
	}
	tag := ToolRepo + ":" + hex.EncodeToString(h.Sum(nil))[:16]
	if id, ok := ImageID(ctx, tag); ok {
		return Result{Tag: tag, ID: id, Duration: time.Since(start)}, nil
	}
	dir, err := os.MkdirTemp("", "lnbench-tool-image-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	if err := linkOrCopy(tool, filepath.Join(dir, "lnbench")); err != nil {
		return Result{}, fmt.Errorf("image context: %v", err)
	}
	dockerfile := "FROM " + from + "\nCOPY lnbench /usr/local/bin/lnbench\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return Result{}, err
	}
	if err := dockerBuild(ctx, tag, dir, "--label", "lnbench.tool-from="+from); err != nil {
		return Result{}, err
	}
	r := built(ctx, tag, start)
	fmt.Fprintf(log, "built %s (%s + lnbench) in %.1fs\n", tag, from, r.Duration.Seconds())
	return r, nil
}
