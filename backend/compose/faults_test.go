package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/internal/dockerapi"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/topology"
)

// fakeDocker puts a `docker` on PATH that logs each command line (and a
// helper's stdin) to a file and answers like an engine with alice (cid-alice,
// 172.18.0.2), bob (cid-bob, 172.18.0.3) and btcd running on a network whose
// gateway is 172.18.0.1. A helper whose stdin has a netem line fails as on
// a kernel without sch_netem when $FAKE_NO_NETEM is set ($FAKE_NO_NFQUEUE,
// $FAKE_NO_BPF: likewise); a helper's clock reads 1700000000.25; a
// delayer's log says it lifted its delay at 1700000000.1 and counts 4
// packets held and $FAKE_RELEASED (4) released.
func fakeDocker(t *testing.T) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	script := `#!/bin/bash
echo "$*" >> "` + log + `"
case "$1 $2" in
"compose version") echo 2.0.0 ;;
"ps -aq"|"ps -q")
  for a in "$@"; do case "$a" in label=com.docker.compose.service=*) echo "cid-${a#*service=}" ;; label=lnbench.netdelay.of=*) echo "delayer-${a#*of=}" ;; esac; done ;;
"inspect --type")
  sep=""; printf '['
  for id in "${@:4}"; do
    case "$id" in cid-alice) ip=172.18.0.2 ;; cid-bob) ip=172.18.0.3 ;; *) ip=172.18.0.9 ;; esac
    printf '%s{"Id":"%s","Name":"/%s","State":{"Status":"running"},"Config":{"Image":"lnbench/lnd:fake","Labels":{"com.docker.compose.service":"%s"}},"NetworkSettings":{"Networks":{"n":{"IPAddress":"%s","Gateway":"172.18.0.1"}}}}' "$sep" "$id" "${id#cid-}" "${id#cid-}" "$ip"
    sep=,
  done; echo ']' ;;
"run -d") echo "delayer-new" ;;
"logs "*) echo "netdelay: queue 0 bound, delay 50ms ± 5ms"; echo "netdelay: queue 0 lifted at 1700000000100000000"; echo "netdelay: queue 0: held 4, released ${FAKE_RELEASED:-4}, bypassed ${FAKE_BYPASSED:-0}" ;;
"run --rm")
  if [ -n "$FAKE_NO_NFQUEUE" ] && [[ "$*" == *"-j NFQUEUE"* ]]; then
    echo "Warning: Extension NFQUEUE revision 0 not supported, missing kernel module?" >&2; exit 1
  fi
  if [ -n "$FAKE_NO_BPF" ] && [[ "$*" == *" bpf da "* ]]; then
    echo "Error: Specified filter kind is unknown." >&2; exit 2
  fi
  in=$(cat); printf '%s\n' "$in" | sed 's/^/  stdin: /' >> "` + log + `"
  if [ -n "$FAKE_NETEM_IN_ARGS" ] && [[ "$*" == *"root netem"* ]]; then
    echo "Error: Specified qdisc kind is unknown." >&2; exit 2
  fi
  if [ -n "$FAKE_NO_NETEM" ] && grep -q netem <<<"$in"; then
    n=$(grep -n netem <<<"$in" | head -1 | cut -d: -f1)
    echo "Error: Specified qdisc kind is unknown." >&2; echo "Command failed -:$n" >&2; exit 1
  fi
  if [[ "$*" == *"date +%s.%N"* ]]; then echo 1700000000.250000000; fi ;;
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
	b, err := New(t.Context(), Options{NetworkOptions: composefile.NetworkOptions{RunID: "R-1", Network: "launch1", WorkDir: t.TempDir(), ArtifactsDir: t.TempDir(), Topology: topo, NodeImages: map[string]string{"lnd/v0.21.0-beta": "lnbench/lnd:fake"}}})
	if err != nil {
		t.Fatal(err)
	}
	b.eng.e = loggedEngine{log} // the engine's API, beside the fake CLI
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

// loggedEngine answers the engine's questions as fakeDocker's engine
// would and logs each to the same file, "engine containers LABELS" and
// "engine inspect IDS", so a test sees every lookup in order.
type loggedEngine struct{ log string }

func (e loggedEngine) note(line string) {
	f, err := os.OpenFile(e.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}

func (e loggedEngine) Containers(_ context.Context, q dockerapi.ContainerQuery) ([]string, error) {
	e.note("engine containers " + strings.Join(q.Labels, " "))
	var ids []string
	for _, l := range q.Labels {
		if svc, ok := strings.CutPrefix(l, "com.docker.compose.service="); ok {
			ids = append(ids, "cid-"+svc)
		}
	}
	return ids, nil
}

func (e loggedEngine) Inspect(_ context.Context, ids ...string) ([]container.InspectResponse, error) {
	e.note("engine inspect " + strings.Join(ids, " "))
	ipOf := map[string]string{"cid-alice": "172.18.0.2", "cid-bob": "172.18.0.3"}
	var out []container.InspectResponse
	for _, id := range ids {
		ip := ipOf[id]
		if ip == "" {
			ip = "172.18.0.9"
		}
		svc := strings.TrimPrefix(id, "cid-")
		out = append(out, container.InspectResponse{
			ContainerJSONBase: &container.ContainerJSONBase{ID: id, Name: "/" + svc, State: &container.State{Status: "running"}},
			Config:            &container.Config{Image: "lnbench/lnd:fake", Labels: map[string]string{"com.docker.compose.service": svc}},
			NetworkSettings:   &container.NetworkSettings{Networks: map[string]*network.EndpointSettings{"n": {IPAddress: ip, Gateway: "172.18.0.1"}}},
		})
	}
	return out, nil
}

func (e loggedEngine) Logs(_ context.Context, id string, tail int) (string, error) {
	e.note(fmt.Sprintf("engine logs %s %d", id, tail))
	return "", nil
}

func (e loggedEngine) Pause(_ context.Context, id string) error {
	e.note("engine pause " + id)
	return nil
}

func (e loggedEngine) Unpause(_ context.Context, id string) error {
	e.note("engine unpause " + id)
	return nil
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
		{"pause", func() error { return b.Pause(ctx, "bob") }, "engine pause cid-bob"},
		{"resume", func() error { return b.Resume(ctx, "bob") }, "engine unpause cid-bob"},
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
	applied, err := b.Impair(ctx, "alice", "bob", backend.Impairment{Delay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := backend.Applied{At: time.Unix(1700000000, 250000000).UTC(), Mechanism: MechNetem, Direction: "outgoing", Exempt: []string{"harness 172.18.0.1"}}
	if !reflect.DeepEqual(applied, want) {
		t.Errorf("applied %+v, want %+v", applied, want)
	}
	got := calls()
	wantCalls(t, "impair alice~bob", got,
		"engine containers com.docker.compose.project="+b.Project()+" com.docker.compose.service=bob",
		"engine inspect cid-bob",
		"engine inspect cid-alice",
		"engine inspect cid-alice",
		"run --rm -i --network container:cid-alice --cap-drop ALL --cap-add NET_ADMIN",
		"--label lnbench.run=R-1 --label lnbench.role=netem-helper --label lnbench.network=launch1 --entrypoint bash lnbench/lnd:fake -c "+tcScript+" && "+clockScript,
		"stdin: qdisc add dev eth0 parent 1:2 handle 12: netem delay 50ms",
		"stdin: filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 172.18.0.3/32 flowid 1:2")
	if strings.Contains(got, "parent 1:1 handle") {
		t.Errorf("link only, yet the default class is impaired:\n%s", got)
	}
	applied, err = b.Impair(ctx, "alice", "", backend.Impairment{LossPercent: 5})
	if err != nil || applied.Mechanism != MechBPF || applied.Direction != "both" {
		t.Fatalf("%+v %v", applied, err)
	}
	if got := calls(); !strings.Contains(got, "stdin: qdisc add dev eth0 handle ffff: ingress") || strings.Count(got, " bpf da bytecode ") != 2 || !strings.Contains(got, "dst 172.18.0.3/32") {
		t.Errorf("whole interface loss on top of the link:\n%s", got)
	}
	if _, err := b.Clear(ctx, "alice", "bob"); err != nil {
		t.Fatal(err)
	}
	if got := calls(); strings.Count(got, " bpf da bytecode ") != 2 || strings.Contains(got, "172.18.0.3") {
		t.Errorf("clear the link, keep the whole-interface loss:\n%s", got)
	}
	at, err := b.Clear(ctx, "alice", "")
	if err != nil || !at.Equal(time.Unix(1700000000, 250000000)) {
		t.Fatalf("clear all: %v %v", at, err)
	}
	if got := calls(); !strings.Contains(got, "run --rm") || strings.Contains(got, "stdin: qdisc") || strings.Contains(got, "stdin: class") {
		t.Errorf("clear all: the helper only deletes the qdiscs, got\n%s", got)
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
		{impairErr(b.Impair(ctx, "alice", "zed", backend.Impairment{Delay: time.Millisecond})), "towards zed: no such actor"},
		{impairErr(b.Impair(ctx, "alice", "alice", backend.Impairment{Delay: time.Millisecond})), "two different actors"},
		{impairErr(b.Impair(ctx, "alice", "bob", backend.Impairment{LossPercent: 150})), "impair alice~bob: impairment loss 150%"},
		{impairErr(b.Impair(ctx, "alice", "", backend.Impairment{})), "sets nothing"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	if got := calls(); strings.Contains(got, "run ") || strings.Contains(got, "kill") {
		t.Errorf("refused faults ran docker:\n%s", got)
	}
}

func impairErr(_ backend.Applied, err error) error { return err }

// Without sch_netem and NFQUEUE, a delay is refused in one line and what
// was there before is restored (here: nothing, so the last helper only
// deletes); loss and rate limits need neither.
func TestImpairWithoutNetem(t *testing.T) {
	b, calls := fakeBackend(t)
	t.Setenv("FAKE_NO_NETEM", "1")
	t.Setenv("FAKE_NETEM_IN_ARGS", "1")
	t.Setenv("FAKE_NO_NFQUEUE", "1")
	_, err := b.Impair(t.Context(), "alice", "", backend.Impairment{Delay: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "sudo modprobe sch_netem") || !strings.Contains(err.Error(), "NFQUEUE") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("want one line naming sch_netem and NFQUEUE, got %v", err)
	}
	got := calls()
	if n := strings.Count(got, "run --rm"); n != 4 {
		t.Errorf("want three probes and a restoring helper, got %d:\n%s", n, got)
	}
	if len(b.impaired) != 0 {
		t.Errorf("a failed impairment is recorded: %v", b.impaired)
	}
	if _, err := b.Impair(t.Context(), "alice", "bob", backend.Impairment{RateKbit: 128}); err != nil {
		t.Errorf("rate limit: %v", err)
	}
	if _, err := b.Impair(t.Context(), "alice", "bob", backend.Impairment{LossPercent: 20}); err != nil {
		t.Errorf("loss: %v", err)
	}
}

// Without sch_netem, delay goes to iptables: incoming packets are queued
// for a detached delayer running the mounted lnbench, started and bound
// before the rules; the harness's address is never queued; loss is BPF's
// and a rate limit HTB's. Clear removes the rules first, then lets the old
// delayer release what it holds and checks its count.
func TestImpairWithNFQueue(t *testing.T) {
	b, calls := fakeBackend(t)
	t.Setenv("FAKE_NETEM_IN_ARGS", "1")
	imp := backend.Impairment{Delay: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, LossPercent: 5, RateKbit: 256}
	if _, err := b.Impair(t.Context(), "alice", "bob", imp); err == nil || !strings.Contains(err.Error(), "static lnbench") {
		t.Fatalf("delay without a mounted lnbench: %v", err)
	}
	calls()
	b.opts.Tool = "/opt/lnbench"
	applied, err := b.Impair(t.Context(), "alice", "bob", imp)
	if err != nil {
		t.Fatal(err)
	}
	if applied.Mechanism != "nfqueue+bpf+htb" || applied.Direction != "both" || b.ImpairMechanism() != MechNFQueue {
		t.Errorf("applied %+v, mechanism %q", applied, b.ImpairMechanism())
	}
	got := calls()
	wantCalls(t, "impair alice~bob", got,
		"run -d --network container:cid-alice --cap-drop ALL --cap-add NET_ADMIN --security-opt no-new-privileges:true --read-only --user 0:0 "+
			"--label lnbench.run=R-1 --label lnbench.role=netdelay --label lnbench.network=launch1 --label lnbench.netdelay.of=alice "+
			"-v /opt/lnbench:/usr/local/bin/lnbench:ro --entrypoint /usr/local/bin/lnbench lnbench/lnd:fake netdelay --queue 1 --delay 50ms --jitter 5ms",
		"logs delayer-new",
		"-e LNBENCH_NF=*filter\n:LNBENCH_IN - [0:0]\n-A LNBENCH_IN -s 172.18.0.1/32 -j RETURN\n-A LNBENCH_IN -s 172.18.0.3/32 -j NFQUEUE --queue-num 1 --queue-bypass\n",
		"-c "+tcScript+" && "+nfScript+" && "+clockScript,
		"stdin: class add dev eth0 parent 1: classid 1:2 htb rate 256kbit quantum 1514",
		"bpf da bytecode")
	if strings.Contains(got, "netem") && strings.Contains(got, "stdin: qdisc add dev eth0 parent 1:2 handle 12: netem") {
		t.Errorf("netem used without netem:\n%s", got)
	}
	if strings.Index(got, "logs delayer-new") > strings.Index(got, nfScript) {
		t.Errorf("rules before their delayer held its queue:\n%s", got)
	}
	at, err := b.Clear(t.Context(), "alice", "bob")
	if err != nil {
		t.Fatal(err)
	}
	if !at.Equal(time.Unix(1700000000, 100000000)) {
		t.Errorf("cleared at %v, want when the delayer lifted the delay", at)
	}
	got = calls()
	if strings.Contains(got, "run -d") || strings.Contains(got, "-j NFQUEUE") || strings.Contains(got, "bpf da") {
		t.Errorf("Clear:\n%s", got)
	}
	// The delay is lifted (held packets out first, later ones after them),
	// then the rules go, then the delayer is stopped, read and removed.
	lift, helper, stop := strings.Index(got, "kill -s TERM delayer-alice"), strings.Index(got, nfScript), strings.Index(got, "stop -t 40 delayer-alice")
	if lift < 0 || helper < lift || stop < helper || !strings.Contains(got[stop:], "logs delayer-alice") || !strings.Contains(got[stop:], "rm -f -v delayer-alice") {
		t.Errorf("Clear: lift, rules out, then the delayer stopped, read and removed:\n%s", got)
	}
	// A delayer that could not release all it held: Clear says how many.
	if _, err := b.Impair(t.Context(), "alice", "", imp); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_RELEASED", "3")
	at, err = b.Clear(t.Context(), "alice", "")
	if err == nil || !strings.Contains(err.Error(), "released 3 of the 4 packets it held") || at.IsZero() || len(b.impaired) != 0 {
		t.Errorf("lost packets: %v %v %v", at, err, b.impaired)
	}
	// One the kernel let through undelayed overtook those held: said too.
	t.Setenv("FAKE_RELEASED", "4")
	if _, err := b.Impair(t.Context(), "alice", "", imp); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_BYPASSED", "2")
	if _, err := b.Clear(t.Context(), "alice", ""); err == nil || !strings.Contains(err.Error(), "let 2 packets through undelayed") {
		t.Errorf("bypassed packets: %v", err)
	}
}

func TestProbe(t *testing.T) {
	log := fakeDocker(t)
	if m := Probe(t.Context(), "R-1", "lnbench/lnd:fake"); m.Delay != MechNetem || m.Loss != MechBPF {
		t.Fatalf("%+v", m)
	}
	data, _ := os.ReadFile(log)
	want := "run --rm -i --network none --cap-drop ALL --cap-add NET_ADMIN --security-opt no-new-privileges:true --read-only --user 0:0 " +
		"--label lnbench.run=R-1 --label lnbench.role=netem-helper --entrypoint bash lnbench/lnd:fake -c " + netemProbe
	if !strings.Contains(string(data), want) || !strings.Contains(string(data), "-c "+dropProbe) {
		t.Errorf("calls:\n%s\nwant %q", data, want)
	}
	// No netem: iptables with NFQUEUE instead.
	t.Setenv("FAKE_NO_NETEM", "1")
	t.Setenv("FAKE_NETEM_IN_ARGS", "1")
	if m := Probe(t.Context(), "R-1", "lnbench/lnd:fake"); m.Delay != MechNFQueue || m.Check(backend.Impairment{Delay: time.Millisecond}) != nil {
		t.Fatalf("without netem: %+v", m)
	}
	if data, _ := os.ReadFile(log); !strings.Contains(string(data), "-c "+nfProbe) {
		t.Errorf("no NFQUEUE probe:\n%s", data)
	}
	// Neither: one line saying both; no BPF: loss is refused, delay is not.
	t.Setenv("FAKE_NO_NFQUEUE", "1")
	t.Setenv("FAKE_NO_BPF", "1")
	m := Probe(t.Context(), "R-1", "lnbench/lnd:fake")
	err := m.Check(backend.Impairment{Delay: time.Millisecond})
	if m.Delay != "" || err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "network delay: the Docker host's kernel has no netem qdisc (sch_netem): run `sudo modprobe sch_netem`") ||
		!strings.Contains(err.Error(), "iptables NFQUEUE failed too (Warning: Extension NFQUEUE revision 0 not supported") {
		t.Errorf("neither: %+v %v", m, err)
	}
	if err := m.Check(backend.Impairment{LossPercent: 1}); err == nil || !strings.Contains(err.Error(), "packet loss: ") || !strings.Contains(err.Error(), "CONFIG_NET_CLS_BPF") {
		t.Errorf("no BPF: %v", err)
	}
	if err := m.Check(backend.Impairment{RateKbit: 64}); err != nil {
		t.Errorf("a rate limit needs neither: %v", err)
	}
}

// Probed before measuring, the first impairment runs no probe.
func TestPrepareImpairments(t *testing.T) {
	b, calls := fakeBackend(t)
	if err := b.PrepareImpairments(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !strings.Contains(got, "-c "+netemProbe) || !strings.Contains(got, "-c "+dropProbe) {
		t.Errorf("no probes:\n%s", got)
	}
	if _, err := b.Impair(t.Context(), "alice", "", backend.Impairment{LossPercent: 1}); err != nil {
		t.Fatal(err)
	}
	if got := calls(); strings.Contains(got, netemProbe) || strings.Contains(got, dropProbe) {
		t.Errorf("probed again:\n%s", got)
	}
}

func TestDescribe(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		m         Mechanisms
		imp       backend.Impairment
		mech, dir string
	}{
		{Mechanisms{Delay: MechNFQueue}, backend.Impairment{Delay: 100 * ms}, "nfqueue", "incoming"},
		{Mechanisms{Delay: MechNetem}, backend.Impairment{Delay: 100 * ms}, "netem", "outgoing"},
		{Mechanisms{Delay: MechNetem, Loss: MechBPF}, backend.Impairment{LossPercent: 20}, "bpf", "both"},
		{Mechanisms{}, backend.Impairment{RateKbit: 256}, "htb", "outgoing"},
		{Mechanisms{Delay: MechNFQueue}, backend.Impairment{Delay: ms, RateKbit: 8}, "nfqueue+htb", "both"},
	} {
		if mech, dir := c.m.Describe(c.imp); mech != c.mech || dir != c.dir {
			t.Errorf("%+v %+v: %q %q, want %q %q", c.m, c.imp, mech, dir, c.mech, c.dir)
		}
	}
}

func TestHelperClock(t *testing.T) {
	if got := helperClock("1700000000.250000000"); !got.Equal(time.Unix(1700000000, 250000000)) {
		t.Errorf("%v", got)
	}
	if got := helperClock(""); time.Since(got) > time.Second {
		t.Errorf("no clock: now, got %v", got)
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

func TestRetryFreeze(t *testing.T) {
	unable := errors.New("docker pause x: exit status 1: Error response from daemon: Cannot pause container x: OCI runtime pause failed: unable to freeze: unknown")
	other := errors.New("docker pause x: no such container")
	tests := []struct {
		name    string
		results []error
		calls   int
		wantErr string
	}{
		{"at once", []error{nil}, 1, ""},
		{"after two refusals", []error{unable, unable, nil}, 3, ""},
		{"another error is not retried", []error{other}, 1, "no such container"},
		{"gives up", []error{unable, unable, unable, unable, unable, unable}, freezeAttempts, "unable to freeze: unknown (tried 5 times)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := retryFreeze(context.Background(), time.Millisecond, func() error {
				calls++
				return tt.results[calls-1]
			})
			if calls != tt.calls || (err == nil) != (tt.wantErr == "") || err != nil && !strings.HasSuffix(err.Error(), tt.wantErr) {
				t.Errorf("%d calls, %v; want %d calls and %q", calls, err, tt.calls, tt.wantErr)
			}
		})
	}
}
