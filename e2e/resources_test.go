//go:build e2e

package e2e

// End-to-end tests of the per-actor resource samples (resources.jsonl) on
// the compose backend: every actor sampled, syncs counted for the LND
// nodes, one container's CPU cross-checked against its cgroup read here
// directly, and Storage=disk vs tmpfs measured in one run.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// loadSamples reads the run's resources.jsonl.
func loadSamples(t *testing.T, dir string) []usage.Sample {
	t.Helper()
	ss, err := usage.Load(filepath.Join(dir, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// caseUse sums, per case, the measured payments and each actor's syncs
// and CPU over its measured iterations (the sampler writes a sample at each
// iteration's start and end, so the intervals cover them exactly).
type caseUse struct {
	payments int
	syncs    map[string]int64
	cpu      map[string]float64
}

func caseUseByCase(t *testing.T, dir string) map[string]*caseUse {
	t.Helper()
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*caseUse{}
	get := func(c string) *caseUse {
		if out[c] == nil {
			out[c] = &caseUse{syncs: map[string]int64{}, cpu: map[string]float64{}}
		}
		return out[c]
	}
	for _, r := range recs {
		if r.Phase == result.Measure && r.Status == result.Succeeded {
			get(r.Case).payments++
		}
	}
	// As the report: the interval between two consecutive samples of an
	// actor belongs to the later sample's iteration.
	prev := map[string]usage.Sample{}
	for _, s := range loadSamples(t, dir) {
		p, ok := prev[s.Network+"/"+s.Actor]
		prev[s.Network+"/"+s.Actor] = s
		if !ok || s.Phase != result.Measure || p.Case != s.Case {
			continue
		}
		m := get(s.Case)
		m.syncs[s.Actor] += s.Syncs - p.Syncs
		m.cpu[s.Actor] += s.CPUSeconds() - p.CPUSeconds()
	}
	return out
}

// directCgroupCPU reads a container's CPU seconds from its cgroup, as the
// kernel keeps them (v1 cpuacct.usage or v2 cpu.stat), independently of
// package collect.
func directCgroupCPU(t *testing.T, containerID string) float64 {
	t.Helper()
	out, err := exec.Command("docker", "inspect", "--format", "{{.State.Pid}}", containerID).Output()
	if err != nil {
		t.Fatal(err)
	}
	cg, err := os.ReadFile("/proc/" + strings.TrimSpace(string(out)) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(cg), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if strings.Contains(","+f[1]+",", ",cpuacct,") {
			data, err := os.ReadFile(filepath.Join("/sys/fs/cgroup/cpuacct", f[2], "cpuacct.usage"))
			if err != nil {
				t.Fatal(err)
			}
			ns, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			return float64(ns) / 1e9
		}
	}
	for _, line := range strings.Split(string(cg), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			data, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", p, "cpu.stat"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(l, "usage_usec "); ok {
					us, _ := strconv.ParseInt(v, 10, 64)
					return float64(us) / 1e6
				}
			}
		}
	}
	t.Fatalf("no cpu cgroup for container %s in:\n%s", containerID, cg)
	return 0
}

