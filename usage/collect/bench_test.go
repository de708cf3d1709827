package collect

import (
	"context"
	"os"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// BenchmarkSampleHost reads the host's real counters: a container-like
// actor (the root cgroup's files, as many as a container's) and the
// harness from /proc: the sampler's cost per actor and second.
func BenchmarkSampleHost(b *testing.B) {
	actors := []backend.Actor{{Name: "root", CgroupPath: "/", PID: os.Getpid()}, {Name: "harness", Role: usage.RoleHarness, PID: os.Getpid()}}
	if _, err := Default.Snapshot(context.Background(), actors); err != nil {
		b.Skip(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Default.Snapshot(context.Background(), actors)
	}
}
