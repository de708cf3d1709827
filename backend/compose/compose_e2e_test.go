//go:build e2e

package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/internal/dockerapi"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/topology"
)

// needDocker skips when no engine answers (fails in CI, which has one).
func needDocker(t *testing.T) {
	t.Helper()
	err := EngineAnswers(context.Background(), 10*time.Second)
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("no Docker engine: %v", err))
	if _, err := DetectTool(context.Background()); err != nil {
		t.Fatalf("Docker answers but: %v", err)
	}
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// nodeImage builds (or finds) the node binaries and images, as `lnbench
// images` does.
func nodeImage(t *testing.T, ctx context.Context) string {
	t.Helper()
	spec, err := nodebuild.Find(filepath.Join("..", "..", "images"), "lnd", "v0.21.0-beta")
	if err != nil {
		t.Fatal(err)
	}
	bins, err := nodebuild.Ensure(ctx, nodebuild.DefaultCacheDir(), spec, logWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	base, img, err := imagebuild.Ensure(ctx, imagebuild.Options{Log: logWriter{t}, Dockerfile: imagebuild.DockerfilePath(filepath.Join("..", "..", "images"), "lnd")}, bins)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("images %s, %s ready in %v", base.Tag, img.Tag, time.Since(start).Round(time.Millisecond))
	return img.Tag
}

func newTestBackend(t *testing.T, ctx context.Context, img string, topo topology.Topology, mut func(*Options)) *Backend {
	t.Helper()
	runID := fmt.Sprintf("E2E-%s-%d", t.Name(), time.Now().UnixNano())
	opts := Options{NetworkOptions: composefile.NetworkOptions{RunID: runID, Network: "launch1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo.WithDefaults("lnd", "v0.21.0-beta"), NodeImages: map[string]string{"lnd/v0.21.0-beta": img}, StartTimeout: 60 * time.Second}}
	if mut != nil {
		mut(&opts)
	}
	be, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Whatever a failed test left: remove it, then fail if anything stays.
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = be.Teardown(cctx)
		if left, _ := Leftovers(cctx, runID); len(left) > 0 {
			t.Errorf("left behind: %v", left)
			_, _ = Down(cctx, runID)
		}
	})
	return be
}

// TestComposeEndToEnd starts btcd + alice + bob through the backend and
// network.Up, pays invoices, checks loopback-only publishing and labels,
// then tears down and checks nothing labelled is left.
func TestComposeEndToEnd(t *testing.T) {
	needDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	img := nodeImage(t, ctx)
	be := newTestBackend(t, ctx, img, topology.AlicePaysBob(), func(o *Options) {
		o.DefaultLimits = composefile.Limits{CPUs: 1, Memory: "1g"}
	})
	t.Logf("compose: %s, project %s, file %s", be.Tool(), be.Project(), be.File())

	start := time.Now()
	net, err := network.Up(ctx, be, topology.AlicePaysBob().WithDefaults("lnd", "v0.21.0-beta"), network.Options{Drivers: drivers.Builtin(), Log: logWriter{t}})
	if err != nil {
		logs := t.TempDir()
		_ = be.CollectLogs(context.Background(), logs)
		t.Fatalf("network.Up: %v (logs in %s)", err, logs)
	}
	defer net.Close()
	t.Logf("topology ready in %v", time.Since(start).Round(time.Millisecond))

	for i := 0; i < 5; i++ {
		inv, err := net.Nodes["bob"].AddInvoice(ctx, 100, fmt.Sprintf("e2e %d", i))
		if err != nil {
			t.Fatal(err)
		}
		res, err := net.Nodes["alice"].Pay(ctx, node.Payment{PaymentRequest: inv.PaymentRequest, Timeout: 30 * time.Second})
		if err != nil || !res.Succeeded {
			t.Fatalf("payment %d: %v %+v", i, err, res)
		}
	}

	// The harness reaches btcd on its loopback port and each node at the
	// container's own address on the project's network (no docker-proxy
	// in the payments' path: harnessHost).
	if !strings.HasPrefix(net.ChainEP.RPCHost, "127.0.0.1:") {
		t.Errorf("btcd RPC at %s", net.ChainEP.RPCHost)
	}
	for name, ep := range net.Endpoints {
		id, err := be.containerID(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		host, _, _ := strings.Cut(ep.RPCHost, ":")
		if addrs := be.containerAddrs(ctx, id); !slices.Contains(addrs, host) || ep.PeerHost != name+":9735" {
			t.Errorf("%s: rpc %s (container addresses %v) peer %s", name, ep.RPCHost, addrs, ep.PeerHost)
		}
	}
	// Every container of the project: the run label, and port bindings on
	// 127.0.0.1 only (gRPC and btcd RPC), nothing else published.
	ids, err := docker(ctx, "ps", "-aq", "--filter", "label=com.docker.compose.project="+be.Project())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(ids)); n != 3 {
		t.Fatalf("want 3 containers in the project, got %d", n)
	}
	for _, id := range strings.Fields(ids) {
		out, err := docker(ctx, "inspect", id)
		if err != nil {
			t.Fatal(err)
		}
		var info []struct {
			Name       string
			Config     struct{ Labels map[string]string }
			HostConfig struct {
				PortBindings map[string][]struct{ HostIp, HostPort string }
				NanoCpus     int64
				Memory       int64
			}
			NetworkSettings struct {
				Ports map[string][]struct{ HostIp, HostPort string }
			}
		}
		if err := json.Unmarshal([]byte(out), &info); err != nil || len(info) != 1 {
			t.Fatalf("inspect %s: %v", id, err)
		}
		c := info[0]
		if c.Config.Labels[backend.Label] != be.RunID() {
			t.Errorf("%s: label %s=%q, want %q", c.Name, backend.Label, c.Config.Labels[backend.Label], be.RunID())
		}
		if len(c.HostConfig.PortBindings) != 1 {
			t.Errorf("%s: want exactly one published port, got %v", c.Name, c.HostConfig.PortBindings)
		}
		for port, bs := range c.NetworkSettings.Ports {
			for _, b := range bs {
				if b.HostIp != "127.0.0.1" {
					t.Errorf("%s: %s published on %q", c.Name, port, b.HostIp)
				}
			}
		}
		if c.Config.Labels["com.docker.compose.service"] != "btcd" && (c.HostConfig.NanoCpus != 1e9 || c.HostConfig.Memory != 1<<30) {
			t.Errorf("%s: limits not applied: cpus %d memory %d", c.Name, c.HostConfig.NanoCpus, c.HostConfig.Memory)
		}
	}
	nets, err := docker(ctx, "network", "ls", "-q", "--filter", "label=com.docker.compose.project="+be.Project())
	if err != nil || len(strings.Fields(nets)) != 1 {
		t.Fatalf("want one project network, got %q %v", nets, err)
	}
	labelled, _ := docker(ctx, "network", "ls", "-q", "--filter", "label="+backend.Label+"="+be.RunID())
	if strings.TrimSpace(labelled) != strings.TrimSpace(nets) {
		t.Errorf("project network %q lacks the run label (labelled: %q)", nets, labelled)
	}
	// The file on disk is the one that ran.
	if _, err := os.Stat(be.File()); err != nil {
		t.Error(err)
	}

	if err := be.StopNode(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	if err := be.CollectLogs(ctx, logs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"alice/container.log", "alice/lnd.log", "bob/lnd.log", "btcd/container.log", "btcd/btcd.log"} {
		if st, err := os.Stat(filepath.Join(logs, f)); err != nil || st.Size() == 0 {
			t.Errorf("log %s missing or empty: %v", f, err)
		}
	}
	tstart := time.Now()
	if err := be.Teardown(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("teardown in %v", time.Since(tstart).Round(time.Millisecond))
	left, err := Leftovers(context.Background(), be.RunID())
	if err != nil || len(left) > 0 {
		t.Fatalf("after teardown: %v %v", left, err)
	}
	// Bind-mounted files were written as our uid:gid, so they delete.
	if err := os.RemoveAll(be.opts.WorkDir); err != nil {
		t.Errorf("work dir not removable: %v", err)
	}
}

// TestComposeNodeExitIsReported starts a node with a flag lnd rejects and
// expects the container's exit and its log tail instead of a timeout.
func TestComposeNodeExitIsReported(t *testing.T) { nodeExitIsReported(t, "socket") }

// TestComposeNodeExitThroughDialStdio is the same with the engine asked
// through the CLI's dial-stdio, as an engine over tcp or ssh is asked.
func TestComposeNodeExitThroughDialStdio(t *testing.T) { nodeExitIsReported(t, "dial-stdio") }

func nodeExitIsReported(t *testing.T, via string) {
	needDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	img := nodeImage(t, ctx)
	be := newTestBackend(t, ctx, img, topology.AlicePaysBob(), nil)
	if via == "dial-stdio" {
		be.eng.e = dockerapi.NewEngine(dockerapi.CLIHost)
	}
	f, err := btcd.NewFaucet(btcd.Simnet)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := be.StartChain(ctx, backend.ChainSpec{RPCUser: "u", RPCPass: "p", MiningAddr: f.Address()}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = be.StartNode(ctx, backend.NodeSpec{Name: "alice", Implementation: "lnd", Version: "v0.21.0-beta", ExtraArgs: []string{"--no-such-flag"}})
	if err == nil {
		t.Fatal("lnd with an unknown flag started")
	}
	t.Logf("reported: %v", err)
	if !strings.Contains(err.Error(), "alice died: exited with code ") || !strings.Contains(err.Error(), "no-such-flag") {
		t.Fatalf("want the exit and lnd's complaint, got: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("exit noticed after %v", d)
	}
	if _, err := be.StartNode(ctx, backend.NodeSpec{Name: "zed"}); err == nil || !strings.Contains(err.Error(), "not in this network") {
		t.Errorf("unknown node: %v", err)
	}
	if err := be.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPlainComposeUp runs a generated file with the compose tool alone, as a
// person would by hand (`up -d` of every service, depends_on and the btcd
// healthcheck ordering the start), and checks that lnd answers lncli.
func TestPlainComposeUp(t *testing.T) {
	needDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	img := nodeImage(t, ctx)
	tool, _ := DetectTool(ctx)
	frags, err := composefile.LoadFragments(nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := btcd.NewFaucet(btcd.Simnet)
	if err != nil {
		t.Fatal(err)
	}
	work, dir := t.TempDir(), t.TempDir()
	runID := fmt.Sprintf("E2E-plain-%d", time.Now().UnixNano())
	spec := composefile.Spec{RunID: runID, WorkDir: work, User: fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), ChainImage: img,
		Chain: backend.ChainSpec{MiningAddr: f.Address(), RPCUser: "u", RPCPass: "p"}, Fragments: frags,
		Nodes: []composefile.Node{{Name: "alice", Image: img}, {Name: "bob", Image: img}}}
	for _, d := range []string{"btcd", "alice", "bob"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	data, err := composefile.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "docker-compose.yml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	project := composefile.ProjectName(runID, "")
	composeCmd := func(args ...string) (string, error) {
		return run(ctx, tool.Argv[0], append(append(append([]string(nil), tool.Argv[1:]...), "-p", project, "-f", file), args...)...)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = run(cctx, tool.Argv[0], append(append([]string(nil), tool.Argv[1:]...), "-p", project, "-f", file, "down", "-v", "-t", "5")...)
		if left, _ := Leftovers(cctx, runID); len(left) > 0 {
			t.Errorf("left behind: %v", left)
			_, _ = Down(cctx, runID)
		}
	})
	start := time.Now()
	if out, err := composeCmd("up", "-d"); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	// lncli inside alice's container, through its own gRPC.
	var last string
	for time.Since(start) < 2*time.Minute {
		id, _ := docker(ctx, "ps", "-q", "--filter", "label=com.docker.compose.project="+project, "--filter", "label=com.docker.compose.service=alice")
		if id != "" {
			out, err := docker(ctx, "exec", id, "lncli", "--network=simnet", "--lnddir=/data", "getinfo")
			if err == nil && (strings.Contains(out, `"alias":  "alice"`) || strings.Contains(out, `"alias": "alice"`)) {
				t.Logf("alice answered lncli %v after up", time.Since(start).Round(time.Millisecond))
				return
			}
			if err != nil {
				last = err.Error()
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("alice never answered lncli getinfo; last: %s", last)
}
