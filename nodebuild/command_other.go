//go:build !unix

package nodebuild

import "os/exec"

// Without process groups only the direct child is killed (exec's default).
func killGroupOnCancel(*exec.Cmd) {}
