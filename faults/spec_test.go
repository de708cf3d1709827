package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Spec
	}{
		{"restart bob at 10s", Spec{Kind: Restart, Target: "bob", Trigger: AtOffset, Offset: 10 * time.Second}},
		{"pause bob at 5s for 5s", Spec{Kind: Pause, Target: "bob", Offset: 5 * time.Second, For: 5 * time.Second}},
		{"delay carol 50ms jitter 5ms at 3s for 20s", Spec{Kind: Delay, Target: "carol", Delay: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, Offset: 3 * time.Second, For: 20 * time.Second}},
		{"loss alice~carol 5% after 200 payments for 15s", Spec{Kind: Loss, Target: "alice~carol", LossPercent: 5, Trigger: AfterPayments, Payments: 200, For: 15 * time.Second}},
		{"kill carol at iteration 2", Spec{Kind: Kill, Target: "carol", Trigger: AtIteration, Iteration: 2}},
		{"rate payee 256kbit for 10s at 0s", Spec{Kind: Rate, Target: "payee", RateKbit: 256, For: 10 * time.Second}},
		{"  Pause   btcd at 1s for 2s ", Spec{Kind: Pause, Target: "btcd", Offset: time.Second, For: 2 * time.Second}},
		{"restart bob after 1 payment", Spec{Kind: Restart, Target: "bob", Trigger: AfterPayments, Payments: 1}},
	} {
		got, err := Parse(tc.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.text, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.text, got, tc.want)
		}
		// The canonical form reads back to the same fault.
		again, err := Parse(got.String())
		if err != nil || again != got {
			t.Errorf("Parse(%q.String() = %q) = %+v, %v; want %+v", tc.text, got.String(), again, err, got)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ text, says string }{
		{"", "write <what>"},
		{"restart", "write <what>"},
		{"explode bob at 1s", `unknown kind "explode"; use one of kill, restart, pause, delay, loss, rate`},
		{"restart bob", "say when"},
		{"restart bob at soon", "at \"soon\": give an offset"},
		{"restart bob at -1s", "give an offset"},
		{"restart bob at 1s for 5s", "restart takes no duration"},
		{"kill bob at 1s for 5s", "kill takes no duration"},
		{"pause bob at 1s", "pause needs how long it lasts"},
		{"pause bob at 1s for 0s", "pause needs how long it lasts"},
		{"pause bob at 1s for ever", "for \"ever\": use a duration"},
		{"delay carol at 1s for 5s", "delay amount \"at\""},
		{"delay carol 0s at 1s for 5s", "delay 0s: use a duration above 0"},
		{"delay carol 10ms jitter 20ms at 1s for 5s", "jitter 20ms: use a duration from 0 up to the delay"},
		{"delay carol 10ms at 1s", "delay needs how long it lasts"},
		{"loss carol 5 at 1s for 5s", "write a percentage with %"},
		{"loss carol 0% at 1s for 5s", "loss 0%: use a percentage above 0"},
		{"loss carol 150% at 1s for 5s", "at most 100"},
		{"rate carol 100 at 1s for 5s", "write the rate in kbit"},
		{"rate carol 0kbit at 1s for 5s", "rate 0kbit: use a rate above 0"},
		{"restart alice~bob at 1s", "a link (a~b) can only be impaired"},
		{"restart bob after 0 payments", "give a count of measured payments from 1"},
		{"restart bob after 5 things", "unexpected \"after 5 things\""},
		{"restart bob at iteration -1", "give a measured iteration number from 0"},
		{"restart bob at 1s please", "unexpected \"please\""},
		{"pause bob jitter 5ms at 1s for 1s", "unexpected \"jitter 5ms"},
	} {
		_, err := Parse(tc.text)
		if err == nil {
			t.Errorf("Parse(%q) accepted it", tc.text)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %q; want one line saying %q", tc.text, err, tc.says)
		}
	}
}

func TestResolve(t *testing.T) {
	a := Actors{Nodes: []string{"alice", "bob", "carol"}, Payers: []string{"alice"}, Payees: []string{"bob"}, Intermediaries: []string{"carol"}}
	for _, tc := range []struct{ text, want, says string }{
		{"restart bob at 1s", "bob", ""},
		{"restart payee at 1s", "bob", ""},
		{"pause intermediary at 1s for 1s", "carol", ""},
		{"kill btcd at 1s", "btcd", ""},
		{"loss payer~intermediary 5% at 1s for 1s", "alice~carol", ""},
		{"restart dave at 1s", "", `no actor "dave"; name one of alice, bob, btcd, carol, or a role (payer, payee, intermediary)`},
		{"loss alice~dave 5% at 1s for 1s", "", `no actor "dave"`},
		{"loss alice~payer 5% at 1s for 1s", "", "names alice twice"},
	} {
		s, err := Parse(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Resolve(s)
		if tc.says != "" {
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Resolve(%q) = %v, %v; want error saying %q", tc.text, got, err, tc.says)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", tc.text, got, err, tc.want)
		}
	}
	many := Actors{Nodes: []string{"alice", "dave", "bob"}, Payers: []string{"alice", "dave"}, Payees: []string{"bob"}}
	s, _ := Parse("kill payer at 1s")
	if _, err := many.Resolve(s); err == nil || !strings.Contains(err.Error(), "payer is alice, dave in this topology; name one of them") {
		t.Errorf("ambiguous role: %v", err)
	}
	s, _ = Parse("kill intermediary at 1s")
	if _, err := many.Resolve(s); err == nil || !strings.Contains(err.Error(), "has no intermediary") {
		t.Errorf("missing role: %v", err)
	}
}

func TestCheckReached(t *testing.T) {
	b := Bounds{Iterations: 3, Payments: 30}
	for text, ok := range map[string]bool{
		"kill bob at iteration 2":    true,
		"kill bob at iteration 3":    false,
		"kill bob after 29 payments": true,
		"kill bob after 30 payments": false,
		"kill bob at 1h":             true, // time is not bounded here
	} {
		s, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CheckReached(s); (err == nil) != ok {
			t.Errorf("CheckReached(%q) = %v; want ok=%v", text, err, ok)
		}
	}
	s, _ := Parse("kill bob at iteration 9")
	if err := (Bounds{}).CheckReached(s); err != nil {
		t.Errorf("unknown bounds refuse nothing: %v", err)
	}
}

func TestWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)
	for _, r := range []Record{{Kind: Restart, Target: "bob", Start: start, End: start.Add(3 * time.Second)}, {Kind: Kill, Target: "carol", Error: "boom"}} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", data)
	}
	var r Record
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil || r.Target != "bob" || !r.End.Equal(start.Add(3*time.Second)) {
		t.Errorf("first record %+v, %v", r, err)
	}
}
