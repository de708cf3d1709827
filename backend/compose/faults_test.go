package compose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/topology"
)

// fakeDocker puts a `docker` on PATH that logs each command line (and a
// helper's stdin) to a file and answers like an engine with alice (cid-alice,
// 172.18.0.2), bob (cid-bob, 172.18.0.3) and btcd running. A helper whose
// stdin has a netem line fails as on a kernel without sch_netem when
// $FAKE_NO_NETEM is set.
func fakeDocker(t *testing.T) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	script := `#!/bin/bash
echo "$*" >> "` + log + `"
case "$1 $2" in
"compose version") echo 2.0.0 ;;
"ps -aq")
  for a in "$@"; do case "$a" in label=com.docker.compose.service=*) echo "cid-${a#*service=}" ;; label=lnbench.netdelay.of=*) echo "delayer-${a#*of=}" ;; esac; done ;;
"inspect --format")
  case "$3" in
  *IPAddress*) case "$4" in cid-alice) echo "172.18.0.2 " ;; cid-bob) echo "172.18.0.3 " ;; *) echo "172.18.0.9 " ;; esac ;;
  *Config.Image*) echo lnbench/lnd:fake ;;
  *compose.service*) echo "${4#cid-}" ;;
  *State.Status*) echo "running 0" ;;
  esac ;;
"run -d") echo "delayer-id" ;;
"run --rm")
  if [ -n "$FAKE_NO_NFQUEUE" ] && [[ "$*" == *NFQUEUE* ]]; then
    echo "Warning: Extension NFQUEUE revision 0 not supported, missing kernel module?" >&2; exit 1
  fi
  in=$(cat); printf '%s\n' "$in" | sed 's/^/  stdin: /' >> "` + log + `"
  if [ -n "$FAKE_NETEM_IN_ARGS" ] && [[ "$*" == *"root netem"* ]]; then
    echo "Error: Specified qdisc kind is unknown." >&2; exit 2
  fi
  if [ -n "$FAKE_NO_NETEM" ] && grep -q netem <<<"$in"; then
    n=$(grep -n netem <<<"$in" | head -1 | cut -d: -f1)
    echo "Error: Specified qdisc kind is unknown." >&2; echo "Command failed -:$n" >&2; exit 1
  fi ;;
esac
exit 0
`
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(ToolEnv, "v2")
	return log
}

