//go:build !e2e

package e2e

import (
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// TestBuiltWithoutTheE2ETag stands for the e2e tests when they are not
// built: it says how to run them, and fails in CI, which is meant to.
func TestBuiltWithoutTheE2ETag(t *testing.T) {
	testsupport.RequireOrSkip(t, false, "the e2e tests build only with -tags e2e (test.sh passes it): go test -tags e2e ./e2e/")
}
