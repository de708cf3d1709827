package composefile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

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
			path := filepath.Join("testdata", c.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./composefile -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the generated file; run go test ./composefile -update and review the diff", path)
			}
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
		if len(svc.Volumes) != 0 || svc.User != "" || len(svc.DependsOn) != 0 {
			t.Errorf("%s: volumes %v user %q depends_on %v", name, svc.Volumes, svc.User, svc.DependsOn)
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
	if _, err := s.BuildStack(st); err == nil || !strings.Contains(err.Error(), "sampler") {
		t.Errorf("sampler: %v", err)
	}
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
