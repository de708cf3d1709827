package buildset

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/nodebuild"
)

// BuiltOrCached says whether an image was built or found.
func BuiltOrCached(r imagebuild.Result) string {
	if r.Built {
		return "built"
	}
	return "cached"
}

// ImageOptions are the image options of impl's builds: its Dockerfile is
// images/<impl>/Dockerfile of imagesDir.
func ImageOptions(imagesDir, impl string, log io.Writer) imagebuild.Options {
	return imagebuild.Options{Log: log, Dockerfile: imagebuild.DockerfilePath(imagesDir, impl)}
}

// ensureImagesTimed builds the base and node images when missing, with the
// Dockerfile of imagesDir, and says in one line how long it took.
func ensureImagesTimed(ctx context.Context, imagesDir string, bins nodebuild.Result, log io.Writer) (string, error) {
	start := time.Now()
	base, node, err := imagebuild.Ensure(ctx, ImageOptions(imagesDir, bins.Manifest.Implementation, log), bins)
	if err != nil {
		return "", fmt.Errorf("compose backend images: %w", err)
	}
	fmt.Fprintf(log, "images: %s (%s), %s (%s) ready in %.1fs\n", base.Tag, BuiltOrCached(base), node.Tag, BuiltOrCached(node), time.Since(start).Seconds())
	return node.Tag, nil
}