// TestComposeResourceSamples runs AlicePaysBob at a small concurrency with
// node data dirs on disk and on tmpfs in one run (two networks) and checks
// resources.jsonl: samples for every actor (alice, bob, btcd, the harness)
// tagged with the case, syncs counted and above zero for both LND nodes over
// the measured iterations of both storage kinds, data dir sizes at the case's
// start and end, one disk probe per storage kind in the summary, the tmpfs
// network's data dirs on a tmpfs and gone afterwards, and bob's CPU total as
// read here from his cgroup between two of his samples. (It was two tests,
// disk alone and disk + tmpfs: the second's disk network showed everything
// the first did, so one run of two networks covers both.)
func TestComposeResourceSamples(t *testing.T) {
	bin := composeSetup(t)
	r := startCompose(t, bin, composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: AlicePaysBob
params: {Storage: [disk, tmpfs], Concurrency: [4], TotalPayments: [60]}
job: {WarmupCount: 1, IterationCount: 2}
`, composeUniqueName("CmpResources"))))
	dir := r.waitPayments(70, 5*time.Minute) // into the disk network's measured iterations
	bob := composeServiceContainer(t, r.runID(), "bob")
	at := time.Now()
	direct := directCgroupCPU(t, bob)
	// The sampler writes bob every second: wait for one after the reading.
	var before, after *usage.Sample
	if !poll(30*time.Second, 200*time.Millisecond, func() bool {
		before, after = nil, nil
		for _, s := range loadSamples(t, dir) {
			if s.Actor != "bob" {
				continue
			}
			if !s.Time.After(at) {
				before = &s
			} else if after == nil {
				after = &s
			}
		}
		return before != nil && after != nil
	}) {
		t.Fatalf("no bob samples around %v", at)
	}
	// Monotonic counters: the direct reading lies between the two samples
	// (1% slack for the reading's own timing).
	if direct < before.CPUSeconds()*0.99 || direct > after.CPUSeconds()*1.01 {
		t.Errorf("bob CPU read from the cgroup %.3f s at %v; samples %.3f s at %v and %.3f s at %v", direct, at.Format("15:04:05.000"),
			before.CPUSeconds(), before.Time.Format("15:04:05.000"), after.CPUSeconds(), after.Time.Format("15:04:05.000"))
	}
	t.Logf("bob CPU: cgroup %.3f s, samples %.3f / %.3f s", direct, before.CPUSeconds(), after.CPUSeconds())
	// The harness's calls go to bob's compose-network address, not through
	// docker-proxy: read from the kernel's socket table, not from lnbench.
	bobIP := strings.Fields(dockerOut(t, "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", bob))[0]
	if peers := tcpPeersOf(t, r.cmd.Process.Pid); !slices.Contains(peers, bobIP+":10009") {
		t.Errorf("the harness (pid %d) has no connection to bob's %s:10009; its TCP peers: %v", r.cmd.Process.Pid, bobIP, peers)
	}
	r.finish(8 * time.Minute)

	samples := loadSamples(t, dir)
	seen := map[string]usage.Sample{}
	dataDirs := map[string]int{}
	for _, s := range samples {
		if s.Case == "" || s.Network == "" {
			t.Fatalf("untagged sample %+v", s)
		}
		seen[s.Actor] = s
		if s.DataBytes > 0 {
			dataDirs[s.Case+" "+s.Actor]++
		}
	}
	for actor, src := range map[string]string{"alice": usage.SourceCgroupV1, "bob": usage.SourceCgroupV1, "btcd": usage.SourceCgroupV1, "harness": usage.SourceProc} {
		s, ok := seen[actor]
		if !ok {
			t.Errorf("no samples of %s; actors sampled: %v", actor, keys(seen))
			continue
		}
		if !strings.HasPrefix(s.Source, "cgroup") && src != usage.SourceProc || s.CPUSeconds() <= 0 || s.RSSBytes <= 0 {
			t.Errorf("%s: last sample %+v", actor, s)
		}
		if !s.SyncsCounted {
			t.Errorf("%s: syncs not counted", actor)
		}
	}
	// Written bytes: read (the cgroup, else the processes' /proc/<pid>/io),
	// never a silent zero, and above zero for the disk network's nodes.
	written := map[string]int64{}
	first := map[string]usage.Sample{}
	for _, s := range samples {
		if s.Actor == "alice" || s.Actor == "bob" {
			if s.IOSource == "" || s.IOSource == usage.IONone {
				t.Errorf("%s: no block-I/O source in %+v", s.Actor, s)
			}
			if strings.Contains(s.Case, "Storage=disk") {
				if _, ok := first[s.Actor]; !ok {
					first[s.Actor] = s
				}
				written[s.Actor] = s.WriteBytes - first[s.Actor].WriteBytes
			}
		}
	}
	for _, n := range []string{"alice", "bob"} {
		if written[n] <= 0 {
			t.Errorf("Storage=disk %s: %d bytes written over the case (source %s)", n, written[n], first[n].IOSource)
		}
		t.Logf("Storage=disk %s: %d bytes written over the case (source %s)", n, written[n], first[n].IOSource)
	}
	// docker-proxy: still sampled as its own actor, though the harness's
	// calls no longer pass through it (checked on the socket table above).
	if p, ok := seen[backend.ProxyActor]; !ok || p.Role != usage.RoleProxy {
		t.Errorf("docker-proxy: %+v (found %v)", p, ok)
	} else {
		t.Logf("docker-proxy: %.3f CPU s", p.CPUSeconds())
	}
	byCase := caseUseByCase(t, dir)
	for c := range byCase {
		for _, n := range []string{"alice", "bob", "btcd"} {
			if dataDirs[c+" "+n] < 2 {
				t.Errorf("%s %s: %d samples with the data dir size, want the case's start and end", c, n, dataDirs[c+" "+n])
			}
		}
	}
	for c, m := range byCase {
		if m.payments == 0 {
			t.Fatalf("%s: no measured payments", c)
		}
		for _, n := range []string{"alice", "bob"} {
			if m.syncs[n] <= 0 || m.cpu[n] <= 0 {
				t.Errorf("%s %s: %d syncs, %.3f CPU s over the measured iterations", c, n, m.syncs[n], m.cpu[n])
			}
			t.Logf("%s %s: %.2f syncs/payment, %.2f CPU ms/payment (%d payments)", c, n,
				float64(m.syncs[n])/float64(m.payments), 1000*m.cpu[n]/float64(m.payments), m.payments)
		}
		t.Logf("%s harness: %.2f CPU ms/payment", c, 1000*m.cpu["harness"]/float64(m.payments))
	}
	for _, st := range []string{"disk", "tmpfs"} {
		var m *caseUse
		for c, mm := range byCase {
			if strings.Contains(c, "Storage="+st) {
				m = mm
			}
		}
		if m == nil || m.payments == 0 {
			t.Fatalf("Storage=%s: nothing measured (cases %v)", st, keys(byCase))
		}
		for _, n := range []string{"alice", "bob"} {
			if m.syncs[n] <= 0 {
				t.Errorf("Storage=%s %s: %d syncs", st, n, m.syncs[n])
			}
			t.Logf("Storage=%s %s: %.2f syncs/payment, %.2f CPU ms/payment (%d payments)", st, n,
				float64(m.syncs[n])/float64(m.payments), 1000*m.cpu[n]/float64(m.payments), m.payments)
		}
	}
	probes := summaryProbes(t, dir)
	fs := map[string]string{}
	for _, p := range probes {
		fs[p.Storage] = p.Filesystem
		t.Logf("probe %s: %.0f syncs/s on %s", p.Storage, p.SyncsPerSecond, p.Filesystem)
	}
	if len(probes) != 2 || fs["tmpfs"] != "tmpfs" || fs["disk"] == "" || fs["disk"] == "tmpfs" {
		t.Errorf("probes %+v", probes)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "docker-compose*.yml"))
	var tmpfsMounts int
	for _, f := range files {
		data, _ := os.ReadFile(f)
		tmpfsMounts += strings.Count(string(data), "/dev/shm/lnbench/"+r.runID()+"/")
	}
	if tmpfsMounts < 3 {
		t.Errorf("%d bind mounts from /dev/shm in %v; want the tmpfs network's btcd, alice and bob", tmpfsMounts, files)
	}
	if _, err := os.Stat(filepath.Join("/dev/shm/lnbench", r.runID())); !os.IsNotExist(err) {
		t.Errorf("tmpfs data dirs left behind: %v", err)
	}
	r.checkNothingLeft()
}

func summaryProbes(t *testing.T, dir string) []usage.DiskProbe {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Probes []usage.DiskProbe `json:"disk_probes"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Probes
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
