package composefile

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/topology"
)

func stackFor(s Spec) Stack {
	st := Stack{Placement: map[string]string{ChainService: "lnbe-1"}, ChainCert: "/tmp/lnbench/run/launch1/btcd/rpc.cert", ChainKey: "/tmp/lnbench/run/launch1/btcd/rpc.key"}
	for i, n := range s.Nodes {
		st.Placement[n.Name] = []string{"lnbe-1", "lnbe-2", "lnbe-3"}[i%3]
	}
	return st
}

func TestStackGolden(t *testing.T) {
	cases := []struct {
		file string
		spec func(t *testing.T) (Spec, Stack)
	}{
		{"stack-alice-carol1-bob.yml", func(t *testing.T) (Spec, Stack) {
			s := specFor(t, topology.AlicePaysBobViaCarol(1))
			return s, stackFor(s)
		}},
		{"stack-alice-carol1-bob-sampler.yml", func(t *testing.T) (Spec, Stack) {
			s := specFor(t, topology.AlicePaysBobViaCarol(1))
			s.Pprof, s.Sampler, s.SamplerArgs = true, true, []string{"--mode", "periodic", "--every", "300s", "--window", "60s"}
			return s, stackFor(s)
		}},
		{"stack-alice-pays-bob-limits-partial.yml", func(t *testing.T) (Spec, Stack) {
			s := specFor(t, topology.AlicePaysBob())
			s.Network = "launch1/Concurrency=5"
			s.DefaultLimits = Limits{CPUs: 0.5, Memory: "512m"}
			s.Limits = map[string]Limits{"btcd": {CPUs: 1}}
			st := stackFor(s)
			st.Services = []string{"btcd", "alice"}
			return s, st
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, st := c.spec(t)
			got, err := GenerateStack(s, st)
			if err != nil {
				t.Fatal(err)
			}
			testsupport.Golden(t, filepath.Join("testdata", c.file), got)
		})
	}
}

// TestStackShape checks the swarm rules on the parsed file: every service
// pinned, dnsrr, never restarted, labelled, host-mode ports only, no bind
// mounts, an attachable overlay network.
func TestStackShape(t *testing.T) {
	s := specFor(t, topology.AlicePaysBobViaCarol(1))
	st := stackFor(s)
	data, err := GenerateStack(s, st)
	if err != nil {
		t.Fatal(err)
	}
	var f File
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != StackVersion {
		t.Errorf("version %q", f.Version)
	}
	if n := f.Networks[NetworkName]; n.Driver != "overlay" || !n.Attachable || n.Labels["lnbench.run"] != s.RunID {
		t.Errorf("network %+v", n)
	}
	if len(f.Services) != 4 {
		t.Fatalf("services %d, want 4", len(f.Services))
	}
	for name, svc := range f.Services {
		d := svc.Deploy
		if d == nil || d.EndpointMode != "dnsrr" || d.RestartPolicy == nil || d.RestartPolicy.Condition != "none" {
			t.Errorf("%s: deploy %+v", name, d)
			continue
		}
		if d.Placement == nil || len(d.Placement.Constraints) != 1 || d.Placement.Constraints[0] != "node.hostname == "+st.Placement[name] {
			t.Errorf("%s: placement %+v", name, d.Placement)
		}
		if d.Labels["lnbench.run"] != s.RunID || svc.Labels["lnbench.run"] != s.RunID {
			t.Errorf("%s: labels %v / %v", name, d.Labels, svc.Labels)
		}
		if svc.User != "" || len(svc.DependsOn) != 0 {
			t.Errorf("%s: user %q depends_on %v", name, svc.User, svc.DependsOn)
		}
		// The compose hardening, as far as stack deploy carries it.
		if len(svc.CapDrop) != 1 || svc.CapDrop[0] != "ALL" || svc.ReadOnly != (name != "btcd") || len(svc.SecurityOpt) != 0 || len(svc.Tmpfs) != 0 {
			t.Errorf("%s: cap_drop %v read_only %v security_opt %v tmpfs %v", name, svc.CapDrop, svc.ReadOnly, svc.SecurityOpt, svc.Tmpfs)
		}
		// No bind mount: named volumes labelled with the run, and /tmp a tmpfs.
		targets := map[string]string{}
		for _, m := range svc.Volumes {
			targets[m.Target] = m.Type
			if m.Type == "bind" {
				t.Errorf("%s: bind mount %+v", name, m)
			}
			if m.Type == "volume" && f.Volumes[m.Source].Labels["lnbench.run"] != s.RunID {
				t.Errorf("%s: volume %s is not labelled with the run: %+v", name, m.Source, f.Volumes[m.Source])
			}
		}
		if targets["/data"] != "volume" || targets["/tmp"] != "tmpfs" || (targets["/artifacts"] != "volume") != (name == "btcd") {
			t.Errorf("%s: mounts %v", name, targets)
		}
		if len(svc.Ports) != 1 || svc.Ports[0].Long.Mode != "host" || svc.Ports[0].Long.Published != 0 || svc.Ports[0].Short != "" {
			t.Errorf("%s: ports %+v", name, svc.Ports)
		}
	}
	if f.Services["btcd"].Secrets[0].Source != ChainKeySecret || f.Secrets[ChainKeySecret].File != st.ChainKey {
		t.Errorf("btcd key secret: %+v %+v", f.Services["btcd"].Secrets, f.Secrets)
	}
	if !strings.Contains(strings.Join(f.Services["alice"].Command, " "), "--btcd.rpccert=/btcd/rpc.cert") || f.Services["alice"].Configs[0].Target != "/btcd/rpc.cert" {
		t.Errorf("alice does not get btcd's cert: %v %+v", f.Services["alice"].Command, f.Services["alice"].Configs)
	}
}