func fakeBackend(t *testing.T) (*Backend, func() string) {
	t.Helper()
	log := fakeDocker(t)
	topo := topology.AlicePaysBob().WithDefaults("lnd", "v0.21.0-beta")
	b, err := New(t.Context(), Options{RunID: "R-1", Network: "launch1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(),
		Topology: topo, NodeImages: map[string]string{"lnd/v0.21.0-beta": "lnbench/lnd:fake"}})
	if err != nil {
		t.Fatal(err)
	}
	calls := func() string {
		data, _ := os.ReadFile(log)
		_ = os.Remove(log)
		var out []string
		for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			if !strings.HasPrefix(l, "compose version") && l != "" {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	calls()
	return b, calls
}

func TestFaultsDockerCommandLines(t *testing.T) {
	b, calls := fakeBackend(t)
	ctx := t.Context()
	for _, c := range []struct {
		name string
		do   func() error
		want string
	}{
		{"kill", func() error { return b.Kill(ctx, "bob") }, "kill cid-bob"},
		{"pause", func() error { return b.Pause(ctx, "bob") }, "pause cid-bob"},
		{"resume", func() error { return b.Resume(ctx, "bob") }, "unpause cid-bob"},
	} {
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := calls()
		if !strings.HasSuffix(got, c.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%s: calls\n%s\nwant a lookup then %q", c.name, got, c.want)
		}
	}

	// A link impairment, then the whole interface on top: each change
	// re-applies the actor's whole tree from one helper.
	if err := b.Impair(ctx, "alice", "bob", backend.Impairment{Delay: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	got := calls()
	wantCalls(t, "impair alice~bob", got,
		"ps -aq --filter label=com.docker.compose.project="+b.Project()+" --filter label=com.docker.compose.service=bob",
		"inspect --format {{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}} cid-bob",
		"inspect --format {{.Config.Image}} cid-alice",
		"run --rm -i --network container:cid-alice --cap-drop ALL --cap-add NET_ADMIN",
		"--label lnbench.run=R-1 --label lnbench.role=netem-helper --label lnbench.network=launch1 --entrypoint bash lnbench/lnd:fake -c "+tcScript,
		"stdin: qdisc add dev eth0 parent 1:2 handle 12: netem delay 50ms",
		"stdin: filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst 172.18.0.3/32 flowid 1:2")
	if strings.Contains(got, "parent 1:1 handle") {
		t.Errorf("link only, yet the default class is impaired:\n%s", got)
	}
	if err := b.Impair(ctx, "alice", "", backend.Impairment{LossPercent: 5}); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !strings.Contains(got, "parent 1:1 handle 11: netem loss 5%") || !strings.Contains(got, "dst 172.18.0.3/32") {
		t.Errorf("whole interface on top of the link:\n%s", got)
	}
	if err := b.Clear(ctx, "alice", "bob"); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !strings.Contains(got, "netem loss 5%") || strings.Contains(got, "172.18.0.3") {
		t.Errorf("clear the link, keep the whole-interface loss:\n%s", got)
	}
	if err := b.Clear(ctx, "alice", ""); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !strings.Contains(got, "run --rm") || strings.Contains(got, "stdin: qdisc") || strings.Contains(got, "stdin: class") {
		t.Errorf("clear all: the helper only deletes the tree, got\n%s", got)
	}
	if len(b.impaired) != 0 {
		t.Errorf("state left after clearing all: %v", b.impaired)
	}
}

func TestFaultsRefuseBadTargetsBeforeDocker(t *testing.T) {
	b, calls := fakeBackend(t)
	ctx := t.Context()
	for _, c := range []struct {
		err  error
		want string
	}{
		{b.Kill(ctx, "zed"), "kill zed: no such actor in this network (it has alice, bob, btcd)"},
		{b.Impair(ctx, "alice", "zed", backend.Impairment{Delay: time.Millisecond}), "towards zed: no such actor"},
		{b.Impair(ctx, "alice", "alice", backend.Impairment{Delay: time.Millisecond}), "two different actors"},
		{b.Impair(ctx, "alice", "bob", backend.Impairment{LossPercent: 150}), "impair alice~bob: impairment loss 150%"},
		{b.Impair(ctx, "alice", "", backend.Impairment{}), "sets nothing"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	if got := calls(); strings.Contains(got, "run ") || strings.Contains(got, "kill") {
		t.Errorf("refused faults ran docker:\n%s", got)
	}
}

// Without sch_netem and NFQUEUE, Impair says what to do in one line and
// restores what was there before (here: nothing, so the last helper only
// deletes).
func TestImpairWithoutNetem(t *testing.T) {
	b, calls := fakeBackend(t)
	t.Setenv("FAKE_NO_NETEM", "1")
	t.Setenv("FAKE_NETEM_IN_ARGS", "1")
	t.Setenv("FAKE_NO_NFQUEUE", "1")
	err := b.Impair(t.Context(), "alice", "", backend.Impairment{Delay: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "sudo modprobe sch_netem") || !strings.Contains(err.Error(), "NFQUEUE") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("want one line naming sch_netem and NFQUEUE, got %v", err)
	}
	got := calls()
	if n := strings.Count(got, "run --rm"); n != 3 {
		t.Errorf("want two probes and a restoring helper, got %d:\n%s", n, got)
	}
	if len(b.impaired) != 0 || b.mech != "" {
		t.Errorf("a failed impairment is recorded: %v %q", b.impaired, b.mech)
	}
	// A rate limit alone needs no netem.
	if err := b.Impair(t.Context(), "alice", "bob", backend.Impairment{RateKbit: 128}); err != nil {
		t.Errorf("rate limit: %v", err)
	}
}

// Without sch_netem, delay and loss go to iptables: loss drops on the way
// out, delay queues on the way in for a detached delayer running the
// mounted lnbench; Clear removes the delayer and empties the chains, and a
// rate limit stays HTB's.
func TestImpairWithNFQueue(t *testing.T) {
	b, calls := fakeBackend(t)
	t.Setenv("FAKE_NETEM_IN_ARGS", "1")
	imp := backend.Impairment{Delay: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, LossPercent: 5, RateKbit: 256}
	if err := b.Impair(t.Context(), "alice", "bob", imp); err == nil || !strings.Contains(err.Error(), "static lnbench") {
		t.Fatalf("delay without a mounted lnbench: %v", err)
	}
	calls()
	b.opts.Tool = "/opt/lnbench"
	if err := b.Impair(t.Context(), "alice", "bob", imp); err != nil {
		t.Fatal(err)
	}
	if b.ImpairMechanism() != MechNFQueue {
		t.Errorf("mechanism %q", b.ImpairMechanism())
	}
	got := calls()
	wantCalls(t, "impair alice~bob", got,
		"rm -f -v delayer-alice",
		"run -d --rm --network container:cid-alice --cap-drop ALL --cap-add NET_ADMIN --security-opt no-new-privileges:true --read-only --user 0:0 "+
			"--label lnbench.run=R-1 --label lnbench.role=netdelay --label lnbench.network=launch1 --label lnbench.netdelay.of=alice "+
			"-v /opt/lnbench:/usr/local/bin/lnbench:ro --entrypoint /usr/local/bin/lnbench lnbench/lnd:fake netdelay --queue 1 --delay 50ms --jitter 5ms",
		"--entrypoint bash lnbench/lnd:fake -c "+nfScript,
		"stdin: -A LNBENCH -d 172.18.0.3/32 -m statistic --mode random --probability 0.05 -j DROP",
		"stdin: -A LNBENCH_IN -s 172.18.0.3/32 -j NFQUEUE --queue-num 1 --queue-bypass",
		"stdin: class add dev eth0 parent 1: classid 1:2 htb rate 256kbit quantum 1514")
	if strings.Contains(got, "stdin: qdisc add dev eth0 parent 1:2 handle 12: netem") {
		t.Errorf("netem used without netem:\n%s", got)
	}
	if strings.Index(got, "run -d") > strings.Index(got, nfScript) {
		t.Errorf("rules before their delayer:\n%s", got)
	}
	if err := b.Clear(t.Context(), "alice", "bob"); err != nil {
		t.Fatal(err)
	}
	got = calls()
	if !strings.Contains(got, "rm -f -v delayer-alice") || strings.Contains(got, "run -d") || strings.Contains(got, "-j NFQUEUE") || strings.Contains(got, "-j DROP") {
		t.Errorf("Clear:\n%s", got)
	}
}

func TestMechanism(t *testing.T) {
	log := fakeDocker(t)
	if m, err := Mechanism(t.Context(), "R-1", "lnbench/lnd:fake"); m != MechNetem || err != nil {
		t.Fatalf("%q %v", m, err)
	}
	data, _ := os.ReadFile(log)
	want := "run --rm -i --network none --cap-drop ALL --cap-add NET_ADMIN --security-opt no-new-privileges:true --read-only --user 0:0 " +
		"--label lnbench.run=R-1 --label lnbench.role=netem-helper --entrypoint bash lnbench/lnd:fake -c " + netemProbe
	if !strings.Contains(string(data), want) {
		t.Errorf("calls:\n%s\nwant %q", data, want)
	}
	// No netem: iptables with NFQUEUE instead.
	t.Setenv("FAKE_NO_NETEM", "1")
	t.Setenv("FAKE_NETEM_IN_ARGS", "1")
	if m, err := Mechanism(t.Context(), "R-1", "lnbench/lnd:fake"); m != MechNFQueue || err != nil {
		t.Fatalf("without netem: %q %v", m, err)
	}
	if data, _ := os.ReadFile(log); !strings.Contains(string(data), "-c "+nfProbe) {
		t.Errorf("no NFQUEUE probe:\n%s", data)
	}
	// Neither: one line saying both.
	t.Setenv("FAKE_NO_NFQUEUE", "1")
	m, err := Mechanism(t.Context(), "R-1", "lnbench/lnd:fake")
	if m != "" || err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "network impairments: the Docker host's kernel has no netem qdisc (sch_netem): run `sudo modprobe sch_netem`") ||
		!strings.Contains(err.Error(), "iptables NFQUEUE and statistic failed too (Warning: Extension NFQUEUE revision 0 not supported") {
		t.Errorf("neither: %q %v", m, err)
	}
}

// wantCalls fails for each line part that the fake docker's calls lack.
func wantCalls(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%s: no %q in\n%s", what, want, got)
		}
	}
}
