package imagebuild

import (
	"context"
	"os/exec"
	"strings"
)

// BuildKeyLabel names the build an image packs (its nodebuild key).
const BuildKeyLabel = "lnbench.build-key"

// ImagesOf lists the node images of one build (repository:tag), for
// `lnbench build --list`; nil when there are none or no engine answers.
func ImagesOf(ctx context.Context, key string) []string {
	out, err := exec.CommandContext(ctx, "docker", "image", "ls", "--filter", "label="+BuildKeyLabel+"="+key,
		"--format", "{{.Repository}}:{{.Tag}}").Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// RemoveImagesOf removes the node images of a pruned build (and the tool
// images made FROM them go with them only if unused: docker refuses
// otherwise, which is reported).
func RemoveImagesOf(ctx context.Context, key string) ([]string, error) {
	tags := ImagesOf(ctx, key)
	if len(tags) == 0 {
		return nil, nil
	}
	if out, err := exec.CommandContext(ctx, "docker", append([]string{"image", "rm"}, tags...)...).CombinedOutput(); err != nil {
		return nil, &removeError{tags: tags, out: strings.TrimSpace(string(out))}
	}
	return tags, nil
}

type removeError struct {
	tags []string
	out  string
}

func (e *removeError) Error() string {
	return "docker image rm " + strings.Join(e.tags, " ") + ": " + e.out
}