func TestStackRefusals(t *testing.T) {
	s := specFor(t, topology.AlicePaysBob())
	st := stackFor(s)
	delete(st.Placement, "bob")
	if _, err := s.BuildStack(st); err == nil || !strings.Contains(err.Error(), "bob has no swarm node") {
		t.Errorf("unplaced service: %v", err)
	}
	st = stackFor(s)
	s.Pprof, s.Sampler, s.Tool, s.Artifacts = true, true, "/x/lnbench", "/x/art"
	if _, err := s.BuildStack(st); err == nil || !strings.Contains(err.Error(), "nothing is bind-mounted") {
		t.Errorf("host mounts: %v", err)
	}
	s.Tool, s.Artifacts, s.Pprof = "", "", false
	if _, err := s.BuildStack(st); err == nil || !strings.Contains(err.Error(), "pprof") {
		t.Errorf("sampler without pprof: %v", err)
	}
}

// TestStackSamplers checks one sampler per engine hosting nodes, pinned
// there, profiling exactly that engine's nodes, with its control port
// published in host mode and its windows in a labelled volume.
func TestStackSamplers(t *testing.T) {
	s := specFor(t, topology.AlicePaysBobViaCarol(2)) // alice, bob, carol1, carol2
	st := stackFor(s)
	st.Placement["carol2"] = "lnbe-1"
	s.Pprof, s.Sampler, s.SamplerArgs = true, true, []string{"--mode", "iteration"}
	f, err := s.BuildStack(st)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, n := range s.Nodes {
		e := st.Placement[n.Name]
		want["sampler-"+e] = append(want["sampler-"+e], "--target", n.Name+"=http://"+n.Name+":6060")
	}
	for svc, targets := range want {
		sm, ok := f.Services[svc]
		if !ok {
			t.Errorf("no %s; services %v", svc, keys(f.Services))
			continue
		}
		engine := strings.TrimPrefix(svc, "sampler-")
		if sm.Deploy == nil || sm.Deploy.Placement.Constraints[0] != "node.hostname == "+engine {
			t.Errorf("%s: deploy %+v", svc, sm.Deploy)
		}
		cmd := strings.Join(sm.Command, " ")
		if !strings.Contains(cmd, "--listen 0.0.0.0:7070 --out /artifacts --mode iteration") {
			t.Errorf("%s: command %s", svc, cmd)
		}
		if n := strings.Count(cmd, "--target"); n != len(targets)/2 {
			t.Errorf("%s: %d targets, want %v: %s", svc, n, targets, cmd)
		}
		if len(sm.Ports) != 1 || sm.Ports[0].Long.Target != 7070 || sm.Ports[0].Long.Mode != "host" {
			t.Errorf("%s: ports %+v", svc, sm.Ports)
		}
		if len(sm.Volumes) == 0 || sm.Volumes[0].Target != "/artifacts" || f.Volumes[sm.Volumes[0].Source].Labels["lnbench.run"] != s.RunID {
			t.Errorf("%s: volumes %+v", svc, sm.Volumes)
		}
		if sm.Labels["lnbench.role"] != "sampler" || sm.Labels["lnbench.run"] != s.RunID || !sm.ReadOnly {
			t.Errorf("%s: labels %v read_only %v", svc, sm.Labels, sm.ReadOnly)
		}
	}
	if got := len(StackSamplers(s, st)); got != len(want) {
		t.Errorf("StackSamplers: %d, want %d", got, len(want))
	}
	// A partial file keeps only the named services and their volumes.
	st.Services = []string{"btcd", "alice"}
	f, _ = s.BuildStack(st)
	if len(f.Services) != 2 || len(f.Volumes) != 3 {
		t.Errorf("partial: services %v volumes %v", keys(f.Services), f.Volumes)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestStackName(t *testing.T) {
	long := StackName("20260101T120000Z-AlicePaysBobViaCarolWithAVeryLongName", "launch1/CarolsCount=10")
	if len(long)+len("_carol10") > 63 || !strings.HasPrefix(long, "lnb-20260101t120000z-") {
		t.Errorf("%q", long)
	}
	if StackName("r", "a") == StackName("r", "b") || StackName("r", "") != "lnb-r" {
		t.Errorf("names collide or change: %q %q %q", StackName("r", "a"), StackName("r", "b"), StackName("r", ""))
	}
}

// TestStackFilesPassDockerSchema has the Docker CLI check the golden stack
// files against compose format 3's schema (`docker stack config` needs no
// engine); skipped where the CLI lacks it.
func TestStackFilesPassDockerSchema(t *testing.T) {
	if err := exec.Command("docker", "stack", "config", "--help").Run(); err != nil {
		t.Skip("needs a docker CLI with `docker stack config` (25.0+)")
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "stack-*.yml"))
	if len(files) == 0 {
		t.Fatal("no golden stack files")
	}
	for _, f := range files {
		out, err := exec.Command("docker", "stack", "config", "-c", f).CombinedOutput()
		if err != nil {
			t.Errorf("%s: docker stack config: %v\n%s", f, err, out)
			continue
		}
		if !strings.Contains(string(out), "endpoint_mode: dnsrr") || !strings.Contains(string(out), "node.hostname == lnbe-") {
			t.Errorf("%s: docker stack config dropped the deploy keys:\n%s", f, out)
		}
	}
}
